"""Rollback to a timestamp and A/B clones of an agent's memory.

Rollback (``kioku lessons rollback --agent NAME --to TIMESTAMP``):
- every improvement *created* after the timestamp (own lessons, imported ones and transferred
  principles, in both scopes) is appended to ``<KIOKU_HOME>/archive/<agent>/rollback-<date>.jsonl``
  (fsync) and then deleted, so nothing is lost and ``kioku lessons import`` can bring it back;
- decisions taken after the timestamp on older improvements are undone: a deprecation
  (``deprecated_at_epoch`` > ts) is lifted and the lesson counts as restored (``restored_at``: the
  evidence that retired it waits for its next look, as after ``kioku lessons restore``), a suspension
  (``suspended_at_epoch`` > ts, ``kioku.learning.suspension``) is lifted, a promotion is
  reverted to ``confidence_before_promotion``, a cross-validation is removed, and a promotion in
  force at the timestamp and withdrawn after it (``kioku.learning.lifecycle`` records the last
  withdrawal: ``withdrawn_promoted_at``, ``withdrawn_confidence``) is given back, also when the
  lesson was promoted again since. Only the last withdrawal is recorded, so one followed by
  another is not given back;
- usage counters (usage_count, success_count, success_rate, last_used) are kept: they record real
  session outcomes, and per-use history is not stored, so they cannot be rewound honestly. The
  next daily maintenance re-applies the deprecate/promote rules to them;
- evaluations and performance snapshots are history and stay.
TIMESTAMP is ISO-8601 (date or date-time; no zone = UTC) or epoch seconds.

Clone (``kioku lessons clone --agent A --to B``): copies A's improvements, evaluations and performance
snapshots in every scope into B's collections. Improvement ids are re-derived for B (so B learning
the same lesson later updates the copy), ``agent_name`` becomes B, ``cloned_from`` = A and
``original_id`` keeps A's id. A must have memory (a name without any is refused, since it is
most likely a typo) and B must have none yet; nothing is written when either check fails.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import KIND, now
from kioku.infra.errors import UsageError

KINDS = ("improvements", "evaluations", "performance")
BATCH = 500


_FIRST_SECOND, _LAST_SECOND = -62135596800.0, 253402300799.0  # 0001-01-01 and 9999-12-31T23:59:59, UTC


def parse_timestamp(value: str | float) -> float:
    """Epoch seconds from an ISO-8601 date/date-time (naive = UTC) or a number, within the
    years 1-9999 UTC (the dates Python can show: nan, 1e30 and 0001-01-01T00:00:00+01:00 were a
    traceback in rollback)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        try:
            when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise UsageError(f"cannot read timestamp {value!r}: use ISO-8601 (2026-11-01T12:00:00Z) "
                             "or epoch seconds") from None
        number = (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()
    if not _FIRST_SECOND <= number <= _LAST_SECOND:  # also false for nan
        raise UsageError(f"cannot read timestamp {value!r}: not a time between the years 1 and 9999")
    return number


def _received(meta: dict) -> float:
    """When this agent got the lesson: learned, or imported or cloned into it (those keep the
    original's creation time, so rollback could not undo an import or a clone)."""
    cloned = 0.0
    if meta.get("cloned_at") and not meta.get("cloned_at_epoch"):
        try:
            cloned = parse_timestamp(str(meta["cloned_at"]))
        except UsageError:
            cloned = 0.0
    return max(_f(meta, "created_at_epoch"), _f(meta, "imported_at_epoch"), _f(meta, "cloned_at_epoch"), cloned)


def _f(meta: dict, key: str) -> float:
    try:
        return float(meta.get(key, 0.0) or 0.0)
    except (TypeError, ValueError):
        return 0.0


def rollback(agent: str, to: str | float, project_root: Path | None = None, *,
             dry_run: bool = False) -> dict[str, Any]:
    from kioku.lessons.digest_refresh import refresh_digest
    from kioku.lessons.maintenance import archive_records

    agent = sc.validate_agent(agent)
    ts = parse_timestamp(to)
    iso, epoch = now()
    report: dict[str, Any] = {"agent": agent, "to": datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(),
                              "dry_run": dry_run, "removed": [], "undeprecated": [], "unpromoted": [],
                              "repromoted": [], "uncross_validated": [], "unsuspended": [], "archive": None}
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        recs = store.get(agent, KIND)
        later = [r for r in recs if _received(r.metadata or {}) > ts]
        report["removed"] += [{"id": r.id, "scope": scope, "improvement": r.document} for r in later]
        later_ids = {r.id for r in later}
        ids, changes = [], []
        for rec in recs:
            if rec.id in later_ids:
                continue
            m, change = rec.metadata or {}, {}
            if m.get("deprecated") and _f(m, "deprecated_at_epoch") > ts:
                # brought back like `kioku lessons restore`: the evidence that retired it waits for its next look
                change.update(deprecated=False, deprecated_reason="", deprecated_at="", deprecated_at_epoch=0.0,
                              restored_at=iso, restored_at_epoch=epoch)
                report["undeprecated"].append(rec.id)
            if m.get("suspended") and _f(m, "suspended_at_epoch") > ts:
                # suspended after the cut (kioku.learning.suspension): lifted, its evidence kept
                change.update(suspended=False, suspension_lifted_at=iso, suspension_lifted_at_epoch=epoch)
                report["unsuspended"].append(rec.id)
            withdrawn_at = _f(m, "promotion_withdrawn_at_epoch")
            promoted_at_cut = 0.0 < _f(m, "withdrawn_promoted_at_epoch") <= ts < withdrawn_at
            if m.get("promoted") and _f(m, "promoted_at_epoch") > ts:
                if promoted_at_cut:  # promoted again after a withdrawal: the promotion in force at the cut
                    change.update(_withdrawn_promotion(m))
                    report["repromoted"].append(rec.id)
                else:
                    change.update(promoted=False, promoted_at="", promoted_at_epoch=0.0,
                                  confidence=float(m.get("confidence_before_promotion", m.get("confidence", 0.7))))
                    report["unpromoted"].append(rec.id)
            elif not m.get("promoted") and promoted_at_cut:  # its promotion was withdrawn after the cut
                change.update(_withdrawn_promotion(m))
                report["repromoted"].append(rec.id)
            if m.get("cross_validated") and _f(m, "cross_validated_at_epoch") > ts:
                change.update(cross_validated=False, validating_agents="", cross_validated_at="",
                              cross_validated_at_epoch=0.0)
                # one after the withdrawal recorded the lowered confidence: the one given back never had its raise
                given_back_since = promoted_at_cut and _f(m, "cross_validated_at_epoch") > withdrawn_at
                if isinstance(m.get("confidence_before_cross_validation"), (int, float)) and not given_back_since:
                    # the raise to 0.7 made a user-feedback candidate active: it goes with the validation
                    change["confidence"] = min(float(change.get("confidence", m.get("confidence", 0.0))),
                                               float(m["confidence_before_cross_validation"]))
                report["uncross_validated"].append(rec.id)
            if change:
                change.update(updated_at=iso, updated_at_epoch=epoch, rolled_back_at=iso)
                ids.append(rec.id)
                changes.append(change)
        if dry_run:
            continue
        path = archive_records(agent, KIND, scope, later, "rollback", project_root)
        if path:
            report["archive"] = str(path)
        store.update_metadata(agent, KIND, ids, changes)
    if not dry_run:
        refresh_digest(agent, None, project_root)
    return report


def _withdrawn_promotion(m: dict) -> dict[str, Any]:
    """The fields that give back the promotion ``kioku.learning.lifecycle`` last withdrew, with the
    confidence it had before the withdrawal lowered it."""
    return {"promoted": True, "promoted_at": str(m.get("withdrawn_promoted_at", "") or ""),
            "promoted_at_epoch": _f(m, "withdrawn_promoted_at_epoch"),
            "confidence": _f(m, "withdrawn_confidence") or float(m.get("confidence", 0.7)),
            "promotion_withdrawn_at": "", "promotion_withdrawn_at_epoch": 0.0}


def clone(src: str, dst: str, project_root: Path | None = None) -> dict[str, Any]:
    from kioku.lessons.store.client import Record
    from kioku.lessons.digest_refresh import refresh_digest

    src, dst = sc.validate_agent(src), sc.validate_agent(dst)
    if src == dst:
        raise UsageError("clone needs two different agent names")
    scopes = sc.existing_scopes(project_root)
    if not any(sc.open_scope(scope, project_root).count(src, kind) for scope in scopes for kind in KINDS):
        raise UsageError(f"agent {src!r} has no memory to clone; nothing was written")
    for scope in scopes:
        store = sc.open_scope(scope, project_root)
        if any(store.count(dst, kind) for kind in KINDS):
            raise UsageError(f"agent {dst!r} already has memory in the {scope} scope; "
                             "clone into a new name (or roll it back / export it first)")
    iso, epoch = now()
    counts: dict[str, int] = {}
    renamed: list[tuple[str, str, str, str]] = []
    for scope in scopes:
        store = sc.open_scope(scope, project_root)
        for kind in KINDS:
            out: list[Any] = []
            for rec in store.get(src, kind):
                meta = {**(rec.metadata or {}), "agent_name": dst, "cloned_from": src, "cloned_at": iso,
                        "cloned_at_epoch": epoch}
                rec_id = rec.id
                if kind == KIND:
                    rec_id = sc.improvement_id(dst, scope, rec.document)
                    meta["original_id"] = meta.get("original_id") or rec.id
                    renamed.append((src, rec.id, dst, rec_id))
                out.append(Record(id=rec_id, document=rec.document, metadata=meta))
            for i in range(0, len(out), BATCH):
                store.upsert(dst, kind, out[i:i + BATCH])
            counts[f"{scope}.{kind}"] = len(out)
    refresh_digest(dst, None, project_root)
    # "renamed": (agent, lesson id) pairs whose credit evidence the caller copies to the clone
    # (kioku.learning.evidence.copy_lessons), so its lessons' figures never go backwards
    return {"from": src, "to": dst, "copied": counts, "renamed": renamed}
