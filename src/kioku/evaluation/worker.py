"""Drain the hook job queue: incremental self-evaluation of finished turns and subagent tasks.

``drain(wait=False)`` takes the worker lock (non-blocking, or blocking with ``wait``), runs
every queued job oldest first, and after releasing the lock looks again - a hook that found
the lock held just before we released it did not start a worker, so its job would otherwise
wait for the next hook. Each ``evaluate`` job:

1. resolves the project (``project_root`` or the git root above ``cwd``) and the agent's
   criteria (``api.load_criteria``);
2. reads the transcript *incrementally* (``transcript.read_new`` under the key
   ``agent:session:agent_id``; at most 4 MiB per read, see ``kioku.core.transcript``) without
   committing the offset. Claude Code may not have flushed the final message when Stop fires,
   so when the job carries ``last_assistant_sha256`` the read is retried every 100 ms for up
   to :data:`LAG_WAIT_S` until that message is in the file;
3. evaluates the new span as one task (``api.evaluate_parsed``); the span's opening prompt is
   the user's verdict on the previous turn and is written onto that turn's record
   (``api.apply_feedback_to_previous``);
4. records it (``api.record_evaluation``), then commits the transcript offset and deletes
   the job. Any exception moves the job to ``jobs/failed/`` with the error (``kioku worker
   --retry-failed`` re-queues them); the offset is not committed, so nothing is lost.
The log (``<logs>/worker.log``) holds job names, agents, scores and errors - never prompt text.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path
from typing import Any

from kioku.core import fsutil, jobs, paths
from kioku.core import transcript as tr
from kioku.evaluation import api

LAG_WAIT_S = 3.0
LOCK_WAIT_S = 600.0


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
    """Whether the hook's ``last_assistant_message`` (by hash) is in the span yet."""
    for msg in reversed(transcript.messages):
        if any(jobs.text_sha256(text) == sha for text in (msg.text, *msg.texts) if text):
            return True
    return False


def state_key(job: dict[str, Any]) -> str:
    return f"{job.get('agent')}:{job.get('session_id')}:{job.get('agent_id') or 'main'}"


def run_evaluate(job: dict[str, Any], *, lag_wait: float = LAG_WAIT_S) -> dict[str, Any]:
    agent = str(job.get("agent") or "")
    path = job.get("transcript_path")
    if not agent or not path:
        raise ValueError("evaluate job needs 'agent' and 'transcript_path'")
    path = str(Path(str(path)).expanduser())
    root = _project_root(job)
    criteria = api.load_criteria(agent, root)
    key = state_key(job)
    sha = job.get("last_assistant_sha256")
    deadline = time.monotonic() + lag_wait
    while True:
        result = tr.read_new(path, key, commit_offset=False)
        transcript = tr.parse(result.entries)
        if not sha or _has_message(transcript, str(sha)) or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if not transcript.messages:
        tr.commit(key, result, path)
        return {"status": "nothing new"}
    start = result.start_offset + result.skipped_bytes
    task_id = f"{job.get('agent_id') or 'main'}@{start}"
    evaluation = api.evaluate_parsed(transcript, agent, criteria, session_id=str(job.get("session_id") or ""),
                                     task_id=task_id)
    cursor = tr.load_cursor(key)
    if evaluation.opening_feedback and start > 0 and not result.restarted:
        api.apply_feedback_to_previous(agent, str(cursor.get("last_eval_id", "")), evaluation.opening_feedback)
    record_id = api.record_evaluation(evaluation, root)
    tr.commit(key, result, path, last_eval_id=record_id)
    return {"status": "evaluated", "id": record_id, "quality": evaluation.quality, "success": evaluation.success,
            "skipped_bytes": result.skipped_bytes}


HANDLERS = {"evaluate": run_evaluate}


def _run_queue(report: dict[str, Any], lag_wait: float, max_jobs: int | None) -> None:
    while True:
        queue = jobs.pending()
        if not queue:
            return
        for job_path in queue:
            if max_jobs is not None and report["processed"] + report["failed"] >= max_jobs:
                return
            try:
                job = jobs.load(job_path)
                handler = HANDLERS.get(str(job.get("kind", "evaluate")))
                if handler is None:
                    raise ValueError(f"unknown job kind {job.get('kind')!r}")
                outcome = handler(job, lag_wait=lag_wait)
                jobs.done(job_path)
                report["processed"] += 1
                report["results"].append(outcome)
                _log(f"{job_path.name} agent={job.get('agent')} {outcome.get('status')} "
                     f"quality={outcome.get('quality', '-')}")
            except FileNotFoundError:
                continue  # another worker (with --wait) finished it
            except Exception as exc:  # noqa: BLE001 - a bad job must not stop the queue
                jobs.fail(job_path, f"{type(exc).__name__}: {exc}")
                report["failed"] += 1
                _log(f"{job_path.name} failed: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")


def drain(*, wait: bool = False, lag_wait: float = LAG_WAIT_S, max_jobs: int | None = None) -> dict[str, Any] | None:
    """Process the queue; ``None`` when another worker holds the lock (and ``wait`` is false)."""
    report: dict[str, Any] = {"processed": 0, "failed": 0, "results": []}
    ran = False
    while True:
        if wait:
            with fsutil.exclusive_lock(jobs.worker_lock_path(), timeout=LOCK_WAIT_S):
                _run_queue(report, lag_wait, max_jobs)
            ran = True
        else:
            with fsutil.try_lock(jobs.worker_lock_path()) as got:
                if got:
                    _run_queue(report, lag_wait, max_jobs)
                    ran = True
            if not got:
                return report if ran else None
        if ran and "pruned" not in report:
            report["pruned"] = tr.prune_cursors()
        # re-check after releasing: a job enqueued while we held the lock spawned no worker
        if not jobs.pending() or (max_jobs is not None and report["processed"] + report["failed"] >= max_jobs):
            return report
