"""Lifecycle of a lesson on counterfactual evidence: active → promoted | deprecated.

Rule, taken at each *look* of ``kioku.learning.uplift`` (boundaries corrected for repeated looks;
"no use" also between looks, below),
on the uplift weighted by each turn's recorded chance of giving the lesson
(``kioku.learning.uplift.weighted_uplift``):
- **deprecate (hurts)** when the uplift interval at ``DEPRECATE_Z`` lies entirely below zero;
- **promote** when the interval at ``PROMOTE_Z`` lies entirely above zero (confidence + 0.05,
  at most 0.95);
- **deprecate (no use)** when both arms have at least :data:`NO_USE_MIN_TURNS` (effective) turns and
  the interval at ``DEPRECATE_Z`` lies entirely below the margin (:func:`no_use_margin`): with the
  confidence used for harm, the lesson lifts success by less than 0.05, or by less than 40 % of
  the failures left in the turns it was not given (the margin at most 0.10), so it costs context
  (and a slot another lesson could use) for too little. Where turns fail often a lesson must
  prevent a fair share of those failures to keep its slot; near a success rate of 1 the failures
  left are few, and 0.05 is asked. The margin is a lift in true success: a judge that errs
  (``kioku.evaluation.judge.calibration``) shrinks a measured lift by the gap between its two
  rates, so the margin asked of the measured uplift shrinks with it, and the failures left are
  read on the true scale. A lesson that does nothing reaches this as its interval
  narrows; one that helps by clearly more than the margin does not. At a look, a lesson not yet
  promoted whose interval at ``PROMOTE_Z`` lies above zero is promoted first; a promoted lesson is
  retired as "no use" like any other once its interval lies below the margin. Lessons
  the user taught (``learned_from == "user_feedback"``) are never deprecated for this: the user's
  word is the strongest signal, only evidence of harm overrides it.
  Between looks, a lesson whose measured uplift is below :data:`NO_USE_BETWEEN_LOOKS_BELOW` is
  checked for "no use" each time a turn it took part in is credited (also past the last look), so
  a lesson the evidence leans against is retired as soon as its interval allows, not at the next
  look, which comes only when the smaller arm has grown by half (in the learning-loop simulation,
  for a lesson given in few turns, often 100 to 250 sessions later). Harm and promotion stay at
  the looks, where their error rates are calibrated, so a lesson whose interval already lies below
  zero between looks is retired as "no use", not "hurts": that claims only a lift under the
  margin. A lesson restored by hand (or by a rollback) is not checked between looks until a look
  has passed since.
A promoted lesson that later shows harm is deprecated, and one whose measured uplift is no longer
above zero at a later look loses its promotion (its confidence goes back to what it was before):
it returns to the undecided lessons, which share the free slots at random, so its evidence grows
in both arms again instead of only from the hold-back turns (a promoted lesson is given in up to
nine of ten eligible turns), and it can be promoted again. Without this, a promotion decided on
noise at an early look is close to permanent. A deprecated lesson takes with it the copy
the same ``kioku lessons learn`` wrote into the other scope (else the hooks would give that copy instead).
It stays in the store (not injected), keeps its ``decision_reason`` and can be brought back by hand
(``kioku.lessons.lesson_state.set_deprecated``: ``kioku lessons restore`` and the web UI).
A lesson a model judge says hurt is suspended at once (``kioku.learning.suspension``): at a look
the harm rule deprecates it as any other, "no use" retires it, and between looks or at one the
suspension is lifted once it was given in a few turns since and its measured uplift is not below
zero; a suspended promoted lesson whose uplift is at or below zero at a look loses its promotion;
a second hurt in another session, with the measured uplift below zero, deprecates it at once.
The suspension (or its lift) is written to the other scope's copy too, as a deprecation is.
The fields written are the evidence fields of ``kioku.lessons.stats.lesson_evidence`` plus the
seed counters (``usage_count`` = turns given, ``success_count``, ``success_rate``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Sequence

from kioku.lessons import stats
from kioku.lessons import usage
from kioku.lessons.improvements import DEPRECATION_FIELDS
from kioku.evaluation.judge import calibration
from kioku.infra import clock, fsutil
from kioku.learning import evidence, suspension
from kioku.learning import uplift as up
from kioku.learning.attribution import Hurt

log = logging.getLogger("kioku.learning.lifecycle")

NO_USE_MIN_TURNS = 34  # the fourth look: before it the interval is too wide to say "no use"
NO_USE_MARGIN = 0.05   # the smallest lift in success worth a lesson's place in the context ...
NO_USE_SHARE_OF_FAILURES = 0.4  # ... or this share of the failures left without it,
NO_USE_MARGIN_MAX = 0.10        # ... up to this lift
MIN_JUDGE_SPREAD = 0.2  # a judge whose two rates lie closer than this is read as if this far apart
# A lesson measured below this is also checked for "no use" between looks (not from 0: near a success
# rate of 1 a helpful lesson given beside others measures a lift of about 0).
NO_USE_BETWEEN_LOOKS_BELOW = -0.05


def _fmt(u: up.Uplift) -> str:
    return (f"uplift {u.uplift:+.2f} (corrected interval {u.low:+.2f} to {u.high:+.2f}) over "
            f"{u.turns_given} given / {u.turns_held_back} held-back turns")


def arms_of(counts: tuple) -> tuple[tuple, tuple]:
    """Weighted arms (``evidence.weighted_totals``) from either those or plain (ng, sg, nh, sh) counts."""
    if len(counts) == 2:
        return counts[0], counts[1]
    ng, sg, nh, sh = counts
    return (ng, sg, float(ng), float(ng), float(sg)), (nh, sh, float(nh), float(nh), float(sh))


def decide(meta: dict[str, Any], counts: tuple, rates: calibration.Rates = calibration.EXACT) -> dict[str, Any]:
    """Metadata change for a lesson with these counts (evidence fields, a decision at a look, and
    "no use" or the lift of a suspension between looks).

    ``counts``: the weighted arms of ``evidence.weighted_totals``, or plain (ng, sg, nh, sh);
    ``rates``: those of the judges behind the evidence (``calibration.mixed``). The uplift is the
    inverse-probability-weighted one; looks follow the smaller effective arm.
    """
    given, held = arms_of(counts)
    ng, sg, nh, sh = given[0], given[1], held[0], held[1]
    plain = up.weighted_uplift(given, held)
    change: dict[str, Any] = {
        "turns_given": ng, "success_given": sg, "turns_held_back": nh, "success_held_back": sh,
        "usage_count": ng, "success_count": sg, "success_rate": round(sg / ng, 4) if ng else -1.0,
        "tested": ng > 0,
    }
    if plain.defined:
        change.update(uplift=plain.uplift, uplift_low=plain.low, uplift_high=plain.high)
    looks = up.looks_passed(int(min(plain.effective_given, plain.effective_held_back)))
    done = int(meta.get("looks", 0) or 0)
    if meta.get("deprecated", False):
        return change
    suspended = bool(meta.get("suspended", False))
    restorable = suspended and suspension.restorable({**meta, **change}, plain.uplift)
    if looks <= done:
        restored_since_look = (stats.epoch_of(meta.get("restored_at_epoch"))
                               > stats.epoch_of(meta.get("looked_at_epoch")))
        if plain.defined and plain.uplift < NO_USE_BETWEEN_LOOKS_BELOW and not restored_since_look:
            harm = up.weighted_uplift(given, held, z=up.DEPRECATE_Z)
            margin = no_use_margin(held, rates)
            if _of_no_use(harm, meta, margin):
                change.update(_retired_as_no_use(harm, margin, "between looks", time.time()))
                return change
        if restorable:
            change.update(suspension.lifted(_not_borne_out(plain, meta, change)))
        return change
    now = time.time()
    change.update(looks=looks, looked_at_epoch=now)
    harm = up.weighted_uplift(given, held, z=up.DEPRECATE_Z)
    u = up.weighted_uplift(given, held, z=up.PROMOTE_Z)
    margin = no_use_margin(held, rates)
    if harm.high < 0:
        confirmed = ", the suspension confirmed" if suspended else ""
        change.update(deprecated=True, decision_reason=f"hurts: {_fmt(harm)}, look {looks}{confirmed}",
                      deprecated_reason=f"hurts: {_fmt(harm)}", deprecated_at=clock.iso_z(now), deprecated_at_epoch=now)
        return change
    if _of_no_use(harm, meta, margin) and not (u.low > 0 and not meta.get("promoted", False)):
        change.update(_retired_as_no_use(harm, margin, f"look {looks}", now))
        return change
    if suspended and not restorable:
        if meta.get("promoted", False) and plain.uplift is not None and plain.uplift <= 0:
            change.update(_withdrawal(meta, u, looks, now))
        change["decision_reason"] = f"suspended, harm not shown yet: {_fmt(harm)}, look {looks}"
        return change
    if restorable:
        change.update(suspension.lifted(_not_borne_out(plain, meta, change), now))
    if u.low > 0 and not meta.get("promoted", False):
        old = float(meta.get("confidence", 0.0))
        change.update(promoted=True, confidence=round(min(stats.CONFIDENCE_CAP, old + stats.PROMOTE_STEP), 4),
                      confidence_before_promotion=old, promoted_at=clock.iso_z(now), promoted_at_epoch=now,
                      decision_reason=f"helps: {_fmt(u)}, look {looks}")
    elif meta.get("promoted", False) and plain.uplift <= 0:
        change.update(_withdrawal(meta, u, looks, now))
    elif not restorable and (not meta.get("decision_reason") or not meta.get("promoted", False)):
        change["decision_reason"] = f"undecided: {_fmt(u)}, look {looks}"
    return change


def _not_borne_out(plain: up.Uplift, meta: dict[str, Any], change: dict[str, Any]) -> str:
    return (f"given in {stats.given_since_suspension({**meta, **change})} turns since, {_fmt(plain)}: "
            "the evidence does not show harm")


def _withdrawal(meta: dict[str, Any], u: up.Uplift, looks: int, now: float) -> dict[str, Any]:
    """The fields that withdraw a promotion whose uplift is no longer above zero at a look."""
    return dict(promoted=False, promoted_at="", promoted_at_epoch=0.0,
                confidence=_before_promotion(meta),
                decision_reason=f"promotion withdrawn: {_fmt(u)}, look {looks}",
                # what was withdrawn, so that a rollback to a time between the promotion and this
                # look gives it back (only the last withdrawal is kept)
                promotion_withdrawn_at=clock.iso_z(now), promotion_withdrawn_at_epoch=now,
                withdrawn_promoted_at=str(meta.get("promoted_at", "") or ""),
                withdrawn_promoted_at_epoch=stats.epoch_of(meta.get("promoted_at_epoch")),
                withdrawn_confidence=float(meta.get("confidence", 0.0) or 0.0))


def no_use_margin(held: tuple, rates: calibration.Rates = calibration.EXACT) -> float:
    """The measured lift a lesson's interval must reach to escape "no use": :data:`NO_USE_MARGIN`, or
    :data:`NO_USE_SHARE_OF_FAILURES` of the failure rate of the turns it was not given (their
    weighted rate, as in the uplift), whichever is larger, at most :data:`NO_USE_MARGIN_MAX`.

    ``held``: the not-given arm of :func:`arms_of` (turns, successes, Σw, Σw², Σw·success);
    ``rates``: the judge's (hit, miss), by which the failure rate is read on the true scale and the
    margin brought to the measured one. Without comparable turns the failures left are not known
    and the smallest margin is asked.
    """
    hit, miss = rates
    spread = max(MIN_JUDGE_SPREAD, hit - miss)
    sum_w, sum_wy = float(held[2]), float(held[4])
    if sum_w <= 0:
        return spread * NO_USE_MARGIN
    measured = min(1.0, max(0.0, sum_wy / sum_w))
    failures_left = 1.0 - min(1.0, max(0.0, (measured - miss) / spread))
    return spread * min(NO_USE_MARGIN_MAX, max(NO_USE_MARGIN, NO_USE_SHARE_OF_FAILURES * failures_left))


def _of_no_use(harm: up.Uplift, meta: dict[str, Any], margin: float) -> bool:
    """Both arms at least :data:`NO_USE_MIN_TURNS` and the interval at the harm boundary below ``margin``
    (never for a lesson the user taught)."""
    return (min(harm.effective_given, harm.effective_held_back) >= NO_USE_MIN_TURNS
            and harm.high < margin and meta.get("learned_from") != "user_feedback")


def _retired_as_no_use(harm: up.Uplift, margin: float, when: str, now: float) -> dict[str, Any]:
    """The deprecation fields for "no use", ``when`` naming the look or "between looks"."""
    return {"deprecated": True, "decision_reason": f"no use: {_fmt(harm)}, {when}",
            "deprecated_reason": f"helps by less than {margin:.3f}: {_fmt(harm)}",
            "deprecated_at": clock.iso_z(now), "deprecated_at_epoch": now}


def _before_promotion(meta: dict[str, Any]) -> float:
    """The confidence a lesson had before its promotion (one promotion step less when not recorded)."""
    before = meta.get("confidence_before_promotion")
    if isinstance(before, (int, float)) and not isinstance(before, bool):
        return float(before)
    return round(max(0.0, float(meta.get("confidence", 0.0) or 0.0) - stats.PROMOTE_STEP), 4)


def _twin_changes(agent: str, rec_id: str, row: tuple[str, str, dict, dict], fields: tuple[str, ...],
                  project_root: Path) -> dict[str, tuple[str, str, dict, dict]]:
    """The copy one ``kioku lessons learn`` wrote of the same lesson into the other scope gets the same
    deprecation, suspension or lift (``fields`` of the change; ``kioku.lessons.lesson_state.twins_of``):
    the hooks would otherwise give that copy in its place, and its evidence would start again from nothing."""
    from types import SimpleNamespace

    from kioku.lessons.lesson_state import twins_of

    scope, doc, meta, change = row
    decided = {k: change[k] for k in fields if k in change}
    out = {}
    for twin_scope, twin in twins_of(agent, [(scope, SimpleNamespace(id=rec_id, document=doc, metadata=meta))],
                                     project_root):
        if not (twin.metadata or {}).get("deprecated"):
            out[twin.id] = (twin_scope, twin.document, dict(twin.metadata or {}), dict(decided))
    return out


def _flip(meta: dict[str, Any], change: dict[str, Any]) -> tuple[str, tuple[str, ...]] | None:
    """What the change decides that the other scope's copy must take too: (what, fields), or None."""
    if change.get("deprecated") and not meta.get("deprecated"):
        return "deprecated", DEPRECATION_FIELDS
    if "suspended" in change and bool(change["suspended"]) != bool(meta.get("suspended")):
        return "suspended", suspension.SUSPENSION_FIELDS
    return None


