"""What a model judge said of each lesson in play in a turn (``TurnVerdict.lesson_uses``).

Each entry names a lesson the turn was given or held back from, whether it was relevant to the
task, whether the agent followed it (given lessons only) and whether following it helped, hurt or
made no difference. Two uses:
- **relevance** (:func:`out_of_play`): a lesson the judge found not relevant, and that made no
  difference, is left out of the turn's credit in either arm (its outcome says nothing about the
  lesson). A lesson with no entry, and every lesson of a verdict without entries (the rules
  judged it), is credited as before. An effect other than "none" means the lesson bore on the
  turn, whatever the relevance flag says.
- **hurt** (:func:`record_turn`): a lesson the agent followed that the judge says hurt. The
  entries are kept in the credit ledger's ``attributions`` table, one row per (agent, lesson,
  session, turn), replaced when the turn is judged again; a hurt is *new* only when the turn did
  not already hold one for the lesson, so a retried job suspends nothing twice and a lesson
  restored by hand is not suspended again by the verdict it was restored against
  (``kioku.learning.suspension``).
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from typing import Any, Sequence

from kioku.learning import evidence

EFFECTS = ("helped", "hurt", "none")
REASON_CHARS = 300


@dataclass(frozen=True)
class Hurt:
    """A followed lesson the judge says hurt, in one turn."""
    lesson: str
    scope: str
    session: str
    turn: str          # the ledger turn's key ("t3")
    reason: str        # the judge's reason, redacted and cut
    task: str          # the turn's prompt as the verdict holds it (shortened and redacted)
    at: float


def uses_of(lesson_uses: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """lesson id -> its entry (well-formed entries only; the last entry for a lesson wins)."""
    out: dict[str, dict[str, Any]] = {}
    for use in lesson_uses or ():
        if not isinstance(use, dict) or not isinstance(use.get("lesson_id"), str) or not use["lesson_id"]:
            continue
        effect = use.get("effect") if use.get("effect") in EFFECTS else "none"
        followed = use.get("followed") if isinstance(use.get("followed"), bool) else None
        out[use["lesson_id"]] = {"relevant": bool(use.get("relevant")) or effect != "none", "followed": followed,
                                 "effect": effect, "reason": str(use.get("reason") or "")}
    return out


def out_of_play(lesson_uses: Sequence[Any]) -> set[str]:
    """The lessons the judge found not relevant to the turn (and of no effect in it)."""
    return {lesson for lesson, use in uses_of(lesson_uses).items() if not use["relevant"]}


def _clean(text: str) -> str:
    from kioku.text.secrets import redact

    return " ".join(redact(text).split())[:REASON_CHARS]


def record_turn(agent: str, session: str, turn: str, lesson_uses: Sequence[Any], given: dict[str, str],
                held_back: dict[str, str], task: str, at: float) -> tuple[list[Hurt], list[str]]:
    """Store the turn's entries for the lessons in play, replacing what the turn held before.

    Returns the hurts that are new (a lesson given, followed and said to hurt, which the turn did
    not already hold as a hurt) and the lessons whose hurt in this turn is gone (judged again
    without it).
    """
    uses = uses_of(lesson_uses)
    rows = []
    for lesson, use in uses.items():
        arm = "given" if lesson in given else "held_back" if lesson in held_back else ""
        if not arm:
            continue  # not in play in this turn as the ledger has it
        followed = None if use["followed"] is None else int(use["followed"])
        rows.append((agent, lesson, given.get(lesson) or held_back.get(lesson) or "global", session, turn, arm,
                     int(use["relevant"]), followed, use["effect"], _clean(use["reason"]), at))
    hurt_now = {r[1]: r for r in rows if r[5] == "given" and r[7] == 1 and r[8] == "hurt"}
    with closing(evidence.connect()) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            old = {lesson: (hurt, first) for lesson, hurt, first in conn.execute(
                "SELECT lesson, arm='given' AND followed=1 AND effect='hurt', at FROM attributions"
                " WHERE agent=? AND session=? AND turn=?", (agent, session, turn))}
            before = {lesson for lesson, (hurt, _at) in old.items() if hurt}
            # a row written again keeps the time it was first written (``hurt_sessions(since=...)``)
            rows = [r[:10] + (old[r[1]][1] if r[1] in old else r[10],) for r in rows]
            conn.execute("DELETE FROM attributions WHERE agent=? AND session=? AND turn=?", (agent, session, turn))
            conn.executemany("INSERT INTO attributions (agent, lesson, scope, session, turn, arm, relevant, followed,"
                             " effect, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    short_task = _clean(task)[:160]
    new = [Hurt(lesson, r[2], session, turn, r[9], short_task, at) for lesson, r in hurt_now.items()
           if lesson not in before]
    return new, sorted(before - set(hurt_now))


def hurt_sessions(agent: str, lesson: str, since: float = 0.0) -> set[str]:
    """The sessions in which the judge said ``lesson`` hurt (rows written after ``since``)."""
    with closing(evidence.connect()) as conn:
        return {s for (s,) in conn.execute(
            "SELECT DISTINCT session FROM attributions WHERE agent=? AND lesson=? AND arm='given' AND followed=1"
            " AND effect='hurt' AND at>?", (agent, lesson, since))}

