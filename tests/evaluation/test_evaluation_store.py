"""Recording evaluations in a real ChromaDB, the job queue and the worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kioku.lessons.store.client import open_store
from kioku.infra import jobs
from kioku.evaluation import transcript as tr
from kioku.worker import drain as worker

REQUIRED = ("agent_name", "session_id", "task_id", "success", "quality", "duration_s", "tokens", "tool_errors",
            "retries", "feedback", "strengths", "weaknesses", "insights_count", "timestamp", "timestamp_epoch")


def _evaluations(agent: str = "main") -> list:
    return open_store("global").get(agent, "evaluations")


def _improvements(agent: str = "main") -> list:
    return open_store("global").get(agent, "improvements")


@pytest.mark.slow
def test_eval_transcript_judges_per_turn_and_stores_no_lesson(kioku, project: Path, transcripts: Path) -> None:
    """The command runs the per-turn evaluator (the one the hooks' worker runs): its records are
    per turn, and a single session's cause→fix pattern is not learned."""
    out = kioku("eval", "transcript", str(transcripts / "bash_fail_then_success.jsonl"),
                "--json", "--no-store", cwd=project)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    [turn] = data["turns"]
    assert turn["outcome"] == "success" and turn["agent_errors"] == 1 and data["stored"] == 0
    assert _evaluations() == []
    stored = kioku("eval", "transcript", "--agent", "main", str(transcripts / "bash_fail_then_success.jsonl"),
                   cwd=project)
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout.splitlines()[0] == "1 turn(s): 1 done, 0 not done, 0 interrupted"
    assert "stored 1 turn record(s)" in stored.stdout
    [rec] = _evaluations()
    assert rec.metadata["outcome"] == "success"
    assert _improvements() == []
    missing = kioku("eval", "transcript", str(project / "nope.jsonl"), cwd=project)
    assert missing.returncode == 2 and "transcript not found" in missing.stderr


def test_eval_transcript_on_a_transcript_without_a_prompt(kioku, project: Path, tmp_path: Path) -> None:
    path = tmp_path / "cleared.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": "s-clear",
                                "message": {"role": "user", "content": "<command-name>/clear</command-name>"}})
                    + "\n", encoding="utf-8")
    out = kioku("eval", "transcript", str(path), cwd=project)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "no real prompt in this transcript: nothing to evaluate"
    assert _evaluations() == []


def test_enqueue_keeps_no_text_and_worker_drains(project: Path, transcripts: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    final = "The directory /nonexistent-dir does not exist, so I listed the project instead: README.md."
    path = jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "s-1", "cwd": str(project),
                         "transcript_path": str(transcripts / "bash_fail_then_success.jsonl"),
                         "last_assistant_message": final, "prompt": "secret prompt text"})
    raw = path.read_text(encoding="utf-8")
    assert final not in raw and "secret prompt text" not in raw
    assert json.loads(raw)["last_assistant_sha256"] == jobs.text_sha256(final)
    assert path.stat().st_mode & 0o777 == 0o600
    report = worker.drain(wait=True, lag_wait=0)
    assert report["processed"] == 1 and report["failed"] == 0
    assert jobs.pending() == []
    [rec] = _evaluations()
    assert rec.metadata["session_id"] == "s-1" and rec.metadata["tool_errors"] == 1
    # nothing new in the transcript: a second job evaluates nothing
    jobs.enqueue({"agent": "main", "session_id": "s-1", "cwd": str(project),
                  "transcript_path": str(transcripts / "bash_fail_then_success.jsonl")})
    report = worker.drain(wait=True, lag_wait=0)
    assert report["results"][0]["status"] == "nothing new" and len(_evaluations()) == 1


