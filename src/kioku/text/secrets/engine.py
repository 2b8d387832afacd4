"""The scan: every rule, the table and card checks and the entropy layer over one text."""

from __future__ import annotations

from kioku.text.secrets.findings import SecretFinding
from kioku.text.secrets import rules_commands, rules_japanese, rules_passwords, rules_personal, rules_tokens
from kioku.text.secrets.rule import _AnyCharBut, _Rule
from kioku.text.secrets.words import _ASCII_UPPER, _TABLE_LABELS
from kioku.text.secrets.entropy import (
    _CANDIDATE_RE, _CARD_EDGE, _CARD_PREFIX, _CARD_RE, _DATA_URI_TAILS, _FOUR_DIGITS, _benign_spans,
    _is_high_entropy, _luhn, _overlaps,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing (and re, until a pattern is used) stay out of the hook start-up path
    import re

_MAX_DEPTH = 2  # decoded text is scanned again, an encoding of an encoding at most

# Every rule, in the order the scan tries them: a span one rule takes is not taken again.
RULES: list[_Rule] = [*rules_tokens.RULES, *rules_japanese.RULES, *rules_passwords.RULES, *rules_commands.RULES,
                      *rules_personal.RULES]

# The rules' distinct anchors: those of the rules that read the whole text, apart from those of
# the token-shaped rules that read only the long chunks, and the personal identifiers' apart again
# (every one holds digits, so a text without a digit skips them).
_DIGITS = "0123456789"
_DIGIT_ANCHORS = tuple(sorted({a for r in rules_personal.RULES for a in r.anchors}))
_TEXT_ANCHORS = tuple(sorted({a for r in RULES if not r.in_chunks for a in r.anchors} - set(_DIGIT_ANCHORS)))
_CHUNK_ANCHORS = tuple(sorted({a for r in RULES if r.in_chunks for a in r.anchors}))


def _anchors_in(low: str, anchors: tuple[str, ...], digit_anchors: tuple[str, ...] = ()) -> frozenset[str]:
    """Which of ``anchors`` (and of ``digit_anchors``, when ``low`` has a digit) occur in ``low``."""
    found = {a for a in anchors if a in low}
    if digit_anchors and any(d in low for d in _DIGITS):
        found.update(a for a in digit_anchors if a in low)
    return frozenset(found)


class _Taken:
    """Non-overlapping spans kept sorted, so an overlap test is O(log n) even for texts with
    thousands of findings."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, s: int, e: int) -> bool:
        import bisect

        i = bisect.bisect_left(self.starts, e)  # spans starting before e
        return i > 0 and self.ends[i - 1] > s

    def remove_inside(self, s: int, e: int) -> None:
        """Forget the spans that lie within ``s:e``."""
        kept = [(a, b) for a, b in zip(self.starts, self.ends) if not (s <= a and b <= e)]
        self.starts = [a for a, _ in kept]
        self.ends = [b for _, b in kept]

    def add(self, s: int, e: int) -> None:
        import bisect

        i = bisect.bisect_left(self.starts, s)
        self.starts.insert(i, s)
        self.ends.insert(i, e)

_ASCII_LOWER = str.maketrans(_ASCII_UPPER, _ASCII_UPPER.lower())


def _rule_matches(rule: _Rule, text: str, low: str, lo: int, hi: int):
    """Matches of ``rule`` that start at (or, with ``back``, just before) an anchor in lo:hi.

    A rule that walks back over any character but some (:class:`_AnyCharBut`) is matched once per
    anchor, ending at the anchor's end, from where the walk stopped: the words before the value
    are its pattern's to skip, and the clause may hold several anchors."""
    if not rule.anchors:  # short literal-led pattern: a plain scan is cheap enough
        yield from rule.pattern.finditer(text, lo, hi)
        return
    seen: set[int] = set()
    for anchor in rule.anchors:
        last_end = -1
        i = low.find(anchor, lo, hi)
        while i != -1:
            start = i
            if isinstance(rule.back, _AnyCharBut):
                m = rule.pattern.fullmatch(text, max(rule.back.walk_start(text, i, rule.reach), last_end),
                                           i + len(anchor))
                if m is not None:
                    last_end = m.end()
                    yield m
                i = low.find(anchor, i + 1, hi)
                continue
            if rule.back:
                while start > 0 and i - start < rule.reach and text[start - 1] in rule.back:
                    start -= 1
            if start not in seen and start >= last_end:
                seen.add(start)
                m = rule.pattern.match(text, start)
                if m is not None:
                    last_end = m.end()  # anchors inside a match are not tried again
                    yield m
            i = low.find(anchor, i + 1, hi)


def _span(rule: _Rule, m: re.Match[str]) -> tuple[int, int]:
    for name in rule.group:
        if m.group(name) is not None:
            return m.span(name)
    return m.span()


def find_secrets(text: str) -> list[SecretFinding]:
    """All secrets in ``text``, non-overlapping, sorted by start offset. Lookalike characters
    (full-width letters and digits, compatibility forms) are matched as their NFKC form, and
    Markdown emphasis markers are read past (``**Password:** x``); offsets always refer to
    ``text``."""
    if not text:
        return []
    view, origin = text, None
    if not text.isascii() or "*" in text:  # the views are built only for such texts
        from kioku.text.secrets.normalise import _nfkc_with_offsets, _through_segments, _without_emphasis
    if not text.isascii():
        folded = _nfkc_with_offsets(text)
        if folded is not None:
            view, origin = folded
    segments = None
    if "*" in view:
        plain = _without_emphasis(view)
        if plain is not None:
            view, segments = plain
    if origin is None and segments is None:
        return _find_in_normalised(text)

    def in_text(offset: int) -> int:
        if segments is not None:
            offset = _through_segments(segments, offset)
        return origin[offset] if origin is not None else offset

    return [SecretFinding(f.kind, in_text(f.start), in_text(f.end - 1) + 1) for f in _find_in_normalised(view)]


# Whitespace-free chunks this long are read by the token-shaped rules (joined: every full token
# is longer, a provider's prefix and the first part of a token are not), and from
# ``_SHORT_CHUNK`` on by the encoded, grouped and entropy layers.
_TOKEN_CHUNK = 12
_SHORT_CHUNK = 16


def _find_in_normalised(text: str, depth: int = 0) -> list[SecretFinding]:
    """The findings in ``text`` (already NFKC-folded); ``depth`` counts the decodings that led here
    (:mod:`.disguised` reads decoded text at most ``MAX_DEPTH`` deep)."""
    if not text:
        return []
    # Same-length lower-casing so anchor offsets are text offsets ("İ".lower() grows).
    low = text.lower()
    if len(low) != len(text):
        low = text.translate(_ASCII_LOWER)
    found: list[SecretFinding] = []
    taken = _Taken()
    # Whitespace-delimited chunks of _TOKEN_CHUNK characters or more, joined by "\n" into one short
    # string so token-shaped rules scan it once: (offset in joined, offset in text) pairs map
    # positions back.
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    colon_chunks: list[tuple[int, int]] = []  # with four colons or more: a .pgpass entry's shape
    short_chunks: list[tuple[int, int]] = []  # of _SHORT_CHUNK characters or more
    pos = jpos = 0
    for chunk in text.split():
        if len(chunk) < _TOKEN_CHUNK:
            continue
        c0 = text.find(chunk, pos)
        pos = c0 + len(chunk)
        starts.append((jpos, c0))
        parts.append(chunk)
        jpos += len(chunk) + 1
        if len(chunk) >= _SHORT_CHUNK:
            short_chunks.append((c0, pos))
        if chunk.count(":") >= 4:
            colon_chunks.append((c0, pos))
    joined = "\n".join(parts)
    jlow = joined.lower() if len(joined.lower()) == len(joined) else joined.translate(_ASCII_LOWER)
    has_digits = any(d in text for d in "0123456789")  # substring scans: no regex for text without digits
    # each distinct anchor is looked for once per text: a rule none of whose anchors occurs is skipped
    present = {False: _anchors_in(low, _TEXT_ANCHORS, _DIGIT_ANCHORS),
               True: _anchors_in(jlow, _CHUNK_ANCHORS) if joined else frozenset()}
    for rule in RULES:
        src, src_low = (joined, jlow) if rule.in_chunks else (text, low)
        if not src or (rule.anchors and present[rule.in_chunks].isdisjoint(rule.anchors)):
            continue
        for m in _rule_matches(rule, src, src_low, 0, len(src)):
            if rule.check is not None and not rule.check(m):
                continue
            s, e = _span(rule, m)
            if rule.in_chunks:
                import bisect

                j0, t0 = starts[bisect.bisect_right(starts, (s, len(text))) - 1]
                s, e = s - j0 + t0, e - j0 + t0
            if e > s and not taken.overlaps(s, e):
                taken.add(s, e)
                found.append(SecretFinding(rule.kind, s, e))
    if colon_chunks or "|" in text:  # .pgpass lines and Markdown tables are read only where they can be
        from kioku.text.secrets.tables import _pgpass_passwords, _table_passwords
    for s, e in _pgpass_passwords(text, colon_chunks) if colon_chunks else ():
        if not taken.overlaps(s, e):
            taken.add(s, e)
            found.append(SecretFinding("password", s, e))
    if "|" in text and any(label in low for label in _TABLE_LABELS):
        for s, e in _table_passwords(text, low):
            if not taken.overlaps(s, e):
                taken.add(s, e)
                found.append(SecretFinding("password", s, e))
    for m in (_CARD_RE.finditer(text) if has_digits and _FOUR_DIGITS.search(text) else ()):
        s, e = m.span()
        if (s and text[s - 1] in _CARD_EDGE) or (e < len(text) and text[e] in _CARD_EDGE):
            continue  # part of a longer number, a date range or an identifier
        digits = m.group(0).replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _luhn(digits) \
                and len(set(digits)) > 1 and not taken.overlaps(s, e):
            taken.add(s, e)
            found.append(SecretFinding("credit_card", s, e))
    for m in (rules_personal.SSN_DASHED.finditer(text) if has_digits and "-" in text else ()):
        s, e = m.span()
        if rules_personal.bare_ssn(m.group(0)) and not taken.overlaps(s, e):
            taken.add(s, e)
            found.append(SecretFinding("us_ssn", s, e))
    benign: list[tuple[int, int]] = []  # encoded runs that decode to harmless text
    if depth < _MAX_DEPTH and (short_chunks or has_digits):
        found = _disguised(text, short_chunks, has_digits, depth, found, taken, benign)
    # Generic entropy layer, also only inside the chunks.
    url_spans: list[tuple[int, int]] | None = None
    for c0, c1 in short_chunks:
        for m in _CANDIDATE_RE.finditer(text, c0, c1):
            s, e = m.span()
            if taken.overlaps(s, e) or not _is_high_entropy(m.group(0)) or _overlaps(benign, s, e):
                continue
            if text.endswith(_DATA_URI_TAILS, max(0, s - 8), s):
                continue  # inline data (data:image/png;base64,...) is content, not a key
            if url_spans is None:
                url_spans = _benign_spans(text, low)
            if _overlaps(url_spans, s, e):
                continue
            taken.add(s, e)
            found.append(SecretFinding("high_entropy", s, e))
    found.sort(key=lambda f: f.start)
    return found


def _disguised(text: str, chunks: list[tuple[int, int]], has_digits: bool, depth: int,
               found: list[SecretFinding], taken: _Taken, benign: list[tuple[int, int]]) -> list[SecretFinding]:
    """``found`` with the secrets encoded or written in groups (:mod:`.disguised`) added. An encoded
    run a rule already took is left as it is; one that decodes to harmless text is added to
    ``benign``. A token in groups takes the place of what the rules found of it (its first group
    after "token:"), so no group of it is left."""
    from kioku.text.secrets import disguised

    for s, e, decoded in disguised.encoded_runs(text, chunks) if chunks else ():
        if taken.overlaps(s, e):
            continue
        inner = _find_in_normalised(decoded, depth + 1)
        kind = inner[0].kind if inner else disguised.names_a_secret(text, s)
        if kind:
            taken.add(s, e)
            found.append(SecretFinding(kind, s, e))
        else:
            benign.append((s, e))
    if depth > 0 or not has_digits:
        return found
    for groups in disguised.grouped_runs(text, chunks):
        glued = "".join(text[a:b] for a, b in groups)
        bounds, at = [], 0
        for a, b in groups:
            bounds.append((at, at + b - a))
            at += b - a
        for f in _find_in_normalised(glued, depth + 1):
            touched = [i for i, (a, b) in enumerate(bounds) if a < f.end and f.start < b]
            if len(touched) < 2:
                continue  # a secret only once the groups are glued together, or none
            s, e = groups[touched[0]][0], groups[touched[-1]][1]
            inside = [g for g in found if s <= g.start and g.end <= e]
            if any(g.start < e and s < g.end for g in found if g not in inside):
                continue  # it crosses a finding it does not hold: that one stays
            found = [g for g in found if g not in inside]
            taken.remove_inside(s, e)
            taken.add(s, e)
            found.append(SecretFinding(f.kind, s, e))
    return found


def contains_secret(text: str) -> bool:
    return bool(find_secrets(text))


def redact(text: str) -> str:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``."""
    findings = find_secrets(text)
    return _redact_findings(text, findings) if findings else text


def _redact_findings(text: str, findings: list[SecretFinding]) -> str:
    """``text`` with these findings (sorted by start; one overlapping an earlier one is skipped)
    replaced by ``[REDACTED:<kind>]``."""
    out: list[str] = []
    pos = 0
    for f in findings:
        if f.start < pos:
            continue
        out.append(text[pos:f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)
