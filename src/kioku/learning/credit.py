"""Per-turn credit: a turn's verdict reaches exactly the lessons recorded for that turn, once.

:func:`apply_turn_verdicts` is what the evaluation worker calls after it has evaluated turns of
a session (``kioku.evaluation.verdict.TurnVerdict``):

1. each verdict is joined to a turn of the session ledger (``kioku.learning.ledger``) on
   ``prompt_id``, else ``prompt_sha256``, else the order of prompts (``prompt_index``);
2. a turn whose outcome is ``interrupted`` or ``no_task`` credits nothing; otherwise every
   lesson given in the turn gets a ``given`` row and every eligible lesson not given a
   ``held_back`` row (``kioku.learning.evidence``), success = outcome ``success``, with the
   lesson's recorded chance of being given and the family of the judge that decided; a lesson
   a model judge found not relevant to the turn gets no row in either arm
   (``kioku.learning.attribution.out_of_play``);
3. what a model judge said of each lesson in play is stored, and a lesson the agent followed
   that the judge says hurt is suspended (``kioku.learning.suspension``);
4. ``feedback_on_previous`` (the user's next prompt judging the turn before) is stored as a
   correction of the previous ledger turn: negative makes it a failure, positive a success,
   for every lesson of that turn, whichever of the two arrives first;
5. the touched lessons' evidence is recomputed and the lifecycle rule applied
   (``kioku.learning.lifecycle.refresh``).
Rows are keyed by (agent, lesson, session, turn) and a turn's rows are replaced whenever it is
credited, so calling it again with the same verdicts - a retried job, a worker restarted in the
middle of a session - changes nothing, and a turn judged again (a re-run, a judgement that
changed) keeps only the rows its new verdict gives.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from kioku.evaluation.judge import calibration
from kioku.evaluation.verdict import TurnVerdict
from kioku.learning import attribution, evidence, ledger, lifecycle


@dataclass
class CreditReport:
    matched: int = 0
    credited: int = 0
    corrected: int = 0
    unmatched: int = 0
    decisions: dict[str, str] = field(default_factory=dict)


def turn_key(turn: dict) -> str:
    return f"t{turn['n']}"


def join(verdicts: Sequence[TurnVerdict], turns: list[dict]) -> list[tuple[TurnVerdict, dict | None]]:
    """Pair each verdict with its ledger turn (prompt_id, else prompt_sha256, else order)."""
    by_id = {t["prompt_id"]: t for t in turns if t.get("prompt_id")}
    by_sha: dict[str, list[dict]] = {}
    for t in turns:
        if t.get("prompt_sha256"):
            by_sha.setdefault(t["prompt_sha256"], []).append(t)
    claimed: set[int] = set()
    out: list[tuple[TurnVerdict, dict | None]] = []
    for v in verdicts:
        turn = by_id.get(v.prompt_id) if v.prompt_id else None
        if turn is None and v.prompt_sha256:
            turn = next((t for t in by_sha.get(v.prompt_sha256, []) if t["n"] not in claimed), None)
        if turn is None and 0 <= v.prompt_index < len(turns) and not (v.prompt_id or v.prompt_sha256):
            turn = turns[v.prompt_index]
        if turn is not None:
            claimed.add(turn["n"])
        out.append((v, turn))
    return out


def apply_turn_verdicts(agent: str, session_id: str, verdicts: Sequence[TurnVerdict],
                        project_root: Path | str | None = None) -> CreditReport:
    """Credit the lessons of each verdict's turn with its outcome (idempotent; see the module doc)."""
    report = CreditReport()
    turns = ledger.turns(session_id, agent)
    if not turns or not verdicts:
        return report
    root = Path(project_root or ledger.project_root_of(session_id) or ".")
    position = {t["n"]: i for i, t in enumerate(turns)}
    touched: dict[str, str] = {}
    hurts: list[attribution.Hurt] = []
    withdrawn: list[tuple[str, str, str]] = []
    now = time.time()
    for verdict, turn in join(verdicts, turns):
        if turn is None:
            report.unmatched += 1
            continue
        report.matched += 1
        key = turn_key(turn)
        given, held = dict(turn.get("given", {})), dict(turn.get("held_back", {}))
        if verdict.outcome in ("success", "partial", "failed"):
            skip = attribution.out_of_play(verdict.lesson_uses)
            touched.update(evidence.write_turn(
                agent, session_id, key, {i: s for i, s in given.items() if i not in skip},
                {i: s for i, s in held.items() if i not in skip}, verdict.outcome == "success", now,
                turn.get("propensity") or {}, calibration.family(verdict.judged_by)))
            report.credited += 1
        else:
            touched.update(evidence.clear_turn(agent, session_id, key))
        touched.update(given)
        touched.update(held)
        new, gone = attribution.record_turn(agent, session_id, key, verdict.lesson_uses, given, held,
                                            verdict.task, now)
        hurts += new
        withdrawn += [(lesson, session_id, key) for lesson in gone]
        if verdict.feedback_on_previous in ("positive", "negative") and position[turn["n"]] > 0:
            previous = turns[position[turn["n"]] - 1]
            touched.update(evidence.correct_turn(agent, session_id, turn_key(previous),
                                                 verdict.feedback_on_previous == "positive"))
            report.corrected += 1
    report.decisions = lifecycle.refresh(agent, touched, root, hurts=hurts, withdrawn=withdrawn)
    return report
