"""Views of a text the rules read: NFKC-folded lookalikes, ASCII quotes, Markdown emphasis removed."""

from __future__ import annotations

from kioku.infra import lazyre


# Typographic quotes, which editors and chat apps put in place of typed ones (“…”, ‘…’), read as
# the ASCII quotes the rules know; NFKC keeps them as they are.
_QUOTE_FOLD = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
               "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"'}


def _nfkc_with_offsets(text: str) -> tuple[str, list[int]] | None:
    """``text`` NFKC-normalised character by character (full-width ``ｓｋ＿ｌｉｖｅ`` becomes
    ``sk_live``), typographic quotes as ASCII ones (``“hunter22”`` becomes ``"hunter22"``), and,
    for each normalised character, the offset of the original character it came from; None when
    normalising changes nothing."""
    import unicodedata

    if unicodedata.is_normalized("NFKC", text) and not any(q in text for q in _QUOTE_FOLD):
        return None
    out: list[str] = []
    origin: list[int] = []
    pos = 0
    # only the characters that normalising changes are visited one by one (a MEMORY.md of 200
    # lines holds a few thousand characters, nearly all ASCII, and one "…" makes it unnormalised)
    for m in lazyre.NON_ASCII.finditer(text):
        i = m.start()
        folded = _QUOTE_FOLD.get(text[i]) or unicodedata.normalize("NFKC", text[i])
        if folded == text[i]:
            continue
        out.append(text[pos:i])
        origin.extend(range(pos, i))
        out.append(folded)
        origin.extend([i] * len(folded))
        pos = i + 1
    out.append(text[pos:])
    origin.extend(range(pos, len(text)))
    origin.append(len(text))
    return "".join(out), origin

# Markdown emphasis round a word or phrase on one line: ``**Password:**``, ``*hunter22*``,
# ``***x***``: two runs of one to three "*", the same length, with no other "*" between. The
# markers must not touch an ASCII letter or digit outside (``2*x*y``, ``a*b*`` are arithmetic and
# globs), but may touch kana and kanji (``パスワードは**x**です``, where Markdown reads them as
# emphasis too). What they enclose must hold a letter or a digit, so ``*:*:*`` (a .pgpass
# wildcard) is left alone. Found with ``str.find``, not a pattern: the hooks' recall reads
# Markdown, and a pattern would load ``re`` for every "*".
_OUTSIDE_EMPHASIS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_*")

_BEFORE_EMPHASIS = frozenset("([{\"'>|:-")


def _star_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of every run of "*" in ``text``."""
    runs = []
    i = text.find("*")
    while i != -1:
        j = i + 1
        while j < len(text) and text[j] == "*":
            j += 1
        runs.append((i, j))
        i = text.find("*", j)
    return runs


def _emphasis_pair(text: str, opening: tuple[int, int], closing: tuple[int, int]) -> bool:
    """Whether two runs of "*" open and close one emphasis (see :data:`_OUTSIDE_EMPHASIS`)."""
    (a, b), (c, d) = opening, closing
    if b - a > 3 or d - c != b - a or c == b or "\n" in text[b:c]:
        return False
    if a > 0 and text[a - 1].isascii() and not text[a - 1].isspace() and text[a - 1] not in _BEFORE_EMPHASIS:
        return False  # "Xk9!*mP2*" is a value with stars in it, "2*x*y" arithmetic
    if d < len(text) and text[d] in _OUTSIDE_EMPHASIS:
        return False
    inner = text[b:c]
    return (not inner[0].isspace() and not inner[-1].isspace() and inner[-1] != "\\"
            and any(ch.isalnum() for ch in inner))


def _without_emphasis(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``text`` with its Markdown emphasis markers taken out (``- **password**: x`` reads as
    ``- password: x``, so the rules see the label next to its value) and the segments kept, as
    (offset in the result, offset in ``text``) of each segment's start (:func:`_through_segments`
    maps an offset back); None when there is no emphasis."""
    runs = _star_runs(text)
    pieces: list[str] = []
    segments: list[tuple[int, int]] = []
    length = pos = k = 0
    while k + 1 < len(runs):
        if not _emphasis_pair(text, runs[k], runs[k + 1]):
            k += 1
            continue
        (a, b), (c, d) = runs[k], runs[k + 1]
        for start, end in ((pos, a), (b, c)):
            segments.append((length, start))
            pieces.append(text[start:end])
            length += end - start
        pos = d
        k += 2
    if not pieces:
        return None
    segments.append((length, pos))
    pieces.append(text[pos:])
    return "".join(pieces), segments


def _through_segments(segments: list[tuple[int, int]], offset: int) -> int:
    """The offset in the original text of ``offset`` in the text :func:`_without_emphasis` made."""
    import bisect

    i = bisect.bisect_right(segments, (offset, float("inf"))) - 1
    start, source = segments[i]
    return source + offset - start