def refresh(agent: str, lessons: dict[str, str], project_root: Path, *, hurts: Sequence[Hurt] = (),
            withdrawn: Sequence[tuple[str, str, str]] = ()) -> dict[str, str]:
    """Recompute the evidence of ``lessons`` (id -> scope), decide, write; returns id -> decision.

    ``hurts``: new "hurt" verdicts (``kioku.learning.attribution.record_turn``), each suspending its
    lesson (``kioku.learning.suspension.suspend``); ``withdrawn``: (lesson, session, turn) whose hurt
    a new judgement of the turn no longer holds, lifting a suspension that turn caused.
    """
    lessons = {**lessons, **{h.lesson: h.scope for h in hurts if h.lesson not in lessons}}
    if not lessons:
        return {}
    by_scope: dict[str, list[str]] = {}
    for rec_id, scope in lessons.items():
        by_scope.setdefault(scope, []).append(rec_id)
    with fsutil.exclusive_lock(usage.usage_lock(agent), timeout=120):
        records = usage.read_lessons(agent, by_scope, project_root)
        counts = evidence.weighted_totals(agent, sorted(records))
        mix = evidence.judges(agent, sorted(records))
        last = evidence.last_given(agent, sorted(records))
        changes = {}
        flipped = []
        for rec_id, (scope, doc, meta) in records.items():
            change = decide(meta, counts[rec_id], calibration.mixed(mix.get(rec_id, {})))
            if last.get(rec_id, 0.0) > float(meta.get("last_used_epoch", 0.0) or 0.0):
                change.update(last_used=clock.iso_z(last[rec_id]), last_used_epoch=last[rec_id])
            for lesson, session, turn in withdrawn:
                if lesson == rec_id:
                    change.update(suspension.withdrawn({**meta, **change}, session, turn))
            for hurt in hurts:
                if hurt.lesson == rec_id:
                    change.update(suspension.suspend(agent, {**meta, **change}, hurt))
            changes[rec_id] = (scope, doc, meta, change)
            flip = _flip(meta, change)
            if flip:
                flipped.append((rec_id, flip))
        for rec_id, (what, fields) in flipped:
            try:
                twins = _twin_changes(agent, rec_id, changes[rec_id], fields, project_root)
            except Exception as exc:  # noqa: BLE001 - an unreadable other scope must not cost this lesson's own write
                log.warning("kioku: the other scope's copy of lesson %s was not %s with it (%s: %s)",
                            rec_id, what, type(exc).__name__, exc)
                continue
            for twin_id, (t_scope, t_doc, t_meta, decided) in twins.items():
                if twin_id in changes:  # both copies refreshed at once: the twin's change takes it too
                    own = changes[twin_id]
                    if not own[3].get("deprecated") and _flip(own[2], own[3]) is None:
                        own[3].update(decided)
                else:
                    changes[twin_id] = (t_scope, t_doc, t_meta, decided)
        usage.write_lesson_fields(agent, changes, project_root)
    return {rec_id: stats.decision_of({**meta, **change}) for rec_id, (_s, _d, meta, change) in changes.items()
            if rec_id in lessons}
