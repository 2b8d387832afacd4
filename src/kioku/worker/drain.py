"""Drain the hook job queue: incremental self-evaluation of finished turns and subagent tasks.

``drain(wait=False)`` takes the worker lease (``kioku.infra.lease``: non-blocking, or waiting with
``wait``; renewed before each job, and taken over from a worker that stopped renewing it), runs
every queued job oldest first, and after releasing the lease looks again - a hook that found
it held just before we released it did not start a worker, so its job would otherwise
wait for the next hook. Jobs for the same transcript are run once, as the newest of them (with
"the session ended" if any of them says so). An ``evaluate`` job is
``kioku.worker.evaluate.run_evaluate``. A job it reports ``deferred`` (a model could not be
reached just now) stays queued for the next worker. A full disk or a store that does not answer
stops the drain with the job still queued (``stopped`` in the report; a job the store failed
:data:`MAX_STORE_ATTEMPTS` times fails). Any other exception moves the job to ``jobs/failed/``
with a one-line error (``kioku worker --retry-failed`` re-queues them; ``kioku doctor`` lists
the reasons) and the queue moves on. After the jobs, memories and
lessons saved since are enriched for search where a model may be called
(``kioku.worker.enrich``). The log (``<logs>/worker.log``) holds job names, agents, scores and
errors - never prompt text.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any, Callable

from kioku.evaluation import transcript as tr
from kioku.infra import fsutil, jobs, lease
from kioku.infra.errors import DiskFull
from kioku.lessons.digest_refresh import rebuild_digests_job
from kioku.lessons.store.errors import StoreTimeout
from kioku.worker.evaluate import LAG_WAIT_S, log_line as _log, queue_idle_sessions, run_evaluate
from kioku.worker.judging import ENDING_EVENTS

LOCK_WAIT_S = 600.0
MAX_STORE_ATTEMPTS = 3  # a job the store did not answer this many times fails instead of staying queued


HANDLERS = {"evaluate": run_evaluate, "rebuild_digests": rebuild_digests_job}


def _run_queue(report: dict[str, Any], lag_wait: float, max_jobs: int | None, tried: set[str],
               renew: Callable[[], None] = lambda: None) -> None:
    """Run queued jobs until none is left that is not in ``tried`` (job file names); ``renew``
    renews the worker's lease before each job.

    Each job is tried at most once per drain: whatever a handler does, a job that is still
    queued afterwards is left for the next worker instead of being retried in a busy loop. A full
    disk or a store that does not answer stops the drain with the job still queued (``stopped``
    in the report); a job the store failed to answer :data:`MAX_STORE_ATTEMPTS` times fails.
    """
    while True:
        queue = _untried(tried)
        if not queue:
            return
        for job_path in queue:
            if max_jobs is not None and report["processed"] + report["failed"] >= max_jobs:
                return
            tried.add(job_path.name)
            renew()
            try:
                job = jobs.load(job_path)
            except FileNotFoundError:
                continue  # the job file itself is gone: another worker (with --wait) finished it
            except (OSError, ValueError) as exc:
                _fail(report, job_path, exc)
                continue
            same = _same_transcript(job, job_path, tried)
            if same:
                jobs.done(job_path)  # a newer job for the same transcript runs instead
                if str(job.get("event") or "") in ENDING_EVENTS:
                    _carry_ending(same[-1], str(job["event"]))
                continue
            try:
                handler = HANDLERS.get(str(job.get("kind", "evaluate")))
                if handler is None:
                    raise ValueError(f"unknown job kind {job.get('kind')!r}")
                outcome = handler(job, lag_wait=lag_wait)
                if outcome.get("status") != "deferred":
                    jobs.done(job_path)
                report["processed"] += 1
                report["results"].append(outcome)
                _log(f"{job_path.name} agent={job.get('agent')} {outcome.get('status')} "
                     f"quality={outcome.get('quality', '-')}")
            except (DiskFull, StoreTimeout) as exc:  # the job is fine, the disk or the store is not
                if _stop(report, job_path, exc):
                    return
            except Exception as exc:  # noqa: BLE001 - a bad job must not stop the queue
                _fail(report, job_path, exc)


def _same_transcript(job: dict[str, Any], job_path: Path, tried: set[str]) -> list[Path]:
    """Newer queued jobs of the same kind, agent and transcript as ``job`` (oldest first)."""
    out = []
    for other in jobs.pending():
        if other.name <= job_path.name or other.name in tried:
            continue
        try:
            data = jobs.load(other)
        except (OSError, ValueError):
            continue
        if all(data.get(k) == job.get(k) for k in ("kind", "agent", "transcript_path", "project_root")):
            out.append(other)
    return out


def _carry_ending(job_path: Path, event: str) -> None:
    """Tell the newer job that the session ended (an older SessionEnd was folded into it)."""
    import json

    try:
        data = jobs.load(job_path)
        if str(data.get("event") or "") not in ENDING_EVENTS:
            data["event"] = event
            fsutil.atomic_write_text(job_path, json.dumps(data, ensure_ascii=False))
    except (OSError, ValueError):
        pass


def _stop(report: dict[str, Any], job_path: Path, exc: BaseException) -> bool:
    """A full disk or a stuck store: keep the job queued with the reason and stop the drain
    (True); a job the store failed :data:`MAX_STORE_ATTEMPTS` times fails instead (False)."""
    reason = " ".join(str(exc).split())
    if isinstance(exc, StoreTimeout):
        try:
            if jobs.note_attempt(job_path, reason) >= MAX_STORE_ATTEMPTS:
                _fail(report, job_path, exc)
                return False
        except (OSError, ValueError):
            pass
    report["stopped"] = reason
    _log(f"{job_path.name} stays queued: {reason}")
    return True


def _untried(tried: set[str]) -> list[Path]:
    """Queued job files this drain has not tried yet, oldest first."""
    return [p for p in jobs.pending() if p.name not in tried]


def _fail(report: dict[str, Any], job_path: Path, exc: BaseException) -> None:
    """Move the job to ``jobs/failed/`` with a one-line reason, count it and log it."""
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())
    jobs.fail(job_path, reason)
    report["failed"] += 1
    report["errors"].append(f"{job_path.name}: {reason[:300]}")
    _log(f"{job_path.name} failed: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")


def _enrich_once(report: dict[str, Any]) -> None:
    """The enrichment step, once a drain, under the worker lock (one worker calls a model at a time,
    and a caller waiting for the worker to be idle waits for it too)."""
    if "enrichment" not in report:
        report["enrichment"] = _enrich_wanted()


def _enrich_wanted() -> dict[str, Any]:
    """The enrichment step (``kioku.worker.enrich``); a failure there is logged, never raised."""
    from kioku.worker.enrich import enrich_wanted

    try:
        summary = enrich_wanted()
    except Exception as exc:  # noqa: BLE001 - enrichment is derived data: the jobs are done
        _log(f"enrichment failed: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")
        return {"error": f"{type(exc).__name__}: {exc}"}
    if summary:
        _log("enrichment " + " ".join(f"{k}={v}" for k, v in summary.items()))
    return summary


def drain(*, wait: bool = False, lag_wait: float = LAG_WAIT_S, max_jobs: int | None = None) -> dict[str, Any] | None:
    """Process the queue; ``None`` when another worker holds the lease (and ``wait`` is false)."""
    report: dict[str, Any] = {"processed": 0, "failed": 0, "results": [], "errors": []}
    ran = False
    tried: set[str] = set()
    while True:
        with lease.Lease(jobs.worker_lock_path(), jobs.worker_lease_s()).hold(LOCK_WAIT_S if wait else 0.0) as held:
            if held is not None:
                _run_queue(report, lag_wait, max_jobs, tried, held.renew)
                if not report.get("stopped"):
                    _enrich_once(report)
                ran = True
        if held is None:
            if wait:
                raise fsutil.LockTimeout(f"timed out after {LOCK_WAIT_S:.0f}s waiting for the worker lease")
            return report if ran else None
        if report.get("stopped"):
            return report
        if ran and "pruned" not in report:
            report["pruned"] = tr.prune_cursors()
            report["idle_sessions"] = queue_idle_sessions()
        # re-check after releasing: a job enqueued while we held the lock spawned no worker
        if not _untried(tried) or (max_jobs is not None and report["processed"] + report["failed"] >= max_jobs):
            return report
