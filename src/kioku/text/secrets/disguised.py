"""Secrets written so that no rule sees them whole: encoded, or split into groups.

- Encoded: a run of hex digits, of base64 (standard or URL-safe) or of percent-escapes is decoded;
  when the decoded text is printable, the scan reads it (one level deeper, at most
  ``engine._MAX_DEPTH``), and the encoded run is a secret when the decoded one holds a secret, or when
  the words just before it name one ("password", "PIN", "secret" …). Decoded text without a secret
  is *harmless* (``SGVsbG8sIHdvcmxkIQ==`` in a code sample), so the entropy layer leaves it alone;
  hashes, UUIDs and binary data decode to unprintable bytes and are left to the other layers.
- Grouped: a token written in groups of equal length, split by spaces, dashes or dots
  (``ghp_Zq9X yW8v U7tS …``, ``Zq9X-yW8v-U7tS-…``), is glued back together and scanned; the run is a
  secret when a finding in the glued token crosses a group boundary (a secret only whole).

Both look only inside long enough runs of token characters, so ordinary prose costs one pattern
search per text that has any (a digit and a space or separator for groups, 16 characters without
whitespace for encodings).
"""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy

MIN_DECODED = 6  # decoded text shorter than this names nothing worth a scan

# Runs inside one whitespace-free chunk (the engine hands over the chunks of >= 16 characters).
_HEX_RUN = _Lazy(r"(?<![0-9A-Za-z])(?:0x)?(?P<hex>(?:[0-9a-fA-F]{2}){8,})(?![0-9A-Za-z])"
                 r"|(?P<esc>(?:\\x[0-9a-fA-F]{2}){6,})")
_B64_RUN = _Lazy(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{12,}={0,2}(?![A-Za-z0-9+/_=\-])")
_PCT_RUN = _Lazy(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!*'()+\-])*%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!*'()+\-])*")
# Spaced groups: three or more runs of token characters, one blank between each; the groups of a
# dashed or dotted chunk are split below, not by a pattern.
_SPACED = _Lazy(r"(?<![A-Za-z0-9_+/=])[A-Za-z0-9_+/=\-]{2,24}(?:[ \t][A-Za-z0-9_+/=]{2,12}){2,40}(?![A-Za-z0-9_+/=])")
# What names a secret just before an encoded value ("the password base64 is …", "PIN: …")
# (the word, at most three words naming what it is or how it is written, and "is", ":" or "=")
_NAMES_A_SECRET = _Lazy(r"(?i:(?<![A-Za-z])(?P<word>password|passwd|passphrase|passcode|pin|secret|pwd|pw|token|"
                        r"api[ _-]?key|パスワード|暗証番号|秘密|トークン)(?![A-Za-z]))"
                        r"(?:[ \t_-]+[\w()-]+){0,3}?[ \t]*(?:[:=：]|\b(?i:is|was)\b|は)[ \t]*[\"'`(]?$")


def _printable(decoded: str, minimum: int = MIN_DECODED) -> bool:
    return len(decoded) >= minimum and all(c.isprintable() or c in "\n\t" for c in decoded)


def _from_hex(run: str, minimum: int = MIN_DECODED) -> str | None:
    if run.startswith("\\x"):
        run = run.replace("\\x", "")
    try:
        decoded = bytes.fromhex(run).decode("utf-8")
    except ValueError:
        return None
    return decoded if _printable(decoded, minimum) else None


