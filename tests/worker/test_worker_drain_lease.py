"""The worker drains the queue under a lease (kioku.worker.drain with kioku.infra.lease): a
worker stuck inside a job cannot keep the queue blocked past its lease."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from kioku.infra import jobs

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPT = REPO / "tests" / "fixtures" / "transcripts" / "plain_success.jsonl"

STUCK_WORKER = r'''
import time
from kioku.infra import jobs
from kioku.infra.lease import Lease
held = Lease(jobs.worker_lock_path(), 3.0)  # a lease of three seconds, never renewed
assert held.acquire()
print("held", flush=True)
time.sleep(600)  # stuck inside a job
'''


def test_a_stuck_worker_is_taken_over_and_the_queue_drains(kioku, project: Path, monkeypatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    jobs.enqueue({"agent": "main", "session_id": "lease", "cwd": str(project), "transcript_path": str(TRANSCRIPT)})
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    stuck = subprocess.Popen([sys.executable, "-c", STUCK_WORKER], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert stuck.stdout.readline().strip() == "held"
        assert jobs.worker_running()  # within its lease no hook starts a second worker
        deadline = time.monotonic() + 60
        while jobs.worker_running() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not jobs.worker_running()  # the lease ran out: a hook would start a new worker now
        out = kioku("worker", "--drain", "--json", cwd=project)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["processed"] == 1 and jobs.pending() == []
        assert stuck.wait(timeout=30) == -9  # stopped by the worker that took over
    finally:
        if stuck.poll() is None:
            stuck.kill()
