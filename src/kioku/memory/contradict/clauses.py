"""One statement's choices, qualifiers and polarity: which category options it endorses or rejects,
the scope it is limited to, and whether it says always or never."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kioku.memory.contradict.words import (
    _CALENDAR, _CLAUSE_SPLIT, _EN_ALIASES, _GENERIC_QUALIFIERS, _JA_ALIASES, _JA_GENERIC_SCOPES,
    _JA_NAMED_END, _JA_NEG_AFTER, _JA_POLARITY, _JA_POS, _JA_SCOPE, _JA_TOPIC_WORDS, _NEEDS_JOB,
    _NEGATIVE_WORDS, _NEG_PHRASES, _NEG_WORDS, _OPTION_NAMES, _POLARITY_WORDS, _POS_PHRASES, _POS_WORDS,
    _QUALIFIER_SKIP, _QUALIFIER_WORDS, _WORD,
)
from kioku.memory.textutil import token_set


def _lower(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def fold(text: str) -> str:
    """``text`` folded as :func:`could_flag`'s test expects an older text (NFKC, lower case, ’ → ')."""
    return _lower(text)


def _words(clause: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(clause))


def _has_phrase(words: list[str], phrases) -> bool:
    padded = " " + " ".join(words) + " "
    return any(f" {p} " in padded for p in phrases)


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def choices(text: str) -> dict[str, dict[str, int]]:
    """{category: {option: +1 endorsed | -1 rejected}} for directive mentions in ``text``."""
    found: dict[str, dict[str, int]] = {}

    def put(category: str, option: str, stance: int) -> None:
        slot = found.setdefault(category, {})
        slot[option] = min(slot.get(option, stance), stance)  # a rejection wins over an endorsement

    # Clauses: a choice's stance is decided inside its clause ("use bun, never npm").
    low = _lower(text)
    for clause in low.translate(_CLAUSE_SPLIT).split("\n"):
        matches = _words(clause)
        words = [m.group(0) for m in matches]
        has_cue = bool(_POS_WORDS.intersection(words)) or _has_phrase(words, _POS_PHRASES) or any(
            cue in clause for cue in _JA_POS)
        i = 0
        while i < len(words):
            for size in (3, 2, 1):
                hit = _EN_ALIASES.get(tuple(words[i : i + size])) if i + size <= len(words) else None
                if hit and hit in _NEEDS_JOB and not any(job in low for job in _NEEDS_JOB[hit]):
                    hit = None
                if hit:
                    before = words[max(0, i - 3) : i]
                    after = clause[matches[i + size - 1].end():].lstrip()
                    negated = bool(_NEG_WORDS.intersection(before)) or _has_phrase(before, _NEG_PHRASES) or \
                        after.startswith(_JA_NEG_AFTER)
                    if negated or has_cue:
                        put(hit[0], hit[1], -1 if negated else +1)
                    i += size - 1
                    break
            i += 1
        for alias, category, option in _JA_ALIASES:
            start = clause.find(alias)
            if start < 0 or ((category, option) in _NEEDS_JOB
                             and not any(job in low for job in _NEEDS_JOB[(category, option)])):
                continue
            after = clause[start + len(alias):].lstrip()
            if after.startswith(_JA_NEG_AFTER):
                put(category, option, -1)
            elif has_cue or ("は" in clause[:start] and _JA_NAMED_END.match(after)
                             and any(word in clause[:start] for word in _JA_TOPIC_WORDS.get(category, ()))):
                put(category, option, +1)  # "インデントはスペース2つ": the answer to the category's own topic
    return found


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _qualifiers(text: str) -> set[str]:
    low = _lower(text)
    words = [m.group(0) for m in _WORD.finditer(low)]
    out: set[str] = set()
    if _has_ja(low) and ("では" in low or "には" in low or "場合" in low):
        # "インデントはPythonではスペース4つ": where the statement holds, as "in Python files"
        out |= {m.group(1) for m in _JA_SCOPE.finditer(low)
                if not m.group(1).endswith(("曜日", "曜")) and m.group(1) not in _JA_GENERIC_SCOPES}
    for i, word in enumerate(words):
        if word not in _QUALIFIER_WORDS:
            continue
        j = i + 1
        while j < len(words) and words[j] in _QUALIFIER_SKIP:
            j += 1
        if j < len(words) and words[j] not in _GENERIC_QUALIFIERS and words[j] not in _OPTION_NAMES \
                and words[j] not in _CALENDAR:  # "on Fridays" is when, a value, not a scope
            out.add(words[j].rstrip("."))
    return out


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _polarity(text: str) -> int:
    low = _lower(text)
    words = set(_WORD.findall(low))
    if words & _NEGATIVE_WORDS or "しない" in low:
        return -1
    return +1 if (words & _POLARITY_WORDS or "必ず" in low or "する" in low) else 0


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _strip_polarity(text: str) -> set[str]:
    low = _lower(text)
    for marker in _JA_POLARITY:
        low = low.replace(marker, " ")
    return token_set(low) - _POLARITY_WORDS


def _has_ja(text: str) -> bool:
    if text.isascii():  # one C-level check; a save compares against every memory in the index
        return False
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)
