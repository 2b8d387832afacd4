"""Drain the hook job queue: incremental self-evaluation of finished turns and subagent tasks.

``drain(wait=False)`` takes the worker lease (``kioku.infra.lease``: non-blocking, or waiting with
``wait``; renewed before each job, and taken over from a worker that stopped renewing it), runs
every queued job oldest first, and after releasing the lease looks again - a hook that found
it held just before we released it did not start a worker, so its job would otherwise
wait for the next hook. Each ``evaluate`` job:

1. resolves the project (``project_root`` or the git root above ``cwd``);
2. reads the whole transcript (``transcript.read_all``: regular files only - a FIFO, device or
   directory fails the job at once with a one-line reason - chunked to the last byte, a warning
   in the log and the result when it cannot be read whole). Claude Code may not have flushed the
   final message when Stop fires, so when the job carries ``last_assistant_sha256`` the read is
   retried every 100 ms for up to :data:`LAG_WAIT_S` until that message is in the file;
3. judges every turn (``per_turn.evaluate_entries``, pure); compaction side-runs are skipped;
4. stores the turns that are new or whose verdict changed (the next prompt's feedback corrects
   the previous turn) as one record each (``records.store_turns``; the record id holds the
   subagent id or transcript file and the prompt uuid); the per-turn fingerprints are kept in the
   cursor ``agent:session:source`` so an unchanged turn is not written again;
5. then, as one separate call, the learning step (:func:`learn_from_turns`).
Any exception moves the job to ``jobs/failed/`` with a one-line error (``kioku worker
--retry-failed`` re-queues them; ``kioku doctor`` lists the reasons) and the queue moves on.
The log (``<logs>/worker.log``) holds job names, agents, scores and errors - never prompt text.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path
from typing import Any, Callable

from kioku.infra import fsutil, jobs, lease, paths
from kioku.infra.errors import DiskFull
from kioku.evaluation import transcript as tr
from kioku.evaluation import per_turn, records
from kioku.evaluation.criteria import load_criteria
from kioku.learning.learn import JudgedTurn, learn_from_turns
from kioku.evaluation.verdict import TurnVerdict
from kioku.lessons.digest_refresh import rebuild_digests_job
from kioku.lessons.store.errors import StoreTimeout

LAG_WAIT_S = 3.0
LOCK_WAIT_S = 600.0
MAX_STORE_ATTEMPTS = 3  # a job the store did not answer this many times fails instead of staying queued


def _log(message: str) -> None:
    try:
        line = json.dumps({"t": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "msg": message})
        fsutil.append_line_durable(paths.logs_dir() / "worker.log", line)
    except OSError:
        pass


def _project_root(job: dict[str, Any]) -> Path:
    if job.get("project_root"):
        return Path(job["project_root"])
    cwd = job.get("cwd")
    if cwd and Path(cwd).is_dir():
        return paths.find_project_root(Path(cwd))
    return paths.find_project_root()


def _has_message(transcript: tr.Transcript, sha: str) -> bool:
    """Whether the hook's ``last_assistant_message`` (by hash) is in the transcript yet."""
    for msg in reversed(transcript.messages):
        if any(jobs.text_sha256(text) == sha for text in (msg.text, *msg.texts) if text):
            return True
    return False


def _read_settled(path: str, sha: str | None, lag_wait: float) -> tr.FullRead:
    """Read the whole transcript; when the hook told us its last message, wait (up to
    ``lag_wait``) until Claude Code has flushed it."""
    deadline = time.monotonic() + lag_wait
    while True:
        read = tr.read_all(path)
        if not sha or time.monotonic() >= deadline:
            return read
        tail = read.entries[-200:]
        if _has_message(tr.parse(tail), sha):
            return read
        time.sleep(0.1)


def _fingerprint(verdict: TurnVerdict, next_feedback: str) -> str:
    return f"{verdict.outcome}|{verdict.feedback_on_previous}|{next_feedback}|{verdict.tool_calls}|{verdict.agent_errors}"


