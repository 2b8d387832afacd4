"""kioku.text.secrets.rules_personal: national ID and passport numbers never reach committed memory.

The check digits are computed here independently of the module (its own implementation is what
is under test), and each number's lookalikes (phone, order and account numbers, dates) are shown
to pass.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kioku.infra.errors import SecretRejected
from kioku.text.secrets import KIND_LABELS, ensure_storable, find_secrets, redact


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _my_number(first11: str) -> str:
    """A Japanese individual number: eleven digits and the check digit the law defines."""
    weights = [6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2]  # for the digits from the left
    rest = sum(int(d) * w for d, w in zip(first11, weights)) % 11
    return first11 + str(0 if rest <= 1 else 11 - rest)


def _verhoeff(digits: str) -> bool:
    d = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
         [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
         [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
         [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
    p = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]
    for _ in range(7):
        p.append([p[-1][[1, 5, 7, 6, 2, 8, 3, 0, 9, 4][k]] for k in range(10)])
    check = 0
    for i, ch in enumerate(reversed(digits)):
        check = d[check][p[i % 8][int(ch)]]
    return check == 0


def _aadhaar(seed: int) -> str:
    r = random.Random(seed)
    body = r.choice("23456789") + "".join(r.choice("0123456789") for _ in range(10))
    return next(body + c for c in "0123456789" if _verhoeff(body + c))


def _sin(seed: int) -> str:
    r = random.Random(seed)
    body = r.choice("1234567") + "".join(r.choice("0123456789") for _ in range(7))
    return next(body + c for c in "0123456789" if _luhn_ok(body + c))


MY_NUMBER = _my_number("51687954866")
AADHAAR = _aadhaar(3)
SIN = _sin(4)

FOUND = [
    ("us_ssn", "my SSN is 536-22-8190", "536-22-8190"),
    ("us_ssn", "SSN: 536 22 8190", "536 22 8190"),
    ("us_ssn", "social security number 536228190", "536228190"),
    ("us_ssn", "her ITIN is 912-70-1234", "912-70-1234"),
    ("us_ssn", "the form says 536-22-8190 for the applicant", "536-22-8190"),
    ("uk_nino", "NI number: AB 12 34 56 C", "AB 12 34 56 C"),
    ("uk_nino", "National Insurance no. JG103759A", "JG103759A"),
    ("ca_sin", f"SIN: {SIN[:3]}-{SIN[3:6]}-{SIN[6:]}", f"{SIN[:3]}-{SIN[3:6]}-{SIN[6:]}"),
    ("ca_sin", f"social insurance number {SIN}", SIN),
    ("jp_my_number", f"マイナンバーは{MY_NUMBER}です", MY_NUMBER),
    ("jp_my_number", f"個人番号: {MY_NUMBER[:4]} {MY_NUMBER[4:8]} {MY_NUMBER[8:]}",
     f"{MY_NUMBER[:4]} {MY_NUMBER[4:8]} {MY_NUMBER[8:]}"),
    ("jp_my_number", f"My Number: {MY_NUMBER[:4]}-{MY_NUMBER[4:8]}-{MY_NUMBER[8:]}",
     f"{MY_NUMBER[:4]}-{MY_NUMBER[4:8]}-{MY_NUMBER[8:]}"),
    ("in_aadhaar", f"Aadhaar: {AADHAAR[:4]} {AADHAAR[4:8]} {AADHAAR[8:]}", f"{AADHAAR[:4]} {AADHAAR[4:8]} {AADHAAR[8:]}"),
    ("passport_number", "passport number: 123456789", "123456789"),
    ("passport_number", "Passport no. X12345678", "X12345678"),
    ("passport_number", "パスポート番号: TK1234567", "TK1234567"),
    ("credit_card", "card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111"),
]


@pytest.mark.parametrize("kind,text,number", FOUND)
def test_a_personal_identifier_is_found_and_redacted(kind: str, text: str, number: str) -> None:
    findings = find_secrets(text)
    assert [f.kind for f in findings] == [kind]
    assert number not in redact(text) and f"[REDACTED:{kind}]" in redact(text)


@pytest.mark.parametrize("kind,text,number", FOUND)
def test_saving_one_is_refused_with_one_line_that_names_its_kind(kind: str, text: str, number: str) -> None:
    with pytest.raises(SecretRejected) as info:
        ensure_storable(text)
    message = str(info.value)
    assert message == f"refusing to store memory: it looks like it contains {KIND_LABELS[kind]}; nothing was saved"
    assert "\n" not in message and number not in message and number[-4:] not in message


@pytest.mark.parametrize("text", [
    "the example 123-45-6789 shows the format",        # the published examples
    "078-05-1120 was printed on a wallet card",
    "call 555-123-4567 or 0120-123-456",               # phone numbers
    "order 2024-05-1234 and part 12-345-6789",
    "SSN: 000-12-3456 is not issued", "SSN 666-12-3456", "SSN 536-00-8190", "ssn 536-22-0000",
    "SSN 987-65-4321",                                 # 9xx is not an SSN, and not an ITIN group
    "NI number: QQ 12 34 56 C",                        # Q is never a first letter
    "NI number: GB 12 34 56 A",                        # never issued
    "SIN: 123-456-789",                                # fails Luhn
    "the order 396-884-132 shipped",                   # no name before it
    f"マイナンバーは{MY_NUMBER[:11]}{(int(MY_NUMBER[11]) + 1) % 10}です",  # wrong check digit
    "my number is 090-1234-5678",                     # a phone number
    f"Aadhaar: {AADHAAR[:11]}{(int(AADHAAR[11]) + 1) % 10}",
    "Aadhaar: 1234 5678 9012",                         # never starts with 1
    "passport expires 2030-05-01", "passport photo 600x600", "passport.js 0.7.0",
    "bring your passport and 2 photos",
    "the AWS account id is 123456789012",
    "ISBN 978-3-16-148410-0", "IBAN DE89 3704 0044 0532 0130 00 is the format example",
])
def test_lookalikes_of_personal_identifiers_pass(text: str) -> None:
    assert find_secrets(text) == [], [(f.kind, text[f.start:f.end]) for f in find_secrets(text)]


def test_every_personal_kind_has_a_label_and_a_sample() -> None:
    kinds = {k for k, _, _ in FOUND}
    assert kinds == {"us_ssn", "uk_nino", "ca_sin", "jp_my_number", "in_aadhaar", "passport_number", "credit_card"}
    assert all(KIND_LABELS[k] for k in kinds)


@pytest.mark.parametrize("text", ["my SSN is 536-22-8190", f"マイナンバーは{MY_NUMBER}です"])
def test_remember_into_project_memory_refuses_it_and_writes_nothing(project: Path, kioku, text: str) -> None:
    """Project memory is meant to be committed: the real CLI refuses with one line and exit 3."""
    out = kioku("remember", text, cwd=project)
    assert out.returncode == SecretRejected.exit_code, out.stdout + out.stderr
    assert out.stderr.startswith("kioku: error: refusing to store memory: it looks like it contains ")
    assert out.stderr.count("\n") == 1 and "8190" not in out.stderr and MY_NUMBER not in out.stderr
    memory = project / ".agents" / "memory"
    assert not memory.exists() or all(text not in p.read_text(encoding="utf-8")
                                      for p in memory.rglob("*") if p.is_file())
