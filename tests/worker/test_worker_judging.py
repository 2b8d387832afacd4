"""The worker with a model judge (the ``command`` backend and a stand-in model): each turn is judged
once its hindsight exists, never twice, and a model that cannot be reached stores no verdict."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluation"))

from tx_builder import Tx  # noqa: E402

from kioku.infra import jobs, paths  # noqa: E402
from kioku.infra.config import set_table_key  # noqa: E402
from kioku.lessons.scopes import open_scope  # noqa: E402
from kioku.model import usage  # noqa: E402
from kioku.worker import drain  # noqa: E402

FAKE = Path(__file__).resolve().parent / "fake_model.py"


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path) -> Path:
    """A stand-in model behind the command backend; returns its control folder."""
    folder = tmp_path / "fake-model"
    folder.mkdir()
    monkeypatch.setenv("FAKE_MODEL_DIR", str(folder))
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    monkeypatch.delenv("KIOKU_MODEL_BACKEND")
    config = paths.kioku_home() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    # judge calls only; [model] last, as tests append keys to it
    config.write_text(f'[enrich]\nenabled = false\n[model]\nbackend = "command"\n'
                      f'command = {json.dumps(f"{sys.executable} {FAKE}")}\ntimeout_s = 20\n', encoding="utf-8")
    return folder


def _mode(folder: Path, *modes: str) -> None:
    (folder / "mode").write_text(" ".join(modes))


def _calls(folder: Path) -> list[str]:
    log = folder / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def _session(path: Path, turns: int) -> Path:
    tx = Tx("sess-w")
    for n in range(turns):
        tx.user(f"task number {n}: add a line to notes.md")
        tx.assistant("", [(f"c{n}", "Bash", {"command": f"echo line {n} >> notes.md"})])
        tx.result(f"c{n}", "")
        tx.assistant(f"Added line {n}.")
    return tx.write(path)


def _run(transcript: Path, project: Path, event: str = "Stop") -> dict:
    jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "sess-w", "event": event,
                  "transcript_path": str(transcript), "cwd": str(project)}, spawn=False)
    report = drain.drain(wait=True, lag_wait=0)
    assert report["failed"] == 0, report["errors"]
    return report["results"][-1]


def _records() -> dict[int, dict]:
    found = open_scope("global").get("main", "evaluations")
    return {int(r.metadata["prompt_index"]): r.metadata for r in found}


def test_each_turn_is_judged_once_when_its_hindsight_exists(model: Path, project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    _session(transcript, 1)
    assert _run(transcript, project)["status"] == "nothing new"   # the only turn waits for what comes next
    assert _calls(model) == [] and _records() == {}
    _session(transcript, 3)
    result = _run(transcript, project)
    assert _calls(model) == ["t1 t2 nested=1"] and result["judge_calls"] == 1 and result["waiting"] == 1
    assert sorted(_records()) == [0, 1] and _records()[0]["judged_by"].startswith("model:")
    assert _records()[0]["reason"] == "fake judge on t1"
    _run(transcript, project, "SessionEnd")                          # the session ended: the last turn is judged
    assert _calls(model)[-1] == "t3 nested=1" and sorted(_records()) == [0, 1, 2]
    _run(transcript, project, "SessionEnd")
    _run(transcript, project)
    assert len(_calls(model)) == 2                                   # nothing is ever sent twice


def test_the_model_decides_the_outcome_and_the_counts_stay_the_transcripts(model: Path, project: Path,
                                                                           tmp_path: Path) -> None:
    _mode(model, "failed")
    transcript = _session(tmp_path / "s.jsonl", 2)
    _run(transcript, project, "SessionEnd")
    records = _records()
    assert records[0]["outcome"] == "failed" and records[0]["success"] is False
    assert records[1]["feedback_on_previous"] == "negative" and records[0]["next_feedback"] == "negative"
    assert records[0]["tool_calls"] == 1 and records[0]["agent_errors"] == 0
    assert records[0]["quality"] == 90.0 and records[0]["confidence"] == pytest.approx(0.9)


def test_a_model_that_cannot_be_reached_stores_nothing_and_the_job_stays_queued(model: Path, project: Path,
                                                                                tmp_path: Path) -> None:
    _mode(model, "down", "good")
    transcript = _session(tmp_path / "s.jsonl", 2)
    result = _run(transcript, project, "SessionEnd")
    assert result["status"] == "deferred" and _records() == {}
    assert len(jobs.pending()) == 1                                  # tried again by the next worker
    assert usage.totals(usage.today(), "judge").failures == 1
    report = drain.drain(wait=True, lag_wait=0)
    assert report["results"][0]["status"] == "evaluated" and jobs.pending() == []
    assert sorted(_records()) == [0, 1] and all(m["judged_by"].startswith("model:") for m in _records().values())


def test_after_many_failed_tries_the_rules_decide(model: Path, project: Path, tmp_path: Path, monkeypatch) -> None:
    from kioku.worker import evaluate

    monkeypatch.setattr(evaluate, "DEFER_LIMIT", 2)
    _mode(model, "down")
    transcript = _session(tmp_path / "s.jsonl", 1)
    assert _run(transcript, project, "SessionEnd")["status"] == "deferred"
    assert drain.drain(wait=True, lag_wait=0)["results"][0]["status"] == "deferred"
    result = drain.drain(wait=True, lag_wait=0)["results"][0]
    assert result["status"] == "evaluated" and "unreachable 2 times" in result["judge_fallback"]
    assert _records()[0]["judged_by"] == "rules (the model was unreachable 2 times)"


def test_an_answer_malformed_twice_leaves_the_rules_and_is_counted(model: Path, project: Path, tmp_path: Path) -> None:
    _mode(model, "malformed")
    transcript = _session(tmp_path / "s.jsonl", 1)
    result = _run(transcript, project, "SessionEnd")
    assert len(_calls(model)) == 2 and "unusable answer" in result["judge_fallback"]
    assert _records()[0]["judged_by"].startswith("rules (unusable answer")
    assert usage.totals(usage.today(), "judge").fallbacks == 1


def test_the_daily_cap_hands_the_rest_of_the_day_to_the_rules(model: Path, project: Path, tmp_path: Path) -> None:
    config = paths.kioku_home() / "config.toml"
    config.write_text(config.read_text() + "daily_calls = 1\n", encoding="utf-8")
    _run(_session(tmp_path / "a.jsonl", 1), project, "SessionEnd")
    tx = Tx("sess-other")
    tx.user("another task")
    tx.assistant("Done.")
    jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "sess-other", "event": "SessionEnd",
                  "transcript_path": str(tx.write(tmp_path / "b.jsonl")), "cwd": str(project)}, spawn=False)
    result = drain.drain(wait=True, lag_wait=0)["results"][0]
    assert len(_calls(model)) == 1 and "daily_calls" in result["judge_fallback"]


def test_turned_off_the_judge_is_the_rules_as_before(model: Path, project: Path, tmp_path: Path) -> None:
    set_table_key(paths.kioku_home() / "config.toml", "judge", "enabled", False)
    transcript = _session(tmp_path / "s.jsonl", 2)
    _run(transcript, project)
    assert _calls(model) == [] and sorted(_records()) == [0, 1]      # stored at once, by the rules
    assert {m["judged_by"] for m in _records().values()} == {"rules"}


def test_a_worker_killed_during_a_call_loses_nothing_and_judges_once(model: Path, project: Path,
                                                                      tmp_path: Path) -> None:
    _mode(model, "sleep", "good")
    transcript = _session(tmp_path / "s.jsonl", 2)
    jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "sess-w", "event": "SessionEnd",
                  "transcript_path": str(transcript), "cwd": str(project)}, spawn=False)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    worker = subprocess.Popen([sys.executable, "-m", "kioku", "worker", "--wait"], env=env, cwd=project,
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        if (model / "sleeping").exists():
            break
        time.sleep(0.1)
    else:
        worker.kill()
        pytest.fail("the stand-in model was never called")
    os.killpg(worker.pid, signal.SIGKILL)                            # the worker and its model run, at once
    worker.wait(timeout=10)
    assert len(jobs.pending()) == 1 and _records() == {}
    report = drain.drain(wait=True, lag_wait=0)
    assert report["results"][0]["status"] == "evaluated" and jobs.pending() == []
    assert sorted(_records()) == [0, 1] and len(_calls(model)) == 2


def test_several_jobs_for_one_transcript_run_once_and_keep_the_session_end(model: Path, project: Path,
                                                                           tmp_path: Path) -> None:
    transcript = _session(tmp_path / "s.jsonl", 2)
    for event in ("Stop", "SessionEnd", "Stop"):
        jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "sess-w", "event": event,
                      "transcript_path": str(transcript), "cwd": str(project)}, spawn=False)
    report = drain.drain(wait=True, lag_wait=0)
    assert report["processed"] == 1 and jobs.pending() == []
    assert _calls(model) == ["t1 t2 nested=1"]                        # the end folded in: both turns at once


def _lessons(project: Path) -> list:
    from kioku.lessons.improvements import all_improvements

    return [(scope, record) for scope, record in all_improvements("main", project)]


def test_a_correction_becomes_a_lesson_and_a_paraphrase_adds_evidence_to_it(model: Path, project: Path,
                                                                             tmp_path: Path) -> None:
    lesson = {"kind": "preference", "category": "testing_patterns", "applies_when": "API tests",
              "text": "When testing the API, use the fixture instead of starting a live server."}
    (model / "lesson").write_text(json.dumps(lesson))
    _run(_session(tmp_path / "a.jsonl", 2), project, "SessionEnd")
    [(scope, stored)] = _lessons(project)
    assert stored.document == lesson["text"] and stored.metadata["learned_from"] == "user_feedback"
    assert stored.metadata["observations"] == 2 and scope == "project"
    (model / "lesson").write_text(json.dumps({**lesson, "text": "When you test the API, use the test fixture "
                                                                "instead of a live server."}))
    tx = Tx("sess-two")
    tx.user("check the API tests")
    tx.assistant("Done.")
    jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "sess-two", "event": "SessionEnd",
                  "transcript_path": str(tx.write(tmp_path / "b.jsonl")), "cwd": str(project)}, spawn=False)
    drain.drain(wait=True, lag_wait=0)
    [(_, merged)] = _lessons(project)
    assert merged.id == stored.id and merged.metadata["observations"] == 3


def test_a_strategy_waits_as_a_candidate_until_it_recurs(model: Path, project: Path, tmp_path: Path) -> None:
    from kioku.learning.candidates import CandidateLedger

    (model / "lesson").write_text(json.dumps({"kind": "strategy", "category": "error_handling", "applies_when": "x",
                                              "text": "When a command fails, read its error before retrying it."}))
    _run(_session(tmp_path / "a.jsonl", 1), project, "SessionEnd")
    assert _lessons(project) == [] and len(CandidateLedger("main").candidates()) == 1


def test_a_lesson_with_a_secret_is_refused_and_the_turn_is_kept(model: Path, project: Path, tmp_path: Path) -> None:
    token = "ghp_" + "Zq7xR2mK9vL4nB8cW1tY6pH3sD5fG0jA2eU7"  # a repeated run reads as a placeholder
    (model / "lesson").write_text(json.dumps({"kind": "preference", "category": "api_usage", "applies_when": "gh",
                                              "text": f"When logging in to gh, use the token {token}."}))
    _run(_session(tmp_path / "a.jsonl", 1), project, "SessionEnd")
    assert all(token not in r.document for _, r in _lessons(project)) and sorted(_records()) == [0]


def _lesson_in_the_session(project: Path, monkeypatch: pytest.MonkeyPatch, turns: int) -> str:
    """A lesson about the session's tasks, given in its first turn by the real prompt hook (and then
    still in the conversation: not given again)."""
    from kioku.hooks import user_prompt_submit
    from kioku.lessons.improvements import learn

    monkeypatch.setenv("KIOKU_HOLD_BACK", "0")
    [rec_id] = learn("main", "When adding a line to notes.md, append it with echo and read the file back",
                     "search_strategy", 0.8, project_root=project)
    for n in range(turns):
        user_prompt_submit.handle({"session_id": "sess-w", "prompt": f"task number {n}: add a line to notes.md",
                                   "cwd": str(project), "hook_event_name": "UserPromptSubmit"})
    from kioku.learning import ledger

    assert rec_id in ledger.turns("sess-w", "main")[0]["given"]
    return rec_id


def _lesson_meta(project: Path, rec_id: str) -> dict:
    from kioku.lessons import scopes as sc

    sc.reset_store_cache()
    return dict(open_scope("global", project).get("main", "improvements", ids=[rec_id])[0].metadata or {})


def test_a_lesson_the_model_says_hurt_is_suspended_and_leaves_the_normal_selection(model: Path, project: Path,
                                                                                   tmp_path: Path, monkeypatch) -> None:
    from kioku.lessons.digest import read_digest

    rec_id = _lesson_in_the_session(project, monkeypatch, 2)
    (model / "use").write_text(json.dumps({"effect": "hurt", "reason": "the user undid the echo it advised"}))
    transcript = _session(tmp_path / "s.jsonl", 2)
    _run(transcript, project, "SessionEnd")
    meta = _lesson_meta(project, rec_id)
    assert meta["suspended"] is True and meta["suspended_session"] == "sess-w"
    assert meta["suspended_turn"] == "t1" and meta["suspended_reason"] == "the user undid the echo it advised"
    assert meta["suspensions"] == 1 and (meta["turns_given"], meta["success_given"]) == (1, 1)
    assert [e["decision"] for e in read_digest("main", project_root=project) if e["id"] == rec_id] == ["suspended"]
    _run(transcript, project, "SessionEnd")                           # the job again: nothing changes
    assert _lesson_meta(project, rec_id)["suspended_at_epoch"] == meta["suspended_at_epoch"]
    assert len(_calls(model)) == 1


def test_a_lesson_the_model_found_not_relevant_gets_no_credit(model: Path, project: Path, tmp_path: Path,
                                                              monkeypatch) -> None:
    from kioku.learning import evidence

    rec_id = _lesson_in_the_session(project, monkeypatch, 2)
    (model / "use").write_text(json.dumps({"relevant": False, "followed": False, "effect": "none"}))
    _run(_session(tmp_path / "s.jsonl", 2), project, "SessionEnd")
    assert sorted(_records()) == [0, 1]                               # the turns are stored and judged
    assert evidence.totals("main", [rec_id])[rec_id] == (0, 0, 0, 0)
    assert not _lesson_meta(project, rec_id).get("suspended")
