"""kioku.text.secrets.disguised: secrets encoded or split into groups, partial tokens, passphrases
after "password is" and encoded values after a secret's name (issue 47: each of these was saved).

Samples are built from deterministic pseudo-random characters, so the file holds no live-looking
credential, yet each has the real shape of the token it stands for.
"""

from __future__ import annotations

import base64
import random
import string

import pytest
from timing import growth

from kioku.infra.errors import SecretRejected
from kioku.text.secrets import contains_secret, ensure_storable, find_secrets, redact

B62 = string.ascii_letters + string.digits


def rnd(n: int, seed: int) -> str:
    r = random.Random(f"disguised:{seed}:{n}")
    return "".join(r.choice(B62) for _ in range(n))


TOKEN = "ghp_" + rnd(36, 1)  # a GitHub personal access token's shape


def groups(text: str, size: int, sep: str) -> str:
    return sep.join(text[i:i + size] for i in range(0, len(text), size))


def leaked(text: str, secret: str, piece: int = 6) -> list[str]:
    """Pieces of ``secret`` (``piece`` characters or more, outside any placeholder) left in ``redact(text)``."""
    out = redact(text).replace(" ", "").replace("-", "").replace(".", "")
    return [secret[i:i + piece] for i in range(0, len(secret) - piece + 1) if secret[i:i + piece] in out]


@pytest.mark.parametrize("text", [
    "gh auth login --with-token <<< '" + groups(TOKEN, 4, " ") + "'",       # spaced groups
    "gh auth login --with-token <<< '" + groups(TOKEN[4:], 4, " ") + "' (prefix ghp_)",
    "token: " + groups(TOKEN, 4, " "),                                       # the rules see only the first group
    "token " + groups(TOKEN, 4, "-"),                                        # dashes
    "token " + groups(TOKEN, 5, "."),                                        # dots
    "export GH_TOKEN=" + groups(TOKEN, 8, "-"),
])
def test_a_token_split_into_groups_is_removed_whole(text: str) -> None:
    assert contains_secret(text)
    assert leaked(text, TOKEN) == [], redact(text)


@pytest.mark.parametrize("text", [
    "my token hex is " + TOKEN.encode().hex(),
    "hex: 0x" + TOKEN.encode().hex(),
    "escaped: " + "".join(f"\\x{b:02x}" for b in TOKEN.encode()),
    "t " + "".join(f"%{b:02X}" for b in TOKEN.encode()),                     # every character percent-encoded
    "export T=" + base64.b64encode(TOKEN.encode()).decode(),
    "T=" + base64.urlsafe_b64encode(TOKEN.encode()).decode().rstrip("="),
    "nested " + base64.b64encode(TOKEN.encode().hex().encode()).decode(),     # base64 of hex
])
def test_an_encoded_token_is_found_with_its_kind(text: str) -> None:
    kinds = [f.kind for f in find_secrets(text)]
    assert kinds == ["github_token"], kinds


@pytest.mark.parametrize("text", [
    "it starts with " + TOKEN[:16],                  # the first part, with its provider's prefix
    "and ends with " + TOKEN[20:],                   # only the second half: 20 random characters
    "sk-ant-" + rnd(10, 2) + " was the start of it",
    "AKIA" + "7QX2M4PZ9K" + " then the rest",
])
def test_a_partial_token_is_a_secret(text: str) -> None:
    assert contains_secret(text), text


def test_short_halves_of_tokens_are_mostly_caught_and_long_ones_nearly_always() -> None:
    """16 to 19 random characters count only when they can be nothing else (about 3 in 4 pass);
    from 20 characters on the entropy layer takes nearly all."""
    for length, rate in ((16, 0.7), (18, 0.7), (20, 0.93), (24, 0.93)):
        tokens = [rnd(length, 100 + i) for i in range(300)]
        caught = sum(1 for t in tokens if contains_secret(f"the rest of it is {t} ok"))
        assert caught / len(tokens) >= rate, (length, caught)


@pytest.mark.parametrize("text,secret", [
    ("the wifi password is correct horse battery staple", "correct horse battery staple"),
    ("The wifi password is: purple monkey dishwasher lamp.", "purple monkey dishwasher lamp"),
    ("guest network password: velvet orbit cactus lantern", "velvet orbit cactus lantern"),
    ("the db password base64 is " + base64.b64encode(b"Hunter2!prod").decode(),
     base64.b64encode(b"Hunter2!prod").decode()),
    ("the base64 of the password is " + base64.b64encode(b"Tr0ub4dor&3").decode(),
     base64.b64encode(b"Tr0ub4dor&3").decode()),
    ("PIN: " + base64.b64encode(b"4821").decode(), base64.b64encode(b"4821").decode()),
    ("password hex: " + b"s3cr3t!pass".hex(), b"s3cr3t!pass".hex()),
    ("secret = " + "%73%33%63%72%33%74%21", "%73%33%63%72%33%74%21"),
    ("passcode (url-encoded): " + "p%40ss%2Fw0rd", "p%40ss%2Fw0rd"),
])
def test_plain_language_and_encoded_passwords_are_redacted(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and "[REDACTED:" in out, out
    with pytest.raises(SecretRejected):
        ensure_storable(text)


@pytest.mark.parametrize("text", [
    "the password is never shared with anyone",
    "The password is generated automatically each deploy",
    "the password is case sensitive obviously",
    "the password is the same for every environment",
    "password: required for all admin accounts",
    "the wifi password is written on the router",
    "the new password policy is much stricter now",
    "PIN: required for card payments",
    "secret: true",
    "the password base64 is stored in the vault",
    'assert base64.b64encode(b"kioku memory test").decode() == "a2lva3UgbWVtb3J5IHRlc3Q="',
    "the hex 48656c6c6f20576f726c64 reads Hello World",
    "curl 'https://example.com/search?q=correct%20horse%20battery%20staple'",
    "ghp_your_token_here", "sk-ant-xxxxxxxxxxxxxxxx", "AKIAXXXXXXXXXXXXXXXX is a placeholder",
    "the uuid 550e8400-e29b-41d4-a716-446655440000 and the sha e83c5163316f89bfbde7d9ab23ca2e25604af290",
    "see ticket ABCD-1234-EFGH-5678 and room 12 14 16 18",
    "the steps are 1a2b 3c4d 5e6f 7g8h in the lab sheet",
])
def test_lookalikes_of_the_new_forms_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == [], [(f.kind, text[f.start:f.end]) for f in find_secrets(text)]


def test_base64_of_harmless_text_is_no_longer_taken_for_a_key() -> None:
    """A long base64 string of plain words was a high-entropy finding; decoded, it is prose."""
    sample = base64.b64encode(b"Hello, world! This is a test of the encoder").decode()
    assert find_secrets(f'expected = "{sample}"') == []


# Hostile input: 50 KB of near-matches of each new form costs about four times what 12.5 KB does.
@pytest.mark.parametrize("unit", [
    "ghp_ ", "Zq9X ", "a1B2-", "Zq9X.", "%41", "%4", "4142", "SGVsbG8=", "QUJD", "\\x41",
    "password is correct horse ", "password base64 is ", "PIN: ", "secret = %",
    "SSN 536-22-", "536-22-8190-", "passport number ", "マイナンバー ", "Aadhaar 2345 ", "NI number AB ",
    "sk-ant-", "AKIA7QX2 ",
])
def test_hostile_repetitions_of_the_new_forms_stay_linear(unit: str) -> None:
    ratio = growth(redact, lambda size: unit * (size // len(unit)), 12_500)
    assert ratio < 10, ratio
