"""Small text helpers shared by the memory modules (standard library only).

- ``normalize``: NFKC, lower case, punctuation folded to spaces, whitespace collapsed; two
  memories with the same normalised text are the same memory.
- ``token_set``: the tokens used for near-duplicate detection. Latin words are kept whole
  (negations such as "not"/"never" are *kept*, unlike the retrieval tokenizer, because
  "always X" and "never X" must not look like duplicates); Japanese runs become character
  bigrams so similarity works without spaces.
- ``jaccard``: set overlap in [0, 1].
- ``summarize``: one line of at most ``limit`` characters, cut at a word boundary (or at a
  character for Japanese) with an ellipsis; used for the MEMORY.md index.
- ``time_key``: a creation time as a number, for sorting entries oldest first; the texts
  cannot be compared as strings (``2026-12-01T09:00:00+09:00`` is before
  ``2026-12-01T01:00:00Z``, a date alone is midnight UTC).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kioku.infra.lazyre import LazyPattern

# Cheap patterns only: compiling large Unicode classes costs milliseconds, and this module is
# imported on the hook save path. CJK characters are recognised by code point instead.
_PUNCT = re.compile(r"[^\w\s']+")
_SPACES = re.compile(r"\s+")

# Only the glue words; negations and quantifiers stay because they change meaning.
_STOP = frozenset("a an the to of and or for in on at is are be it this that with as by".split())


def is_cjk(ch: str) -> bool:
    return "\u3005" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


@lru_cache(maxsize=1024)  # a new memory's text is normalised once per comparison
def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    text = _SPACES.sub(" ", _PUNCT.sub(" ", text)).strip()
    if not text.isascii() and " " in text:
        # Japanese sets no space between words: "今は pnpm を使う" and "今はpnpmを使う" are one text
        text = _CJK_SPACE.sub("", text)
    return text


# compiled on first use: its character classes cost ~4 ms to compile, paid by every save otherwise
_CJK_SPACE = LazyPattern(r"(?<=[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]) | (?=[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f])")


def _runs(word: str) -> list[tuple[bool, str]]:
    """Split a word into (is_cjk, run) pieces: "bunを使う" → [(False, "bun"), (True, "を使う")]."""
    runs: list[tuple[bool, str]] = []
    for ch in word:
        cjk = is_cjk(ch)
        if runs and runs[-1][0] == cjk:
            runs[-1] = (cjk, runs[-1][1] + ch)
        else:
            runs.append((cjk, ch))
    return runs


def token_set(text: str) -> set[str]:
    tokens: set[str] = set()
    for word in normalize(text).split(" "):
        if not word:
            continue
        if word.isascii():
            if word not in _STOP and word.strip("'_"):
                tokens.add(word.strip("'"))
            continue
        for cjk, run in _runs(word):
            if not cjk:
                run = run.strip("'_")
                if run and run not in _STOP:
                    tokens.add(run)
            elif len(run) == 1:
                tokens.add(run)
            else:
                tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def stem(token: str) -> str:
    """A token without a common English ending ("deploying", "deployed", "deploys" → "deploy"):
    for telling a changed word from an inflected one, not for search."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(token) > len(suffix) + 3 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def escape_comment_opener(line: str) -> str:
    """``line`` with every "<!--" written as Markdown's literal "\\<!--" (an escaped one stays)."""
    if "<!--" not in line:
        return line
    return line.replace("\\<!--", "<!--").replace("<!--", "\\<!--")


def summarize(text: str, limit: int) -> str:
    """First sentence-ish line of ``text`` squeezed into ``limit`` characters. The index
    line's arrow is kept for the topic file, and an HTML comment opener is escaped: Markdown
    viewers (and the index's own reader) would hide every later line behind it."""
    line = escape_comment_opener(one_line(text).replace("→", "->"))
    line = line.strip("~").strip() or line  # never start or end with strike-through markers
    if len(line) <= limit:
        return line
    cut = line[: max(limit - 1, 1)]
    space = cut.rfind(" ")
    # Word boundary for spaced languages; a plain cut for Japanese (no spaces to find).
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"








def parse_date(value: str):  # -> datetime.date | None
    import datetime as _dt

    try:
        return _dt.date.fromisoformat(value[:10])
    except (ValueError, TypeError):
        return None




def time_key(value: str) -> float:
    """Seconds since 1970 of an ISO-8601 time (no zone = UTC, a date alone = its midnight);
    ``inf`` for what cannot be read, so an entry of unknown age never sorts as the oldest."""
    import datetime as _dt

    try:
        parsed = _dt.datetime.fromisoformat(value.strip())
    except (ValueError, TypeError, AttributeError):
        return float("inf")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return parsed.timestamp()
