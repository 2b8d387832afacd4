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
- ``now_iso`` / ``today``: UTC timestamps; ``KIOKU_NOW`` (ISO-8601) pins the clock for
  reproducible demos and for tests of date-dependent behaviour (archiving old entries).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import unicodedata

_CJK = r"\u3005\u3006\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(rf"[{_CJK}]+")
_WORD = re.compile(rf"[^\W_{_CJK}]+(?:'[^\W_{_CJK}]+)*")
_PUNCT = re.compile(r"[^\w\s']+")
_SPACES = re.compile(r"\s+")

# Only the glue words; negations and quantifiers stay because they change meaning.
_STOP = frozenset("a an the to of and or for in on at is are be it this that with as by".split())


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    text = _PUNCT.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def token_set(text: str) -> set[str]:
    norm = normalize(text)
    tokens: set[str] = set()
    for run in _CJK_RUN.findall(norm):
        if len(run) == 1:
            tokens.add(run)
        else:
            tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    for word in _WORD.findall(_CJK_RUN.sub(" ", norm)):
        if word not in _STOP:
            tokens.add(word)
    return tokens


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def summarize(text: str, limit: int) -> str:
    """First sentence-ish line of ``text`` squeezed into ``limit`` characters."""
    line = one_line(text).replace("→", "->")
    line = line.strip("~").strip() or line  # never start or end with strike-through markers
    if len(line) <= limit:
        return line
    cut = line[: max(limit - 1, 1)]
    space = cut.rfind(" ")
    # Word boundary for spaced languages; a plain cut for Japanese (no spaces to find).
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def _now() -> _dt.datetime:
    pinned = os.environ.get("KIOKU_NOW")
    if pinned:
        try:
            value = _dt.datetime.fromisoformat(pinned.replace("Z", "+00:00"))
            return value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        except ValueError:
            pass
    return _dt.datetime.now(_dt.timezone.utc)


def now_iso(millis: bool = False) -> str:
    now = _now().astimezone(_dt.timezone.utc)
    if millis:
        return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def today() -> str:
    return _now().astimezone(_dt.timezone.utc).strftime("%Y-%m-%d")


def parse_date(value: str) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(value[:10])
    except (ValueError, TypeError):
        return None


def current_date() -> _dt.date:
    return _now().astimezone(_dt.timezone.utc).date()
