"""The hook → worker job queue (standard library only; hooks call it, so it must take ms).

- :func:`enqueue(job) -> Path` writes ``<state_dir>/jobs/<time_ns>-<rand>.json`` atomically
  (0600) and, unless a worker holds the worker lock, starts a detached ``python -m kioku worker``
  (new session, stdio to /dev/null, ``PYTHONPATH`` pointing at this package's ``src`` so an
  installed hook works too). Jobs carry ids and flags, never conversation text: a
  ``last_assistant_message`` field is replaced by its hash (``last_assistant_sha256``) and length.
- A job: ``{"kind": "evaluate", "agent", "session_id", "transcript_path", "agent_id"?, "cwd"?,
  "last_assistant_sha256"?, "event"?}``.
- The worker (``kioku.worker.drain``) drains the queue under the lease of :func:`worker_lock_path`
  (``kioku.infra.lease``: it expires :func:`worker_lease_s` seconds after its last renewal, so a
  stuck worker cannot block the next) with :func:`pending`, :func:`load` and :func:`done` /
  :func:`fail` (failed jobs move to ``jobs/failed/`` with the error, they are never silently
  dropped; a job that stays queued after a failed attempt records it, :func:`note_attempt`).
- ``KIOKU_NO_WORKER=1`` disables the spawn (benchmarks, tests that drain synchronously).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from kioku.infra import fsutil, paths
from kioku.infra.sha import sha256

ALLOWED_KEYS = {"kind", "agent", "session_id", "transcript_path", "agent_id", "agent_type", "cwd",
                "project_root", "event", "last_assistant_sha256", "last_assistant_chars", "stop_hook_active",
                "prompt_id", "enqueued_at"}
MAX_VALUE_CHARS = 4096


def text_sha256(text: str) -> str:
    """Whitespace-normalised hash of a message: the worker matches the transcript against it."""
    return sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def jobs_dir() -> Path:
    return paths.state_dir() / "jobs"


def failed_dir() -> Path:
    return jobs_dir() / "failed"


def worker_lock_path() -> Path:
    return paths.state_dir() / "locks" / "worker.lock"


def worker_lease_s() -> float:
    """How long the worker's lease lasts without renewal (``KIOKU_WORKER_LEASE_S``, default 900 s)."""
    from kioku.infra.lease import DEFAULT_DURATION_S

    try:
        value = float(os.environ.get("KIOKU_WORKER_LEASE_S", "") or DEFAULT_DURATION_S)
    except ValueError:
        return DEFAULT_DURATION_S
    return value if value > 0 else DEFAULT_DURATION_S


def _clean(job: dict[str, Any]) -> dict[str, Any]:
    job = dict(job)
    message = job.pop("last_assistant_message", None)
    if isinstance(message, str):
        job["last_assistant_sha256"] = text_sha256(message)
        job["last_assistant_chars"] = len(message)
    out: dict[str, Any] = {}
    for key, value in job.items():
        if key not in ALLOWED_KEYS:
            continue  # raw prompts, messages and unknown payload fields never reach the disk
        if isinstance(value, str):
            value = value[:MAX_VALUE_CHARS]
        elif not isinstance(value, (int, float, bool)) and value is not None:
            continue
        out[key] = value
    out.setdefault("kind", "evaluate")
    out.setdefault("enqueued_at", time.time())
    return out


