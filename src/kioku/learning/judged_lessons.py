"""Lessons a model judge wrote: stored, merged into one that says the same, or kept as candidates.

``lesson_from_verdict(verdict, next_feedback, quality)`` turns the judge's draft into a
:class:`~kioku.evaluation.lessons.Lesson` and says how it is to be learned:
- ``preference`` (what the user asked to be done differently) is the user's word: stored at once,
  as user feedback, in the project's scope;
- ``pitfall`` from a turn that failed, fell short, or that the next prompt corrected: stored at once;
- ``strategy``, or a pitfall from a turn that went well: a candidate (``kioku.learning.candidates``)
  until it recurs or the user confirms the turn; a strategy needs a successful turn whose quality
  clears the learning gate.
``store(agent, lesson, how, root)``: a lesson that says what an active one of the agent already says
(cosine at least ``kioku.lessons.consolidate.EQUIVALENCE_THRESHOLD``, the same polarity, not the same
sentence with one value changed) adds evidence to that one (``observations``, confidence kept at
the higher) and makes no copy. Every lesson passes the store's secret, path and fence checks
(``kioku.lessons.improvements.learn``).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kioku.evaluation.lessons import Lesson
from kioku.evaluation.verdict import TurnVerdict
from kioku.infra.errors import KiokuError
from kioku.infra.names import normalise_lesson

DIRECT_CONFIDENCE = {"preference": 0.8, "pitfall": 0.75}
CANDIDATE_CONFIDENCE = 0.75
log = logging.getLogger("kioku.learning")


@dataclass(frozen=True)
class LearnPlan:
    lesson: Lesson
    direct: bool                  # store now; else through the candidate ledger
    learned_from: str
    confidence: float
    scope: str


def lesson_from_verdict(verdict: TurnVerdict, next_feedback: str, quality: float,
                        min_quality: float) -> LearnPlan | None:
    draft = verdict.lesson if isinstance(verdict.lesson, dict) else None
    if not draft or not str(draft.get("text") or "").strip():
        return None
    kind = str(draft.get("kind") or "")
    category = str(draft.get("category") or "user_preferences")
    text = str(draft["text"]).strip()
    lesson = Lesson(text=text, key=f"judge|{normalise_lesson(text)}", category=category,
                    tags=[kind, re.sub(r"[^a-z0-9]+", "-", category.lower()).strip("-")], path_bound=False)
    corrected = next_feedback == "negative" or verdict.outcome in ("failed", "partial")
    if kind == "preference":
        return LearnPlan(lesson, True, "user_feedback", DIRECT_CONFIDENCE["preference"], "project")
    if kind == "pitfall" and corrected:
        return LearnPlan(lesson, True, "self_evaluation", DIRECT_CONFIDENCE["pitfall"], "auto")
    if kind == "strategy" and (verdict.outcome != "success" or next_feedback == "negative" or quality < min_quality):
        return None
    return LearnPlan(lesson, False, "self_evaluation", CANDIDATE_CONFIDENCE, "auto")


def equivalent(agent: str, text: str, root: Path) -> Any:
    """The active lesson of ``agent`` that says what ``text`` says, or None."""
    from kioku.lessons import consolidate
    from kioku.lessons.lesson_retrieval import retrieve

    try:
        hits = retrieve(agent, text, limit=3, project_root=root)
    except Exception as exc:  # noqa: BLE001 - no comparison possible: store it as new
        log.info("no equivalence check for a judged lesson: %s", exc)
        return None
    for hit in hits:
        if hit.extra.get("mode") == "lexical":
            continue  # the embedder was unavailable: keyword overlap is not sameness
        if (hit.relevance >= consolidate.EQUIVALENCE_THRESHOLD
                and consolidate.polarity(hit.improvement) == consolidate.polarity(text)
                and not consolidate.differ_in_one_place(hit.improvement, text)):
            return hit
    return None


def store(agent: str, plan: LearnPlan, root: Path, session_id: str) -> list[str]:
    """Learn ``plan``'s lesson; returns the ids written (the existing lesson's when merged)."""
    from kioku.lessons import improvements
    from kioku.lessons.improvements import now

    same = equivalent(agent, plan.lesson.text, root)
    try:
        if same is not None:
            meta = same.metadata or {}
            seen = int(meta.get("observations", 1) or 1) + 1
            iso, _ = now()
            return improvements.learn(agent, same.improvement, str(meta.get("category") or plan.lesson.category),
                                      max(plan.confidence, float(meta.get("confidence", 0.0) or 0.0)),
                                      tags=plan.lesson.tags, scope=same.scope,
                                      learned_from=str(meta.get("learned_from") or plan.learned_from),
                                      project_root=root,
                                      extra_metadata={"observations": seen, "last_observed_at": iso,
                                                      "last_observed_session": session_id})
        return improvements.learn(agent, plan.lesson.text, plan.lesson.category, plan.confidence,
                                  tags=plan.lesson.tags, scope=plan.scope, learned_from=plan.learned_from,
                                  project_root=root, extra_metadata={"observations": 1, "lesson_kind": plan.lesson.tags[0]})
    except KiokuError as exc:  # refused (a secret, a store rule): the evaluation itself is kept
        log.warning("judged lesson not stored: %s", exc)
        return []
