"""The generic layer: random-looking tokens, payment card numbers, and the spans where such data is harmless."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.words import _ASCII_UPPER, _HEX_RE, _I, _PIECE_SPLIT_RE
from kioku.text.secrets.values import _avg_run


_CARD_RE = _Lazy(r"\d\d\d\d(?:[ \-]?\d){9,15}")

_FOUR_DIGITS = _Lazy(r"\d\d\d\d")

_CARD_EDGE = frozenset("0123456789-_./:" + _ASCII_UPPER + _ASCII_UPPER.lower())

_CARD_PREFIX = _Lazy(r"^(?:4|5[1-5]|2[2-7]|3[47]|6011|65|35)")

_URL_RE = _Lazy(r"\b[a-z][a-z0-9+.\-]*://[^\s<>\"'`]+", _I)

# after "=" too: NAME=<token> is an assignment, whatever the name
_CANDIDATE_RE = _Lazy(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{16,}={0,2}(?![A-Za-z0-9+/_=\-])")

_DIGIT_RE = _Lazy(r"\d")

_SSH_PUBKEY_RE = _Lazy(
    r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[A-Za-z0-9+/]+=*")

_PEM_PUBLIC_RE = _Lazy(
    r"-----BEGIN ((?:[A-Z0-9]+ )*(?:PUBLIC KEY|CERTIFICATE(?: REQUEST)?))-----[\s\S]*?-----END \1-----")

_DATA_URI_TAILS = ("base64,", "base64,/")

_SRI_RE = _Lazy(r"sha\d+-")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _entropy(s: str) -> float:
    n = len(s)
    import math  # bisect, math and collections are imported on first need: clean text never needs them
    from collections import Counter

    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


# A token of 16 to 19 characters (the second half of a key, a short secret) counts only when
# it looks random beyond doubt: every kind of character, short case and digit runs, and nearly
# every character different.
_SHORT_TOKEN = 16
_LONG_TOKEN = 20


def _is_high_entropy(tok: str) -> bool:
    core = tok.rstrip("=")
    if len(core) < _LONG_TOKEN:
        return _is_short_random(core)
    if _HEX_RE.match(core):
        return False  # pure hex: hashes / SHAs / UUIDs are fine in prose (see docstring)
    if _SRI_RE.match(core):
        return False  # subresource-integrity digests
    if core.upper() == core or core.lower() == core or not _DIGIT_RE.search(core):
        return False  # needs upper, lower and digits
    # Random data has at least one long separator-free piece that is fragmented into short
    # case/digit runs; names like "2026-03-29-Issues-Triage" or "all-MiniLM-L6-v2" do not.
    if not any(len(piece) >= 12 and _avg_run(piece) < 3.0 and piece.upper() != piece
               for piece in _PIECE_SPLIT_RE.split(core)):
        return False
    import math

    threshold = min(4.0, math.log2(len(core)) - 0.7)
    return _entropy(core) >= threshold


def _is_short_random(core: str) -> bool:
    """A token of :data:`_SHORT_TOKEN` to :data:`_LONG_TOKEN` characters that can only be random:
    upper case, lower case and digits in one run of letters and digits, short case and digit runs
    (names make longer ones: "getUserById2Fast"), less than half of it in word-like runs of three
    letters or more, and few characters repeated."""
    if len(core) < _SHORT_TOKEN or not core.isascii() or not core.isalnum():
        return False
    if core.upper() == core or core.lower() == core or not _DIGIT_RE.search(core):
        return False
    if _avg_run(core) >= 2.8 or len(set(core)) < len(core) - 6:
        return False
    return sum(map(len, _WORDLIKE_RUN.findall(core))) < 0.45 * len(core)


_WORDLIKE_RUN = _Lazy(r"[a-z]{3,}|[A-Z][a-z]{2,}")


def _benign_spans(text: str, low: str) -> list[tuple[int, int]]:
    """Where high-entropy data is expected and harmless: URLs without credentials, SSH public
    keys, PEM public keys and certificates."""
    spans = [u.span() for u in _URL_RE.finditer(text)] if "://" in text else []
    if "aaaa" in low:
        spans += [m.span() for m in _SSH_PUBKEY_RE.finditer(text)]
    if "-----begin" in low:
        spans += [m.span() for m in _PEM_PUBLIC_RE.finditer(text)]
    return spans


def _overlaps(spans: list[tuple[int, int]], s: int, e: int) -> bool:
    return any(s < b and a < e for a, b in spans)
