"""Performance metrics over an agent's recent evaluations, stored as snapshots.

Window: the last :data:`WINDOW_MAX` (100) evaluations of the last :data:`WINDOW_DAYS` (30) days,
read from every existing scope (evaluations are written by ``kioku.evaluation`` with the metadata
keys success, quality, duration_s, tokens, insights_count, timestamp_epoch...).

Metrics (:func:`compute_metrics`): ``evaluations`` (n), ``success_rate`` (share of success=True
among ``success_turns``: the turns that had a task and were not interrupted, so per-turn records
with ``outcome`` ``no_task`` or ``interrupted`` are left out; records without ``outcome`` all
count), ``success_turns``, ``avg_quality``, ``quality_trend`` (mean quality of the newer half
minus the older half; 0.0 with fewer than 2), ``avg_duration_s``, ``avg_tokens``, ``insights_count`` (sum), ``improvements_stored``
(improvements created in the window, all scopes), ``improving`` (trend > 0). With no evaluations
the rates are 0.0 and ``evaluations`` is 0.

:func:`snapshot` stores them in the global ``agent_{name}_performance`` collection: id
``perf_<epoch ms>``, document = one-line summary, metadata = the metrics + ``agent_name``,
``timestamp`` / ``timestamp_epoch`` (all scalars; Chroma has no None).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

from kioku.lessons import scopes as sc

WINDOW_DAYS = 30
WINDOW_MAX = 100
# Per-turn outcomes that say nothing about success: no task was asked, or the user stopped the turn.
NOT_JUDGED = frozenset({"no_task", "interrupted"})


def _f(meta: dict, key: str, default: float = 0.0) -> float:
    try:
        return float(meta.get(key, default))
    except (TypeError, ValueError):
        return default


def recent_evaluations(agent: str, project_root: Path | None = None, days: float = WINDOW_DAYS,
                       limit: int = WINDOW_MAX, *, now_epoch: float | None = None) -> list[Any]:
    """Newest ``limit`` evaluations of the last ``days`` days, oldest first."""
    cutoff = (now_epoch or time.time()) - days * 86400
    found: dict[str, Any] = {}
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        # a range filter on a recent window matches a small share of an old collection
        for rec in store.get(agent, "evaluations", where={"timestamp_epoch": {"$gte": cutoff}}):
            found.setdefault(rec.id, rec)
    ordered = sorted(found.values(), key=lambda r: _f(r.metadata, "timestamp_epoch"))
    return ordered[-limit:] if limit else ordered


def improvements_created_since(agent: str, since_epoch: float, project_root: Path | None = None) -> int:
    total = 0
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        total += len(store.get(agent, "improvements", where={"created_at_epoch": {"$gte": since_epoch}}))
    return total


def compute_metrics(evaluations: Sequence[Any], improvements_stored: int = 0) -> dict[str, Any]:
    metas = [r.metadata or {} for r in evaluations]
    n = len(metas)
    qualities = [_f(m, "quality") for m in metas]
    half = n // 2
    trend = 0.0
    if n >= 2:
        older, newer = qualities[:half], qualities[half:]
        trend = sum(newer) / len(newer) - sum(older) / len(older)

    def mean(key: str) -> float:
        return round(sum(_f(m, key) for m in metas) / n, 3) if n else 0.0

    judged = [m for m in metas if m.get("outcome") not in NOT_JUDGED]
    return {
        "evaluations": n,
        "success_turns": len(judged),
        "success_rate": round(sum(1 for m in judged if m.get("success") is True) / len(judged), 4) if judged else 0.0,
        "avg_quality": round(sum(qualities) / n, 2) if n else 0.0,
        "quality_trend": round(trend, 2),
        "avg_duration_s": mean("duration_s"),
        "avg_tokens": mean("tokens"),
        # tool errors are what the self-evaluation counts first; shown by the dashboard
        "tool_errors": int(sum(_f(m, "tool_errors") for m in metas)),
        "avg_tool_errors": mean("tool_errors"),
        "insights_count": int(sum(_f(m, "insights_count") for m in metas)),
        "improvements_stored": int(improvements_stored),
        "improving": trend > 0,
    }


def current_metrics(agent: str, project_root: Path | None = None, *,
                    now_epoch: float | None = None) -> dict[str, Any]:
    now_epoch = now_epoch or time.time()
    evals = recent_evaluations(agent, project_root, now_epoch=now_epoch)
    stored = improvements_created_since(agent, now_epoch - WINDOW_DAYS * 86400, project_root)
    metrics = compute_metrics(evals, stored)
    metrics["window_days"] = WINDOW_DAYS
    return metrics


def snapshot(agent: str, project_root: Path | None = None) -> dict[str, Any]:
    """Compute the metrics now and store them in the global performance collection, unless
    there is nothing to measure: a snapshot of no evaluations would read as 0 % success in the
    trends (and a mistyped agent name would leave a record behind)."""
    from kioku.lessons.store.client import Record
    from kioku.lessons.improvements import now

    agent = sc.validate_agent(agent)
    iso, epoch = now()
    metrics = current_metrics(agent, project_root, now_epoch=epoch)
    meta = {**metrics, "agent_name": agent, "timestamp": iso, "timestamp_epoch": epoch,
            "stored": bool(metrics["evaluations"])}
    if not metrics["evaluations"]:
        return meta
    summary = (f"{agent} performance at {iso}: {metrics['evaluations']} evaluations, success "
               f"{metrics['success_rate']:.0%} of {metrics['success_turns']} turns with a task, "
               f"quality {metrics['avg_quality']:.1f} "
               f"(trend {metrics['quality_trend']:+.1f}), {metrics['improvements_stored']} improvements stored")
    store = sc.open_scope("global", project_root)
    stored = {k: v for k, v in meta.items() if k != "stored"}
    store.upsert(agent, "performance", [Record(id=f"perf_{int(epoch * 1000)}", document=summary, metadata=stored)])
    return meta


def snapshots(agent: str, project_root: Path | None = None, since_epoch: float = 0.0) -> list[dict]:
    """Stored snapshots (metadata dicts), oldest first."""
    if not sc.scope_exists("global", project_root):
        return []
    store = sc.open_scope("global", project_root)
    where = {"timestamp_epoch": {"$gte": since_epoch}} if since_epoch else None
    recs = store.get(agent, "performance", where=where)
    return sorted((r.metadata for r in recs), key=lambda m: _f(m, "timestamp_epoch"))


def latest_snapshot(agent: str, project_root: Path | None = None) -> dict | None:
    snaps = snapshots(agent, project_root)
    return snaps[-1] if snaps else None
