"""The enrichment answer, checked: an :class:`Enrichment` per note that passes, the problems of the rest.

``parse_answer(data, request, model) -> Parsed`` accepts what a careful reader would (the items as
a bare list, the keywords as one list split by script, a keyword in the other language's list
moved to its own, extra questions or keywords dropped past the caps) and refuses, per note,
what cannot be used: no entry, fewer than :data:`~kioku.enrich.request.MIN_QUESTIONS` questions,
no question in English or none in Japanese, no keyword in one of the languages, no topic. The
problems are listed in one message, sent back to the model once. Every string the model wrote
is data: it passes the secret filter and is defanged, stripped of control characters and cut
(:data:`~kioku.enrich.request.QUESTION_CHARS`, ``KEYWORD_CHARS``, ``TOPIC_CHARS``) before it is kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kioku.enrich.request import (KEYWORD_CHARS, MAX_KEYWORDS, MAX_QUESTIONS, MIN_QUESTIONS, QUESTION_CHARS,
                                  TOPIC_CHARS, Request)
from kioku.evaluation.judge.render import clean, cut, redact_outgoing
from kioku.retrieval.enrichment import Enrichment
from kioku.retrieval.japanese import has_cjk
from kioku.text.defang import defang


class AnswerError(ValueError):
    """The answer as a whole cannot be used; the message says why, for the retry."""


@dataclass
class Parsed:
    good: dict[str, Enrichment] = field(default_factory=dict)       # alias -> enrichment
    problems: dict[str, list[str]] = field(default_factory=dict)    # alias -> what is wrong

    def message(self) -> str:
        lines = [f"{alias}: {'; '.join(found)}" for alias, found in self.problems.items()]
        return "; ".join(lines[:12]) + (f" (and {len(lines) - 12} more)" if len(lines) > 12 else "")


def _text(value: Any, limit: int) -> str:
    return cut(clean(defang(redact_outgoing(str(value or "")))), limit)


def _distinct(values: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        folded = value.casefold()
        if value and folded not in seen:
            seen.add(folded)
            out.append(value)
    return out


def _strings(value: Any, limit: int) -> list[str]:
    if isinstance(value, str):
        value = [part for part in value.replace("、", ",").split(",")]
    if not isinstance(value, list):
        return []
    return _distinct([_text(v, limit) for v in value if isinstance(v, (str, int, float))])


def _keywords(value: Any) -> tuple[list[str], list[str]]:
    """(English, Japanese) keywords, each in the list of its own script."""
    if isinstance(value, dict):
        given = _strings(value.get("en"), KEYWORD_CHARS) + _strings(value.get("ja"), KEYWORD_CHARS)
    else:
        given = _strings(value, KEYWORD_CHARS)
    english = [k for k in given if not has_cjk(k) and any(ch.isalnum() for ch in k)]
    japanese = [k for k in given if has_cjk(k)]
    return english[:MAX_KEYWORDS], japanese[:MAX_KEYWORDS]


def _item(value: dict, model: str) -> tuple[Enrichment, list[str]]:
    problems: list[str] = []
    questions = [q for q in _strings(value.get("questions"), QUESTION_CHARS) if len(q) >= 4]
    english = [q for q in questions if not has_cjk(q)]
    japanese = [q for q in questions if has_cjk(q)]
    if len(questions) < MIN_QUESTIONS:
        problems.append(f"questions must hold {MIN_QUESTIONS} to {MAX_QUESTIONS} questions, not {len(questions)}")
    if not english or not japanese:
        problems.append("questions must be in both English and Japanese (at least one of each)")
    if len(questions) > MAX_QUESTIONS:  # cut down to the cap, keeping both languages
        n_ja = min(len(japanese), max(MAX_QUESTIONS - len(english), MAX_QUESTIONS // 2))
        chosen = set(english[:MAX_QUESTIONS - n_ja]) | set(japanese[:n_ja])
        questions = [q for q in questions if q in chosen]
    keywords_en, keywords_ja = _keywords(value.get("keywords"))
    if not keywords_en:
        problems.append('keywords.en must list English keywords')
    if not keywords_ja:
        problems.append('keywords.ja must list Japanese keywords')
    topic = _text(value.get("topic"), TOPIC_CHARS)
    if not topic:
        problems.append("topic is missing")
    return Enrichment(tuple(questions), tuple(keywords_en), tuple(keywords_ja), topic, model, time.time()), problems


def parse_answer(data: Any, request: Request, model: str = "") -> Parsed:
    if isinstance(data, list):
        data = {"items": data}
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise AnswerError('the answer must be a JSON object with an "items" list')
    by_alias: dict[str, dict] = {}
    for value in data["items"]:
        if isinstance(value, dict):
            alias = str(value.get("id") or "").strip().lower()
            if alias in request.aliases:
                by_alias.setdefault(alias, value)
    out = Parsed()
    for alias in request.aliases:
        value = by_alias.get(alias)
        if value is None:
            out.problems[alias] = ["no entry for this note"]
            continue
        enrichment, problems = _item(value, model)
        if problems:
            out.problems[alias] = problems
        else:
            out.good[alias] = enrichment
    return out