def _from_base64(run: str, minimum: int = MIN_DECODED) -> str | None:
    core = run.rstrip("=")
    if len(core) < 4 or len(core) % 4 == 1 or core.isdigit() or core.isalpha() and (core.islower() or core.isupper()):
        return None  # a word, a number: base64 only by accident
    import binascii

    urlsafe = "-" in core or "_" in core
    if urlsafe and ("+" in core or "/" in core):
        return None
    data = core.replace("-", "+").replace("_", "/")
    data += "=" * (-len(data) % 4)
    try:
        decoded = binascii.a2b_base64(data.encode("ascii"), strict_mode=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if _printable(decoded, minimum) else None


def _from_percent(run: str, minimum: int = MIN_DECODED) -> str | None:
    out = bytearray()
    i = 0
    while i < len(run):
        pair = run[i + 1:i + 3]
        if run[i] == "%" and len(pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in pair):
            out.append(int(run[i + 1:i + 3], 16))
            i += 3
        else:
            out.extend(run[i].encode("utf-8"))
            i += 1
    try:
        decoded = out.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return decoded if decoded != run and _printable(decoded, minimum) else None


def encoded_runs(text: str, chunks: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, decoded text) of every hex, base64 or percent-encoded run in these chunks of
    ``text`` that decodes to printable text. Only chunks that can hold one are searched: hex of
    text has a digit in every byte, base64 of text mixes cases, percent-escapes have a "%"."""
    found: list[tuple[int, int, str]] = []
    pct = hexes = b64 = None
    for c0, c1 in chunks:
        chunk = text[c0:c1]
        if "%" in chunk:
            pct = pct or _PCT_RUN.compiled()
            for m in pct.finditer(text, c0, c1):
                decoded = _from_percent(m.group(0))
                if decoded is not None:
                    found.append((m.start(), m.end(), decoded))
        digits = any(c in chunk for c in "0123456789")
        if digits:
            hexes = hexes or _HEX_RUN.compiled()
            for m in hexes.finditer(text, c0, c1):
                decoded = _from_hex(m.group("hex") or m.group("esc"))
                if decoded is not None:
                    found.append((m.start(), m.end(), decoded))
        if chunk.lower() == chunk or chunk.upper() == chunk:
            continue
        b64 = b64 or _B64_RUN.compiled()
        for m in b64.finditer(text, c0, c1):
            if m.end() - m.start() < 16 or any(s <= m.start() < e for s, e, _ in found):
                continue
            decoded = _from_base64(m.group(0))
            if decoded is not None:
                found.append((m.start(), m.end(), decoded))
    return found


def names_a_secret(text: str, start: int) -> str:
    """The kind of secret the words just before ``start`` (on its line) name: "password" for a
    password, passphrase, passcode or PIN, "secret_assignment" for a secret, token or key; "" when
    they name none."""
    line = text.rfind("\n", 0, start) + 1
    m = _NAMES_A_SECRET.search(text, max(line, start - 64), start)
    if m is None:
        return ""
    word = m.group("word").lower()
    return "secret_assignment" if word.startswith(("secret", "token", "api", "秘密", "トークン")) else "password"


def decode_value(value: str, minimum: int = MIN_DECODED) -> str | None:
    """``value`` decoded from percent-escapes, hex or base64 when that gives printable text of at
    least ``minimum`` characters (the first that does, in that order); None otherwise."""
    for decode in (_from_percent, _from_hex, _from_base64):
        decoded = decode(value, minimum)
        if decoded is not None:
            return decoded
    return None


def _has_repeat(lengths: list[int]) -> bool:
    """Whether three groups in a row have one length of 3 to 12 (the cheap test before :func:`_window`)."""
    return any(lengths[i] == lengths[i + 1] == lengths[i + 2] and 3 <= lengths[i] <= 12
               for i in range(len(lengths) - 2))


def _window(lengths: list[int], words: list[bool]) -> list[tuple[int, int]]:
    """The windows ``[first, last)`` of groups that read as one token written in groups of one
    length: three or more groups of 3 to 12 characters alike, with the group before them when it is
    longer but not a plain word (a prefix glued to the first group, ``ghp_Zq9X``) and the group
    after them when it is shorter and not a plain word (the rest of the token)."""
    windows: list[tuple[int, int]] = []
    i, n = 0, len(lengths)
    while i < n:
        j = i
        while j + 1 < n and lengths[j + 1] == lengths[i]:
            j += 1
        size = lengths[i]
        if j - i >= 2 and 3 <= size <= 12:
            first, last = i, j + 1
            if first > 0 and size < lengths[first - 1] <= size + 12 and not words[first - 1]:
                first -= 1
            if last < n and lengths[last] < size and not words[last]:
                last += 1
            if last - first >= 3:
                windows.append((first, last))
        i = j + 1
    return windows


def grouped_runs(text: str, chunks: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The groups (spans in ``text``) of every run that reads as one token written in groups:
    split by blanks anywhere, or by "-" or "." inside these whitespace-free chunks."""
    found: list[list[tuple[int, int]]] = []
    if " " in text or "\t" in text:
        for m in _SPACED.finditer(text):
            run = m.group(0)
            groups = run.split()
            if not _has_repeat([len(g) for g in groups]) or not any(c.isdigit() for c in run):
                continue  # prose: no three groups of one length, or no digit at all
            spans, pos = [], m.start()
            for group in groups:
                pos = text.find(group, pos)
                spans.append((pos, pos + len(group)))
                pos += len(group)
            found += _windows_of(text, spans)
    for c0, c1 in chunks:
        if not any(c in text[c0:c1] for c in "0123456789"):
            continue  # a token in groups has a digit in most of them
        for sep in "-.":
            if text.count(sep, c0, c1) < 2:
                continue
            spans, pos = [], c0
            for group in text[c0:c1].split(sep):
                spans.append((pos, pos + len(group)))
                pos += len(group) + 1
            inner = [(a, b) for a, b in spans if b > a]
            if len(inner) == len(spans):
                found += _windows_of(text, spans)
    return found


def _mixed(group: str) -> bool:
    """A group of random characters rather than a word: a digit, or a capital after its first
    character ("yW8v", "qP4o"; not "the", "Sat")."""
    return any(c.isdigit() for c in group) or any(c.isupper() for c in group[1:])


def _windows_of(text: str, spans: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    lengths = [b - a for a, b in spans]
    words = [text[a:b].isalpha() and text[a:b].islower() for a, b in spans]
    out = []
    for first, last in _window(lengths, words):
        chosen = spans[first:last]
        if 3 * sum(1 for a, b in chosen if _mixed(text[a:b])) >= 2 * len(chosen) and all(
                text[a:b].replace("_", "").replace("+", "").replace("/", "").replace("=", "").isalnum()
                and text[a:b].isascii() for a, b in chosen):
            out.append(chosen)
    return out
