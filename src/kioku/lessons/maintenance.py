"""Daily / weekly / monthly maintenance of an agent's memory, and running it when due.

- daily (:func:`run_daily`): performance snapshot, the agent's records checked for reach by vector
  search (those it misses indexed again, :func:`reindex_agent`), full digest rebuild, old session
  ledgers pruned, stamp written. (Lessons are promoted and deprecated as evidence arrives, by
  ``kioku.learning.lifecycle`` when a turn is credited, not on a schedule.)
- weekly (:func:`run_weekly`): top and bottom improvements by their measured uplift (lessons with
  given and held-back turns; best by the interval's low end, worst by its high end), the
  snapshots of the last 7 days against the 7 before (quality/success trends), new improvements.
- monthly (:func:`run_monthly`): evaluations older than ``older_than_days`` (default 90) and
  improvements deprecated longer ago than that are first appended (fsync) to JSON Lines files
  ``<KIOKU_HOME>/archive/<agent>/evaluations-<date>.jsonl`` / ``improvements-deprecated-<date>.jsonl``
  and only then deleted from Chroma: archived, never lost (``kioku lessons import`` reads them back).

Running by itself: :func:`run_due_in_background` is standard library only and cheap (one stat):
when the daily stamp ``<state_dir>/maintenance/<agent>.daily`` is older than a day (and no spawn
happened in the last 10 minutes) it starts a detached ``python -m kioku lessons maintain --agent X --daily
--if-due`` and returns at once. Hooks never call it; the background worker does after recording
an evaluation. ``--if-due`` re-checks the stamp under a non-blocking lock, so concurrent spawns
run the work once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kioku.infra import clock, fsutil, paths
from kioku.lessons.store.journal_lines import identifies
from kioku.text.secrets import redact_value
from kioku.infra.names import agent_file_stem

DAY = 86400.0
SPAWN_GRACE = 600.0
DEFAULT_ARCHIVE_DAYS = 90
MAINTENANCE_LOG_BYTES = 1024 * 1024  # the background runs' stderr; rotated past this size


def stamp_path(agent: str) -> Path:
    return paths.state_dir() / "maintenance" / f"{agent_file_stem(agent)}.daily"


def is_due(agent: str, now: float | None = None) -> bool:
    try:
        return (now or time.time()) - stamp_path(agent).stat().st_mtime >= DAY
    except FileNotFoundError:
        return True


def run_due_in_background(agent: str, project_root: Path | None = None) -> bool:
    """Spawn detached daily maintenance if due; True when a process was started.

    ``KIOKU_BACKGROUND_MAINTENANCE=0`` (or the ``KIOKU_DISABLE`` kill switch) turns it off, e.g. in
    test suites that record many evaluations; ``kioku lessons maintain --daily`` still works by hand.
    """
    if os.environ.get("KIOKU_BACKGROUND_MAINTENANCE", "1").strip().lower() in {"0", "false", "no", "off"}:
        return False
    from kioku.infra.env import kill_switch_set

    if not agent or kill_switch_set() or not is_due(agent):
        return False
    marker = stamp_path(agent).with_suffix(".spawned")
    try:
        if time.time() - marker.stat().st_mtime < SPAWN_GRACE:
            return False
    except FileNotFoundError:
        pass
    fsutil.atomic_write_text(marker, str(time.time()))
    log = paths.logs_dir()
    fsutil.ensure_private_dir(log)
    target = log / "maintenance.log"
    if target.exists() and target.stat().st_size > MAINTENANCE_LOG_BYTES:
        os.replace(target, log / "maintenance.log.1")  # the previous one is kept, older ones go
    with os.fdopen(os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, fsutil.FILE_MODE), "ab") as err:
        subprocess.Popen(
            [sys.executable, "-m", "kioku", "lessons", "maintain", "--agent", agent, "--daily", "--if-due"],
            cwd=str(project_root or paths.find_project_root()), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True, close_fds=True,
        )
    return True


def run_daily(agent: str, project_root: Path | None = None) -> dict[str, Any]:
    from kioku.lessons import performance, usage
    from kioku.lessons.digest_refresh import refresh_digest
    from kioku.lessons.scopes import validate_agent

    agent = validate_agent(agent)
    metrics = performance.snapshot(agent, project_root)
    reindexed = reindex_agent(agent, project_root)
    refresh_digest(agent, None, project_root)
    pruned = usage.prune_sessions()
    fsutil.atomic_write_text(stamp_path(agent), clock.iso_offset())
    return {"agent": agent, "kind": "daily", "metrics": metrics, "sessions_pruned": pruned,
            "reindexed": reindexed}


def reindex_agent(agent: str, project_root: Path | None = None) -> dict[str, int]:
    """Per scope, how many of the agent's records vector search could not reach and were indexed
    again (``AgentStore.reindex_unreachable``); a scope whose store cannot be checked is skipped
    with a warning on stderr (the maintenance log)."""
    from kioku.lessons.store import reachability
    from kioku.lessons import scopes as sc

    out: dict[str, int] = {}
    for scope in sc.existing_scopes(project_root):
        try:
            found = sc.open_scope(scope, project_root).reindex_unreachable(agent)
        except Exception as exc:  # noqa: BLE001 - the rest of the daily run still happens
            print(f"kioku: {scope} vector index of {agent} not checked: {exc}", file=sys.stderr)
            continue
        _checked, out[scope], lost = reachability.totals(found)
        if lost:
            print(f"kioku: {lost} record(s) of {agent} in the {scope} store cannot be reached by vector "
                  f"search; `kioku store rebuild --scope {scope}` replays the journal", file=sys.stderr)
    return out


def run_if_due(agent: str, project_root: Path | None = None) -> dict[str, Any] | None:
    lock = stamp_path(agent).with_suffix(".lock")
    with fsutil.try_lock(lock) as got:
        if not got or not is_due(agent):
            return None
        return run_daily(agent, project_root)


def _row(scope: str, rec: Any) -> dict[str, Any]:
    from kioku.lessons import stats

    m = rec.metadata or {}
    s, n = stats.usage_of(m)
    ev = stats.lesson_evidence(m)
    return {"id": rec.id, "improvement": rec.document, "scope": scope, "uses": n, "successes": s,
            "success_rate": m.get("success_rate", -1.0), "wilson_lower": stats.wilson_of(m),
            "confidence": m.get("confidence"), "deprecated": bool(m.get("deprecated", False)),
            **{k: ev[k] for k in ("turns_given", "turns_held_back", "uplift", "uplift_low", "uplift_high",
                                  "decision", "decision_reason")}}


def run_weekly(agent: str, project_root: Path | None = None, top: int = 5) -> dict[str, Any]:
    from kioku.lessons import performance
    from kioku.lessons.improvements import all_improvements
    from kioku.lessons.scopes import validate_agent

    agent = validate_agent(agent)
    now_epoch = time.time()
    recs = all_improvements(agent, project_root)
    # ranked by the evidence the lifecycle decides on (uplift against held-back turns), not by
    # the absolute success rate, which says more about the tasks than about the lesson
    measured = [_row(s, r) for s, r in recs]
    measured = [r for r in measured if r["uplift"] is not None]
    # the top are lessons measured to help (a lesson with uplift -0.73 is not a "top" one however
    # few lessons there are), the bottom the others, worst first
    best = sorted((r for r in measured if r["uplift"] > 0), key=lambda r: (-r["uplift_low"], -r["uplift"], r["id"]))
    worst = sorted(measured, key=lambda r: (r["uplift_high"], r["uplift"], r["id"]))
    top_ids = {r["id"] for r in best[:top]}
    week = [m for m in performance.snapshots(agent, project_root, now_epoch - 14 * DAY)]
    this_week = [m for m in week if float(m.get("timestamp_epoch", 0)) >= now_epoch - 7 * DAY]
    last_week = [m for m in week if float(m.get("timestamp_epoch", 0)) < now_epoch - 7 * DAY]

    def avg(rows: list[dict], key: str) -> float | None:
        # a snapshot that measured nothing (no evaluations, or no turn with a task for the
        # success rate) is no data, not a 0 that would look like a drop
        count = "success_turns" if key == "success_rate" else "evaluations"
        rows = [r for r in rows if float(r.get(count, 1) or 0) > 0]
        return round(sum(float(r.get(key, 0.0)) for r in rows) / len(rows), 3) if rows else None

    trends = {key: {"this_week": avg(this_week, key), "last_week": avg(last_week, key)}
              for key in ("success_rate", "avg_quality", "avg_tokens", "avg_duration_s")}
    new = sum(1 for _, r in recs if float((r.metadata or {}).get("created_at_epoch", 0)) >= now_epoch - 7 * DAY)
    return {"agent": agent, "kind": "weekly", "measured": len(measured), "top_improvements": best[:top],
            # worst first, never repeating an item already listed as a top one
            "bottom_improvements": [r for r in worst if r["id"] not in top_ids][:top],
            "trends": trends, "current": performance.current_metrics(agent, project_root),
            "improvements_last_7_days": new}


def _archive(agent: str, name: str, rows: list[dict]) -> Path:
    folder = paths.kioku_home() / "archive" / agent_file_stem(agent)
    path = folder / f"{name}-{clock.utc_day()}.jsonl"
    with fsutil.exclusive_lock(path.with_suffix(".lock")):
        fsutil.ensure_private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, fsutil.FILE_MODE)
        try:
            rows = [redact_value(r, keep=identifies) for r in rows]  # an archive keeps no secret either
            os.write(fd, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    return path


def archive_records(agent: str, kind: str, scope: str, recs: list[Any], name: str,
                    project_root: Path | None = None) -> Path | None:
    """Append records to the archive (fsync) and only then delete them from the store."""
    from kioku.lessons import scopes as sc

    if not recs:
        return None
    rows = [{"agent": agent, "kind": kind, "scope": scope, "id": r.id, "document": r.document,
             "metadata": r.metadata, "archived_at": clock.iso_offset()} for r in recs]
    path = _archive(agent, name, rows)
    sc.open_scope(scope, project_root).delete(agent, kind, [r.id for r in recs])
    return path


def run_monthly(agent: str, project_root: Path | None = None,
                older_than_days: float = DEFAULT_ARCHIVE_DAYS) -> dict[str, Any]:
    from kioku.lessons import scopes as sc
    from kioku.lessons.stats import epoch_of
    from kioku.lessons.digest_refresh import refresh_digest

    agent = sc.validate_agent(agent)
    if not (isinstance(older_than_days, (int, float)) and 1 <= older_than_days < 100_000):
        from kioku.infra.errors import UsageError

        # 0 or less would archive today's evaluations and prune lessons deprecated today
        raise UsageError(f"--older-than must be at least 1 day (got {older_than_days})")
    cutoff = time.time() - older_than_days * DAY
    report: dict[str, Any] = {"agent": agent, "kind": "monthly", "older_than_days": older_than_days,
                              "evaluations_archived": 0, "improvements_pruned": 0, "archives": []}
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        old = store.get(agent, "evaluations", where={"timestamp_epoch": {"$lt": cutoff}})
        path = archive_records(agent, "evaluations", scope, old, "evaluations", project_root)
        if path:
            report["evaluations_archived"] += len(old)
            report["archives"].append(str(path))
        # A deprecated lesson stays in the store (where `kioku lessons restore` finds it and a relearn of
        # the same text is refused) until it has been deprecated for the archive age; one
        # without a recorded deprecation time stays.
        dead = [r for r in store.get(agent, "improvements") if (r.metadata or {}).get("deprecated")
                and 0 < epoch_of((r.metadata or {}).get("deprecated_at_epoch")) < cutoff]
        path = archive_records(agent, "improvements", scope, dead, "improvements-deprecated",
                               project_root)
        if path:
            report["improvements_pruned"] += len(dead)
            report["archives"].append(str(path))
    refresh_digest(agent, None, project_root)
    report["archives"] = sorted(set(report["archives"]))
    return report