def run_evaluate(job: dict[str, Any], *, lag_wait: float = LAG_WAIT_S) -> dict[str, Any]:
    agent = str(job.get("agent") or "")
    path = job.get("transcript_path")
    if not agent or not path:
        raise ValueError("evaluate job needs 'agent' and 'transcript_path'")
    path = str(Path(str(path)).expanduser())
    if not Path(path).exists():
        # Sessions run without saving a transcript (``--no-session-persistence``), or a file
        # deleted since: nothing to judge, and nothing wrong with the job.
        return {"status": "skipped", "reason": "transcript not found"}
    root = _project_root(job)
    read = _read_settled(path, job.get("last_assistant_sha256"), lag_wait)
    result = per_turn.evaluate_entries(read.entries, Path(path).name)
    if read.warning:
        _log(f"{Path(path).name}: {read.warning}")
    if result.kind == "compaction":
        return {"status": "skipped", "reason": "compaction side-run"}
    if not result.verdicts:
        return {"status": "nothing new"}
    source = str(job.get("agent_id") or result.agent_id or "") or Path(path).name
    session_id = str(job.get("session_id") or result.session_id or "unknown")
    for verdict in result.verdicts:
        verdict.session_id = session_id
    next_feedback = {v.prompt_uuid: (result.verdicts[i + 1].feedback_on_previous
                                     if i + 1 < len(result.verdicts) else "none")
                     for i, v in enumerate(result.verdicts)}
    key = f"{agent}:{session_id}:{source}"
    seen = tr.load_cursor(key).get("turns", {})
    seen = seen if isinstance(seen, dict) else {}
    fresh = {v.prompt_uuid: _fingerprint(v, next_feedback[v.prompt_uuid]) for v in result.verdicts}
    changed = [v for v in result.verdicts if seen.get(v.prompt_uuid) != fresh[v.prompt_uuid]]
    if not changed:
        return {"status": "nothing new", "turns": len(result.verdicts)}
    criteria = load_criteria(agent, root)
    ids = records.store_turns(agent, changed, source=source, kind=result.kind, criteria=criteria,
                              next_feedback=next_feedback, transcript_epoch=result.last_ts, project_root=root)
    by_uuid = {t.prompt_uuid: t for t in result.turns}
    judged = [JudgedTurn(v, by_uuid[v.prompt_uuid], next_feedback[v.prompt_uuid], v.prompt_uuid not in seen)
              for v in changed]
    learned = learn_from_turns(agent, session_id, judged, root)
    _save_turns(key, path, fresh)
    last = result.verdicts[-1]
    return {"status": "evaluated", "ids": ids, "turns": len(result.verdicts), "stored": len(ids),
            "outcome": last.outcome, "success": last.succeeded, "learned": learned,
            "warning": read.warning}


def _save_turns(key: str, path: str, fingerprints: dict[str, str]) -> None:
    target = tr.cursor_path(key)
    with fsutil.exclusive_lock(target.with_suffix(".lock"), timeout=10):
        data = tr.load_cursor(key)
        data.update(path=path, turns=fingerprints)
        fsutil.atomic_write_text(target, json.dumps(data, ensure_ascii=False))


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
            try:
                handler = HANDLERS.get(str(job.get("kind", "evaluate")))
                if handler is None:
                    raise ValueError(f"unknown job kind {job.get('kind')!r}")
                outcome = handler(job, lag_wait=lag_wait)
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


def drain(*, wait: bool = False, lag_wait: float = LAG_WAIT_S, max_jobs: int | None = None) -> dict[str, Any] | None:
    """Process the queue; ``None`` when another worker holds the lease (and ``wait`` is false)."""
    report: dict[str, Any] = {"processed": 0, "failed": 0, "results": [], "errors": []}
    ran = False
    tried: set[str] = set()
    while True:
        with lease.Lease(jobs.worker_lock_path(), jobs.worker_lease_s()).hold(LOCK_WAIT_S if wait else 0.0) as held:
            if held is not None:
                _run_queue(report, lag_wait, max_jobs, tried, held.renew)
                ran = True
        if held is None:
            if wait:
                raise fsutil.LockTimeout(f"timed out after {LOCK_WAIT_S:.0f}s waiting for the worker lease")
            return report if ran else None
        if report.get("stopped"):
            return report
        if ran and "pruned" not in report:
            report["pruned"] = tr.prune_cursors()
        # re-check after releasing: a job enqueued while we held the lock spawned no worker
        if not _untried(tried) or (max_jobs is not None and report["processed"] + report["failed"] >= max_jobs):
            return report
