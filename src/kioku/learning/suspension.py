"""Suspending a lesson a model judge says hurt, and lifting the suspension the evidence does not bear out.

When the agent followed a lesson in a turn and the judge says following it hurt (above all where
the user corrected exactly what it advised), the lesson is suspended at once (:func:`suspend`).
The hooks then no longer give it in the normal way: it is given only in
``kioku.learning.select.SUSPENDED_SHARE`` of its eligible turns, drawn from the same hash as every
other choice and recorded with that chance as its propensity. Its given arm keeps growing, and the
weighted uplift (``kioku.learning.uplift``) stays unbiased, so the uplift test can still decide
(``kioku.learning.lifecycle.decide``):
- **confirmed**: at a look, the harm boundary is crossed and the lesson is deprecated ("hurts"), as
  any lesson would be; "no use" retires it as it would any other;
- **lifted** (:func:`restorable`): once it has been given in :data:`RESTORE_AFTER_GIVEN` turns
  since the suspension and its measured uplift is not below zero, checked at every credited turn.
  One verdict is a single reading of a single turn; evidence that does not lean towards harm
  brings the lesson back, and the judge suspends it again at its next hurt;
- another hurt while suspended starts the count of given turns again; one in another session than
  the hurt that suspended it, while its measured uplift is below zero, confirms the harm at once
  (:func:`confirmed`): two readings of two sessions agree, and the evidence leans the same way,
  so the lesson is deprecated ("hurts") without waiting for a look.
A lesson the user taught (``learned_from == "user_feedback"``) or brought back by hand
(``restored_at_epoch``) is suspended only when the judge's word has support (:func:`supported`):
the judge said it hurt in a second session (since the restore), or its measured uplift is already
below zero. The user's own word is the strongest signal there is; one model reading of one
correction does not overrule it, two corrections in two sessions or a correction the evidence
agrees with do.

Fields written: ``suspended``, ``suspended_reason``, ``suspended_at`` (+ ``_epoch``),
``suspended_session``, ``suspended_turn``, ``suspended_task``, ``suspended_given`` (turns given at
the time), ``suspensions`` (how many times); a lift writes ``suspended=False``,
``suspension_lifted_at`` (+ ``_epoch``) and ``decision_reason`` and keeps the rest as the last
suspension's record. ``kioku.lessons.lesson_state.set_deprecated`` lifts it by hand.
"""

from __future__ import annotations

import time
from typing import Any

from kioku.learning import attribution
from kioku.lessons.stats import epoch_of, given_since_suspension
from kioku.infra import clock

RESTORE_AFTER_GIVEN = 3  # given turns since the suspension before the evidence may lift it
SUSPENSION_FIELDS = ("suspended", "suspended_reason", "suspended_at", "suspended_at_epoch", "suspended_session",
                     "suspended_turn", "suspended_task", "suspended_given", "suspension_lifted_at",
                     "suspension_lifted_at_epoch", "decision_reason")


def vouched(meta: dict[str, Any]) -> bool:
    """Taught by the user, or brought back by hand: suspended only on the judge's word plus evidence."""
    return meta.get("learned_from") == "user_feedback" or epoch_of(meta.get("restored_at_epoch")) > 0


def supported(agent: str, lesson: str, meta: dict[str, Any]) -> bool:
    """Whether a hurt of a vouched lesson has support: a hurt in a second session since it was
    taught or restored, or its measured uplift (the ``uplift`` field) below zero."""
    if measured_below_zero(meta):
        return True
    return len(attribution.hurt_sessions(agent, lesson, since=epoch_of(meta.get("restored_at_epoch")))) >= 2


def measured_below_zero(meta: dict[str, Any]) -> bool:
    """Whether the lesson's measured uplift (the ``uplift`` field, over turns in both arms) is below zero."""
    uplift = meta.get("uplift")
    return (isinstance(uplift, (int, float)) and not isinstance(uplift, bool) and uplift < 0
            and bool(int(meta.get("turns_given", 0) or 0)) and bool(int(meta.get("turns_held_back", 0) or 0)))


def suspend(agent: str, meta: dict[str, Any], hurt: attribution.Hurt, now: float | None = None) -> dict[str, Any]:
    """The fields that suspend the lesson of ``hurt`` (``meta``: its metadata with this turn's evidence
    already merged), or {} when it stays as it is (deprecated, or vouched without support)."""
    if meta.get("deprecated"):
        return {}
    if vouched(meta) and not supported(agent, hurt.lesson, meta):
        return {}
    now = time.time() if now is None else now
    again = bool(meta.get("suspended"))
    said = hurt.reason or "no reason given"
    where = f"session {hurt.session}, turn {hurt.turn.lstrip('t')}"
    if again and hurt.session != meta.get("suspended_session") and measured_below_zero(meta):
        return confirmed(meta, where, said, now)
    reason = f"{'suspended again' if again else 'suspended'}: the judge says following it hurt ({where}): {said}"
    return {"suspended": True, "suspended_reason": said, "suspended_at": clock.iso_z(now), "suspended_at_epoch": now,
            "suspended_session": hurt.session, "suspended_turn": hurt.turn, "suspended_task": hurt.task,
            "suspended_given": int(meta.get("turns_given", 0) or 0),
            "suspensions": int(meta.get("suspensions", 0) or 0) + (0 if again else 1),
            "decision_reason": reason[:500]}


def confirmed(meta: dict[str, Any], where: str, said: str, now: float) -> dict[str, Any]:
    """The deprecation of a suspended lesson the judge says hurt again in another session."""
    first = f"session {meta.get('suspended_session', '')}, turn {str(meta.get('suspended_turn', '')).lstrip('t')}"
    reason = (f"hurts: the judge says following it hurt in two sessions ({first}; {where}: {said}), "
              f"uplift {float(meta.get('uplift', 0.0)):+.2f}")
    return {"deprecated": True, "deprecated_reason": reason[:500], "decision_reason": reason[:500],
            "deprecated_at": clock.iso_z(now), "deprecated_at_epoch": now}


def restorable(meta: dict[str, Any], uplift: float | None) -> bool:
    """Given in :data:`RESTORE_AFTER_GIVEN` turns since the suspension, and measured not below zero."""
    return given_since_suspension(meta) >= RESTORE_AFTER_GIVEN and uplift is not None and uplift >= 0


def lifted(why: str, now: float | None = None) -> dict[str, Any]:
    now = time.time() if now is None else now
    return {"suspended": False, "suspension_lifted_at": clock.iso_z(now), "suspension_lifted_at_epoch": now,
            "decision_reason": f"suspension lifted: {why}"[:500]}


def withdrawn(meta: dict[str, Any], session: str, turn: str, now: float | None = None) -> dict[str, Any]:
    """When the turn that suspended the lesson is judged again without the hurt: the suspension goes."""
    if not meta.get("suspended") or meta.get("deprecated"):
        return {}
    if meta.get("suspended_session") != session or meta.get("suspended_turn") != turn:
        return {}
    return lifted(f"the turn that suspended it (session {session}, turn {turn.lstrip('t')}) was judged again "
                  "and no longer says it hurt", now)
