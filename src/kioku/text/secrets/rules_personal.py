"""Rules for personal identifiers that must never reach memory meant to be committed: national ID
numbers and passport numbers (payment card numbers, Luhn-checked, are the entropy layer's).

Each number is checked as its issuer defines it, so an ordinary number of the same shape (an
order number, a phone number, a date) is left alone:

- US Social Security number: ``AAA-GG-SSSS`` on its own (area not 000, 666 or 9xx, group not 00,
  serial not 0000; the numbers printed as examples and the range kept for advertising are not
  taken), or nine digits
  after "SSN" / "social security" (also an ITIN after "ITIN" or "taxpayer ID": area 9xx, group
  50-65, 70-88, 90-92 or 94-99);
- UK National Insurance number after its name (two letters the scheme allows, six digits, A-D);
- Canadian Social Insurance number after "SIN" or its name (nine digits, Luhn);
- Japanese My Number (個人番号) after its name (twelve digits, its check digit);
- Indian Aadhaar number after its name (twelve digits, not starting 0 or 1, Verhoeff check);
- a passport number after "passport number" / 旅券番号 (six to nine digits, up to two letters before).
"""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.entropy import _luhn
from kioku.text.secrets.rule import _Rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Between a number's name and the number: "no.", "#", "number", then "is", ":" or "=".
_NAMED = r"(?:[ \t]*(?:#|no\.?|number|num(?:ber)?\.?))?[ \t]*(?:\b(?i:is|was)\b|[:=：#]|は)?[ \t]*[\"'`]?"
# The numbers printed as examples (a wallet insert, an advertisement, the sequence) and the range
# the SSA keeps for advertising (987-65-4320 to 987-65-4329)
_EXAMPLE_SSNS = frozenset(("123456789", "078051120", "219099999", *(f"98765432{d}" for d in range(10))))

# The bare dashed form, read wherever digits and a dash occur (no word names it).
SSN_DASHED = _Lazy(r"(?<![\w\-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w\-])")


def bare_ssn(digits: str) -> bool:
    """A dashed ``AAA-GG-SSSS`` number on its own (the pattern checked the ranges) that is not one
    of the published examples."""
    return digits.replace("-", "") not in _EXAMPLE_SSNS


def _ssn_or_itin(m: re.Match[str]) -> bool:
    digits = "".join(c for c in m.group("val") if c.isdigit())
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    if digits in _EXAMPLE_SSNS or group == "00" or serial == "0000" or area in ("000", "666"):
        return False
    if area[0] != "9":
        return True
    g = int(group)  # an ITIN: area 9xx with a group the IRS assigns
    return 50 <= g <= 65 or 70 <= g <= 88 or 90 <= g <= 92 or 94 <= g <= 99


# Letters a National Insurance number never starts with (first, second) and prefixes never issued
_NINO_BAD_FIRST, _NINO_BAD_SECOND = frozenset("DFIQUV"), frozenset("DFIOQUV")
_NINO_BAD_PREFIX = frozenset(("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))


def _nino(m: re.Match[str]) -> bool:
    prefix = m.group("val")[:2].upper()
    return prefix[0] not in _NINO_BAD_FIRST and prefix[1] not in _NINO_BAD_SECOND and prefix not in _NINO_BAD_PREFIX


def _sin(m: re.Match[str]) -> bool:
    digits = "".join(c for c in m.group("val") if c.isdigit())
    return digits[0] not in "08" and len(set(digits)) > 1 and _luhn(digits)


def my_number_check_digit(first11: str) -> int:
    """The check digit of a Japanese individual number from its first eleven digits."""
    total = 0
    for n in range(1, 12):
        p = int(first11[11 - n])
        q = n + 1 if n <= 6 else n - 5
        total += p * q
    rest = total % 11
    return 0 if rest <= 1 else 11 - rest


def _my_number(m: re.Match[str]) -> bool:
    digits = "".join(c for c in m.group("val") if c.isdigit())
    return len(set(digits)) > 1 and my_number_check_digit(digits[:11]) == int(digits[11])


_VERHOEFF_D = ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
               (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
               (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
               (9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
_VERHOEFF_P = ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
               (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
               (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8))


def verhoeff_valid(digits: str) -> bool:
    """Whether ``digits`` end with a correct Verhoeff check digit (Aadhaar numbers do)."""
    check = 0
    for i, ch in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[i % 8][int(ch)]]
    return check == 0


def _aadhaar(m: re.Match[str]) -> bool:
    digits = "".join(c for c in m.group("val") if c.isdigit())
    return len(set(digits)) > 1 and verhoeff_valid(digits)


def _passport(m: re.Match[str]) -> bool:
    value = m.group("val")
    digits = sum(c.isdigit() for c in value)
    return digits >= 6 and len(set(value)) > 2


RULES: list[_Rule] = [
    _Rule("us_ssn", ("ssn", "social security", "soc sec", "soc. sec", "itin", "taxpayer id"), _Lazy(
        r"(?<![A-Za-z])(?i:ssn|social[ \t]+security|soc\.?[ \t]+sec\.?|itin|taxpayer[ \t]+id(?:entification)?)"
        + _NAMED + r"(?P<val>\d{3}([- .]?)\d{2}\2\d{4})(?![\d\-])"), ("val",), _ssn_or_itin, in_chunks=False),
    _Rule("uk_nino", ("national insurance", "ni number", "ni no", "nino", "n.i. number"), _Lazy(
        r"(?<![A-Za-z])(?i:national[ \t]+insurance|ni(?=[ \t]+(?:number|no))|nino|n\.i\.(?=[ \t]+number))"
        + _NAMED + r"(?P<val>(?i:[A-Z]{2})[ \t]?\d{2}[ \t]?\d{2}[ \t]?\d{2}[ \t]?(?i:[A-D]))(?![\w])"),
          ("val",), _nino, in_chunks=False),
    _Rule("ca_sin", ("sin:", "sin ", "sin#", "social insurance"), _Lazy(
        r"(?<![A-Za-z])(?:SIN|(?i:social[ \t]+insurance))" + _NAMED
        + r"(?P<val>\d{3}([- ]?)\d{3}\2\d{3})(?![\d\-])"), ("val",), _sin, in_chunks=False),
    _Rule("jp_my_number", ("マイナンバー", "個人番号", "my number", "mynumber"), _Lazy(
        r"(?:マイナンバー|個人番号|(?-i:My Number)|(?i:mynumber))(?:カード)?" + _NAMED
        + r"(?P<val>\d{4}([- ]?)\d{4}\2\d{4})(?![\d\-])"), ("val",), _my_number, in_chunks=False),
    _Rule("in_aadhaar", ("aadhaar", "aadhar", "आधार", "uidai"), _Lazy(
        r"(?:(?i:aadhaa?r|uidai)|आधार)(?:[ \t]+(?i:card))?" + _NAMED
        + r"(?P<val>[2-9]\d{3}([- ]?)\d{4}\2\d{4})(?![\d\-])"), ("val",), _aadhaar, in_chunks=False),
    _Rule("passport_number", ("passport", "パスポート番号", "旅券番号"), _Lazy(
        r"(?:(?i:passport)[ \t]+(?i:number|no\.?|num|#)|(?i:passport)(?=[ \t]*[:=#])|パスポート番号|旅券番号)"
        r"[ \t]*(?:\b(?i:is|was)\b|[:=：#]|は)?[ \t]*[\"'`]?(?P<val>(?i:[A-Z]{0,2})\d{6,9})(?![\w])"),
          ("val",), _passport, in_chunks=False),
]
