"""The learning step after the turns of a session are judged and stored.

``learn_from_turns(agent, session_id, items, root)``:
- a turn a model judged gives the lesson the judge wrote, if any (``kioku.learning.judged_lessons``);
- a turn the rules judged gives cause→fix lessons when it succeeded and its quality clears
  :data:`LEARN_MIN_QUALITY`; they wait in the candidate ledger (``kioku.learning.candidates``)
  until they recur in another session or the user confirms the turn (positive feedback on it),
  and go to the project scope when they are path-bound;
- then each turn's verdict credits the lessons given or held back in it
  (``kioku.learning.credit.apply_turn_verdicts``: idempotent, feedback on a previous turn
  corrects that turn), and due maintenance runs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from kioku.evaluation.lessons import Lesson, lessons_from_turn
from kioku.evaluation.quality import turn_quality
from kioku.evaluation.turns import Turn
from kioku.evaluation.verdict import TurnVerdict
from kioku.infra.errors import KiokuError
from kioku.learning.candidates import CandidateLedger
from kioku.learning.credit import apply_turn_verdicts
from kioku.learning.judged_lessons import lesson_from_verdict, store

LEARN_MIN_QUALITY = 70.0
LESSON_CONFIDENCE = 0.75   # a confirmed or recurring cause→fix lesson (active: >= 0.7)
log = logging.getLogger("kioku.learning")


@dataclass
class JudgedTurn:
    """A stored turn handed to the learning step."""
    verdict: TurnVerdict
    turn: Turn
    next_feedback: str = "none"     # the following prompt's feedback on this turn
    is_new: bool = True             # first time stored (False: re-stored because feedback changed)


def learn_from_turns(agent: str, session_id: str, items: list[JudgedTurn], root: Path) -> int:
    """Learn from turns whose verdicts are already stored; returns how many lessons were stored."""
    if not items:
        return 0
    ledger = CandidateLedger(agent)
    stored = 0
    for item in items:
        verdict = item.verdict
        if verdict.judged_by.startswith("model:"):
            stored += _learn_judged(agent, session_id, item, ledger, root)
            continue
        if verdict.outcome != "success" or item.next_feedback == "negative":
            continue
        if turn_quality(verdict, next_feedback=item.next_feedback)[0] < LEARN_MIN_QUALITY:
            continue
        ready = ledger.observe(lessons_from_turn(item.turn), session_id,
                               confirmed=item.next_feedback == "positive")
        for lesson in ready:
            stored += len(_store_lesson(agent, lesson, root))
    apply_turn_verdicts(agent, session_id, [i.verdict for i in items], root)
    from kioku.lessons.maintenance import run_due_in_background

    run_due_in_background(agent, project_root=root)
    return stored


def _learn_judged(agent: str, session_id: str, item: JudgedTurn, ledger: CandidateLedger, root: Path) -> int:
    """The lesson a model judge wrote for the turn (``kioku.learning.judged_lessons``)."""
    quality = turn_quality(item.verdict, next_feedback=item.next_feedback)[0]
    plan = lesson_from_verdict(item.verdict, item.next_feedback, quality, LEARN_MIN_QUALITY)
    if plan is None:
        return 0
    if not plan.direct and not ledger.observe([plan.lesson], session_id, confirmed=item.next_feedback == "positive"):
        return 0
    return len(store(agent, plan, root, session_id))


def _store_lesson(agent: str, lesson: Lesson, root: Path) -> list[str]:
    from kioku.lessons import improvements

    try:
        return improvements.learn(agent, lesson.text, lesson.category, LESSON_CONFIDENCE, tags=lesson.tags,
                                  scope="project" if lesson.path_bound else "auto",
                                  learned_from="self_evaluation", project_root=root)
    except KiokuError as exc:  # a lesson refused (secret, store rule) must not lose the evaluation
        log.warning("lesson not stored: %s", exc)
        return []