def enqueue(job: dict[str, Any], *, spawn: bool = True) -> Path:
    """Persist ``job`` and make sure a worker will run it; returns the job file."""
    from kioku.infra.env import NESTED_RUN

    if os.environ.get(NESTED_RUN):
        raise RuntimeError("no job is queued inside a model run Kioku started")
    data = _clean(job)
    name = f"{time.time_ns():020d}-{os.urandom(4).hex()}.json"
    target = jobs_dir() / name
    try:
        fsutil.atomic_write_text(target, json.dumps(data, ensure_ascii=False))
    except OSError as exc:
        if exc.errno not in fsutil.FULL_ERRNOS:
            raise
        from kioku.infra.errors import DiskFull

        # the worker judges every turn of a transcript it has not judged yet: the next job of
        # the session brings this turn along
        raise DiskFull(f"the disk holding {jobs_dir()} is full; nothing was lost: this turn was not queued for "
                       "evaluation, the session's next finished turn queues it with the rest",
                       folder=str(jobs_dir())) from exc
    if spawn and os.environ.get("KIOKU_NO_WORKER", "") not in ("1", "true", "yes"):
        spawn_worker()
    return target


def worker_running() -> bool:
    """Whether a worker holds the worker lease (one whose lease expired is stuck: a new worker
    takes over from it, see ``kioku.infra.lease``)."""
    from kioku.infra.lease import is_held

    return is_held(worker_lock_path(), worker_lease_s())


def spawn_worker() -> bool:
    """Start a detached worker unless one holds the lease; returns whether one was started."""
    if worker_running():
        return False  # the running worker re-checks the queue before it exits
    import subprocess  # only when a worker really has to be started

    src = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        # KIOKU_WORKER_PYTHON: the plugin's hooks run under the system python3, the worker
        # needs the environment that holds Chroma and the model (kioku.install.plugin_env).
        python = os.environ.get("KIOKU_WORKER_PYTHON") or sys.executable
        subprocess.Popen([python, "-m", "kioku", "worker"], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         close_fds=True, env=env, cwd=str(paths.state_dir()) if paths.state_dir().is_dir() else None)
    except OSError:
        return False  # the job stays queued; the next hook or `kioku worker` picks it up
    return True


def pending() -> list[Path]:
    """Queued job files, oldest first."""
    try:
        return sorted(p for p in jobs_dir().iterdir() if p.is_file() and p.suffix == ".json"
                      and not p.name.startswith("."))
    except FileNotFoundError:
        return []


def load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("job file does not hold a JSON object")
    return data


def note_attempt(path: Path, error: str) -> int:
    """Record on a job that stays queued that an attempt failed (``attempts``, ``last_error``);
    returns how many attempts failed so far."""
    data = load(path)
    attempts = int(data.get("attempts", 0) or 0) + 1
    data.update(attempts=attempts, last_error=error[:2000])
    fsutil.atomic_write_text(path, json.dumps(data, ensure_ascii=False))
    return attempts


def done(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def fail(path: Path, error: str) -> Path:
    """Move a job to ``jobs/failed/`` with the error recorded next to its fields."""
    try:
        data = load(path)
    except (OSError, ValueError):
        data = {"unreadable": True}
    data["error"] = error[:2000]
    data["failed_at"] = time.time()
    target = failed_dir() / path.name
    fsutil.atomic_write_text(target, json.dumps(data, ensure_ascii=False))
    done(path)
    return target


def failed_reasons(paths_: list[Path], limit: int = 3) -> str:
    """"; <job>: <first line of its error>" for the newest ``limit`` failed jobs (doctor's detail)."""
    out: list[str] = []
    for path in sorted(paths_)[-limit:]:
        try:
            error = str(load(path).get("error", "")).strip().splitlines()
        except (OSError, ValueError):
            error = ["unreadable job file"]
        out.append(f"{path.stem}: {(error or ['?'])[0][:160]}")
    return "".join(f"; {line}" for line in out)


def retry_failed() -> int:
    """Move failed jobs back into the queue; returns how many."""
    moved = 0
    try:
        items = sorted(failed_dir().glob("*.json"))
    except FileNotFoundError:
        return 0
    for path in items:
        try:
            data = load(path)
        except (OSError, ValueError):
            continue
        for key in ("error", "failed_at"):
            data.pop(key, None)
        fsutil.atomic_write_text(jobs_dir() / path.name, json.dumps(data, ensure_ascii=False))
        path.unlink()
        moved += 1
    return moved