def test_worker_turn_by_turn_with_feedback(project: Path, tmp_path: Path, split_turns,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop fires after each turn: one record per turn, and the next prompt's verdict corrects
    the previous turn's record ("That's wrong" makes it failed; praise keeps it a success)."""
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    live = tmp_path / "live.jsonl"
    live.write_text("", encoding="utf-8")
    for turn in split_turns("feedback_followups"):
        with live.open("a", encoding="utf-8") as handle:
            handle.write("".join(turn))
        jobs.enqueue({"agent": "main", "session_id": "sess", "transcript_path": str(live), "cwd": str(project)})
        report = worker.drain(wait=True, lag_wait=0)
        assert report["failed"] == 0 and report["results"][0]["status"] == "evaluated", report
    recs = sorted((r.metadata for r in _evaluations()), key=lambda m: m["prompt_index"])
    assert [m["prompt_index"] for m in recs] == [0, 1, 2]
    assert len({m["prompt_uuid"] for m in recs}) == 3
    assert recs[0]["next_feedback"] == "negative" and recs[0]["feedback"] == -1
    assert recs[0]["outcome"] == "failed" and recs[0]["success"] is False
    assert recs[1]["feedback_on_previous"] == "negative"
    assert recs[1]["next_feedback"] == "positive" and recs[1]["success"] is True
    assert recs[2]["feedback_on_previous"] == "positive" and recs[2]["feedback"] == 0
    assert all(m["evaluated_at_epoch"] >= m["transcript_epoch"] > 0 for m in recs)
    # a job with nothing new stores nothing
    jobs.enqueue({"agent": "main", "session_id": "sess", "transcript_path": str(live), "cwd": str(project)})
    assert worker.drain(wait=True, lag_wait=0)["results"][0]["status"] == "nothing new"


def test_worker_waits_for_lagging_final_message(project: Path, tmp_path: Path, transcripts: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    lines = (transcripts / "plain_success.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    last_assistant = max(i for i, line in enumerate(lines) if json.loads(line).get("type") == "assistant")
    live = tmp_path / "lag.jsonl"
    live.write_text("".join(lines[:last_assistant]), encoding="utf-8")
    jobs.enqueue({"agent": "main", "session_id": "lag", "transcript_path": str(live), "cwd": str(project),
                  "last_assistant_message": "2 + 2 = 4."})
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; time.sleep(0.5); open(sys.argv[1], 'a', encoding='utf-8').write(sys.argv[2])"),
        str(live), "".join(lines[last_assistant:])])
    report = worker.drain(wait=True, lag_wait=10)
    writer.wait(10)
    assert report["processed"] == 1
    [rec] = _evaluations()
    assert rec.metadata["success"] is True  # the late final answer was seen


def test_failed_job_is_kept_with_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    jobs.enqueue({"kind": "evaluate", "session_id": "x", "transcript_path": "/dev/null"})  # no agent
    jobs.enqueue({"kind": "mystery", "agent": "main"})
    report = worker.drain(wait=True, lag_wait=0)
    assert report["failed"] == 2 and jobs.pending() == []
    failed = sorted(jobs.failed_dir().glob("*.json"))
    errors = [json.loads(p.read_text(encoding="utf-8"))["error"] for p in failed]
    assert any("needs 'agent'" in e for e in errors) and any("unknown job kind" in e for e in errors)
    log = (Path(os.environ["KIOKU_HOME"]) / "logs" / "worker.log").read_text(encoding="utf-8")
    assert "failed" in log
    assert jobs.retry_failed() == 2 and len(jobs.pending()) == 2


@pytest.mark.slow
def test_worker_cli_and_busy_lock(kioku, project: Path, transcripts: Path, monkeypatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    jobs.enqueue({"agent": "main", "session_id": "cli", "cwd": str(project),
                  "transcript_path": str(transcripts / "plain_success.jsonl")})
    from kioku.infra import fsutil

    with fsutil.exclusive_lock(jobs.worker_lock_path()):
        assert jobs.worker_running()
        busy = kioku("worker", "--json", cwd=project)
        assert json.loads(busy.stdout)["busy"] is True and len(jobs.pending()) == 1
    out = kioku("worker", "--wait", "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["processed"] == 1 and jobs.pending() == []
    assert len(_evaluations()) == 1


def test_hook_side_enqueue_is_stdlib_only(project: Path, transcripts: Path, tmp_path: Path) -> None:
    code = ("import sys, json; from kioku.infra import jobs; "
            "p = jobs.enqueue({'agent': 'main', 'session_id': 's', 'transcript_path': sys.argv[1]}); "
            "print(json.dumps({'heavy': sorted(m for m in ('chromadb', 'numpy', 'yaml', 'jinja2') if m in sys.modules),"
            " 'job': str(p)}))")
    env = {**os.environ, "KIOKU_NO_WORKER": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    out = subprocess.run([sys.executable, "-c", code, str(transcripts / "plain_success.jsonl")], env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    data = json.loads(out.stdout)
    assert data["heavy"] == [] and Path(data["job"]).exists()


def test_missing_transcript_skips_its_job_and_the_worker_ends(project: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A transcript that was never saved (or was deleted) ends its job as skipped; it used to be
    mistaken for "another worker took the job" and retried in a busy loop forever."""
    import threading

    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    jobs.enqueue({"agent": "main", "session_id": "gone", "cwd": str(project),
                  "transcript_path": str(tmp_path / "deleted.jsonl")})
    box: dict = {}
    runner = threading.Thread(target=lambda: box.update(report=worker.drain(wait=True, lag_wait=0)), daemon=True)
    runner.start()
    runner.join(30)
    assert not runner.is_alive(), "the worker kept retrying a job whose transcript does not exist"
    report = box["report"]
    assert report["processed"] == 1 and report["failed"] == 0 and jobs.pending() == []
    assert report["results"] == [{"status": "skipped", "reason": "transcript not found"}]
    assert not jobs.failed_dir().exists() or list(jobs.failed_dir().glob("*.json")) == []
    assert _evaluations() == []


def test_a_job_left_in_the_queue_is_tried_once_per_drain(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    jobs.enqueue({"kind": "stuck", "agent": "main"})
    calls: list[str] = []

    def handler_that_leaves_its_job(job, lag_wait):
        calls.append(job["kind"])
        raise FileNotFoundError("some other file")

    monkeypatch.setitem(worker.HANDLERS, "stuck", handler_that_leaves_its_job)
    monkeypatch.setattr(jobs, "fail", lambda path, error: path)  # the job stays queued
    report = worker.drain(wait=False, lag_wait=0)
    assert calls == ["stuck"] and report["failed"] == 1 and len(jobs.pending()) == 1


@pytest.mark.slow
def test_enqueue_spawns_detached_worker(project: Path, transcripts: Path) -> None:
    """The real path the Stop hook takes: enqueue → detached `python -m kioku worker` → stored."""
    path = jobs.enqueue({"agent": "main", "session_id": "detached", "cwd": str(project),
                         "transcript_path": str(transcripts / "bash_fail_then_success.jsonl")})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (path.exists() or jobs.worker_running()):
        time.sleep(0.2)
    assert not path.exists(), "the detached worker did not process the job"
    assert list(jobs.failed_dir().glob("*.json")) == [] if jobs.failed_dir().exists() else True
    [rec] = _evaluations()
    assert rec.metadata["session_id"] == "detached" and rec.metadata["tool_errors"] == 1


def test_fifo_transcript_fails_alone_and_the_queue_moves_on(kioku, project: Path, tmp_path: Path,
                                                            transcripts: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO as transcript_path must not block `kioku worker`: the job lands in jobs/failed/
    with a one-line reason (shown by `kioku doctor`), and the next good job is evaluated."""
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    fifo = tmp_path / "evil.jsonl"
    os.mkfifo(fifo)
    jobs.enqueue({"agent": "main", "session_id": "f-1", "transcript_path": str(fifo), "cwd": str(project)})
    jobs.enqueue({"agent": "main", "session_id": "g-1", "cwd": str(project),
                  "transcript_path": str(transcripts / "plain_success.jsonl")})
    proc = kioku("worker", "--wait", "--json", timeout=60)
    report = json.loads(proc.stdout)
    assert report["processed"] == 1 and report["failed"] == 1
    [failed] = list(jobs.failed_dir().glob("*.json"))
    error = json.loads(failed.read_text(encoding="utf-8"))["error"]
    assert "FIFO" in error and "\n" not in error
    assert [r.metadata["session_id"] for r in _evaluations()] == ["g-1"]
    assert len(report["errors"]) == 1 and "FIFO" in report["errors"][0]
    doctor = kioku("doctor")
    assert "1 failed" in doctor.stdout and "FIFO" in doctor.stdout
    jobs.retry_failed()
    text = kioku("worker", "--wait", timeout=60)
    assert "1 failed" in text.stdout and "FIFO" in text.stdout


def test_subagent_turns_never_overwrite_the_parent(project: Path, transcripts: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    parent = transcripts / "subagent.jsonl"
    child = transcripts / "subagent.agent-1.jsonl"
    session = json.loads(parent.read_text(encoding="utf-8").splitlines()[0]).get("sessionId", "s")
    jobs.enqueue({"agent": "main", "session_id": session, "transcript_path": str(parent), "cwd": str(project)})
    jobs.enqueue({"agent": "main", "session_id": session, "transcript_path": str(child), "cwd": str(project),
                  "agent_id": "a000000000000001"})
    report = worker.drain(wait=True, lag_wait=0)
    assert report["processed"] == 2 and report["failed"] == 0
    recs = _evaluations()
    assert len(recs) == 2 and len({r.id for r in recs}) == 2
    assert sorted(r.metadata["transcript_kind"] for r in recs) == ["main", "subagent"]


def test_eval_transcript_json_and_no_store_writes_nothing(kioku, project: Path, transcripts: Path) -> None:
    home = Path(os.environ["KIOKU_HOME"])
    before = sorted(p.relative_to(home) for p in home.rglob("*")) if home.exists() else []
    proc = kioku("eval", "transcript", str(transcripts / "feedback_followups.jsonl"), "--json", "--no-store")
    data = json.loads(proc.stdout)
    after = sorted(p.relative_to(home) for p in home.rglob("*")) if home.exists() else []
    assert before == after and data["stored"] == 0
    assert [t["prompt_index"] for t in data["turns"]] == [0, 1, 2]
    first = data["turns"][0]
    for key in ("prompt_uuid", "outcome", "reason", "feedback_on_previous", "agent_errors", "user_rejections",
                "hook_blocks", "cascade_errors", "interrupted", "tokens", "active_s"):
        assert key in first
    assert set(first["tokens"]) >= {"input", "output", "cache_write", "cache_read", "non_cache", "weighted"}
    lines = [json.loads(x) for x in (transcripts / "feedback_followups.jsonl").read_text(encoding="utf-8").splitlines()]
    assert first["prompt_uuid"] in {x.get("uuid") for x in lines}
    stored = json.loads(kioku("eval", "transcript", str(transcripts / "feedback_followups.jsonl"),
                              "--json").stdout)
    assert stored["stored"] == 3 and len(_evaluations()) == 3
    # stamped with the time of evaluation: an old transcript's turns count as recent work
    from kioku.lessons.dashboard import build_dashboard
    board = build_dashboard("main", project)
    assert board["recent_success_rate"] is not None and len(board["recent_evaluations"]) == 3
    assert sorted(e["outcome"] for e in board["recent_evaluations"]) == ["failed", "no_task", "success"]
