"""The model judge through the real Claude Code binary, offline against the project's mock API.

The worker judges a finished two-turn session with the ``claude`` backend: one ``claude -p`` run
per batch, which the mock answers with a scripted ``StructuredOutput`` tool call. Checked: the
request is exactly what Kioku built (its system prompt, the rendered turns, no tools but the
structured output, the cheap model); the run fires no hook (every event of settings.json has a
marker hook) and leaves no session file; Kioku stores nothing from the run; and each scripted
failure ends as it must: malformed then good, malformed twice, a refusal, an oversized answer,
a budget stop at the per-call cap, and a hanging API whose run is killed with its process group.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools"))
sys.path.insert(0, str(HERE.parent / "evaluation"))
sys.path.insert(0, str(HERE))

from mock_running import MockServer  # noqa: E402
from nested_world import nested_claude_world  # noqa: E402
from tx_builder import Tx  # noqa: E402

from kioku.evaluation.judge.prompt import SYSTEM  # noqa: E402
from kioku.infra import jobs, paths  # noqa: E402
from kioku.lessons.scopes import open_scope  # noqa: E402
from kioku.model import usage  # noqa: E402
from kioku.worker import drain  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def judge_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path) -> dict[str, Any]:
    world = nested_claude_world(tmp_path, monkeypatch)
    tx = Tx("sess-e2e-judge")
    tx.user("Fix the failing test in tests/test_x.py", cwd=str(project))
    tx.assistant("", [("c1", "Bash", {"command": "pytest -q tests/test_x.py"})])
    tx.result("c1", "E   assert 1 == 2\n1 failed in 0.2s", error=True)
    tx.assistant("Fixed it; the test passes now.")
    tx.user("No, it still fails. Use the fixture, not a live server.", cwd=str(project))
    tx.assistant("Switched to the fixture; 3 passed.")
    transcript = tx.write(tmp_path / "session.jsonl")
    return {**world, "transcript": transcript}


def _answer(outcome: str = "failed", turns: tuple[str, ...] = ("t1", "t2"), **extra: Any) -> dict:
    criteria = ["accuracy", "completeness", "efficiency", "confidence", "user_satisfaction"]
    return {"turns": [{"id": t, "outcome": outcome, "reason": f"e2e judged {t}", "feedback_on_previous":
                       "negative" if t == "t2" else "none", "confidence": 0.9,
                       "scores": {c: 40 for c in criteria}, "lesson": None, **extra} for t in turns]}


def _structured(answer: dict) -> list[dict]:
    """One scripted ``claude -p`` run: the model calls StructuredOutput, then ends its turn."""
    return [{"tool_use": {"name": "StructuredOutput", "input": answer}}, {"text": "done"}]


def _judge(world: dict, project: Path, script: list[dict]) -> tuple[dict, MockServer]:
    mock = MockServer(world["tmp"] / "mock", script, reply="I cannot help with that.")
    os.environ["ANTHROPIC_BASE_URL"] = mock.url
    try:
        jobs.enqueue({"kind": "evaluate", "agent": "main", "session_id": "sess-e2e-judge", "event": "SessionEnd",
                      "transcript_path": str(world["transcript"]), "cwd": str(project)}, spawn=False)
        report = drain.drain(wait=True, lag_wait=0)
    finally:
        mock.stop()
        os.environ.pop("ANTHROPIC_BASE_URL", None)
    assert report["failed"] == 0, report["errors"]
    return report["results"][0], mock


def _records() -> dict[int, dict]:
    return {int(r.metadata["prompt_index"]): r.metadata for r in open_scope("global").get("main", "evaluations")}


def _nested_leftovers(world: dict, project: Path) -> list[str]:
    """Session files or Kioku state a nested run could have written."""
    found = [str(p) for p in (world["claude_dir"] / "projects").rglob("*.jsonl")] \
        if (world["claude_dir"] / "projects").exists() else []
    run_folder = paths.state_dir() / "model" / "run"
    found += [str(p) for p in run_folder.rglob("*")] if run_folder.exists() else []
    found += [str(p) for p in jobs.pending()]
    return found


def test_the_judge_runs_through_the_real_binary_with_exactly_its_request(judge_world: dict, project: Path) -> None:
    result, mock = _judge(judge_world, project, _structured(_answer()))
    assert result["status"] == "evaluated" and result["judge_calls"] == 1
    records = _records()
    assert records[0]["judged_by"].startswith("model:claude-haiku") and records[0]["outcome"] == "failed"
    assert records[0]["reason"] == "e2e judged t1" and records[1]["feedback_on_previous"] == "negative"
    first = mock.requests()[0]
    system = json.dumps(first["system"])
    assert SYSTEM in system and "You are Claude Code" not in system
    user_text = json.dumps([m for m in first["messages"] if m["role"] == "user"])
    assert "=== t1 ===" in user_text and "Use the fixture, not a live server." in user_text
    assert {t["name"] for t in first.get("tools", [])} <= {"StructuredOutput", "DeferredToolPlaceholder"}
    assert "haiku" in first["model"]
    assert not judge_world["fired"].exists(), judge_world["fired"].read_text()   # no hook fired inside the run
    assert _nested_leftovers(judge_world, project) == []
    day = usage.totals(usage.today(), "judge")
    assert day.calls == 1 and day.cost_usd > 0


def test_a_malformed_answer_is_asked_again_and_the_good_one_kept(judge_world: dict, project: Path) -> None:
    # valid against the schema (the binary's own check) but one turn short (Kioku's)
    script = _structured(_answer(turns=("t1",))) + _structured(_answer("partial"))
    result, mock = _judge(judge_world, project, script)
    assert result["judge_calls"] == 2 and _records()[0]["outcome"] == "partial"
    second = json.dumps(mock.requests()[2]["messages"])
    assert "Your previous answer could not be used" in second


def test_malformed_twice_leaves_the_turns_to_the_rules(judge_world: dict, project: Path) -> None:
    script = _structured(_answer(turns=("t1",))) + _structured(_answer(turns=("t2",)))
    result, _ = _judge(judge_world, project, script)
    assert "unusable answer" in result["judge_fallback"]
    assert all(m["judged_by"].startswith("rules (unusable answer") for m in _records().values())
    assert usage.totals(usage.today(), "judge").fallbacks == 2


def test_a_refusal_is_an_unusable_answer(judge_world: dict, project: Path) -> None:
    result, _ = _judge(judge_world, project, [{"text": "I cannot help with that."}] * 6)
    assert result["judge_calls"] == 2 and "unusable answer" in result["judge_fallback"]
    assert set(_records()) == {0, 1}


def test_an_oversized_answer_is_refused(judge_world: dict, project: Path) -> None:
    huge = _answer(reason="x" * 250_000)
    result, _ = _judge(judge_world, project, _structured(huge) + _structured(huge))
    assert "more than 200,000" in result["judge_fallback"]
    assert all(len(m["reason"]) < 1000 for m in _records().values())


def test_the_per_call_budget_stops_the_run_and_is_not_asked_again(judge_world: dict, project: Path) -> None:
    pricey = [{"tool_use": {"name": "StructuredOutput", "input": _answer()},
               "usage": {"input_tokens": 900_000, "output_tokens": 10}}, {"text": "done"}]
    result, mock = _judge(judge_world, project, pricey)
    assert result["judge_calls"] == 1 and "per-call cap" in result["judge_fallback"]
    assert len(mock.requests()) == 1


def test_a_hanging_api_is_killed_at_the_timeout_and_stores_nothing(judge_world: dict, project: Path) -> None:
    config = paths.kioku_home() / "config.toml"
    config.write_text("[model]\ntimeout_s = 4\n", encoding="utf-8")
    result, _ = _judge(judge_world, project, [{"sleep": 120, "text": "too late"}])
    assert result["status"] == "deferred" and _records() == {}
    assert len(jobs.pending()) == 1
    run_folder = str((paths.state_dir() / "model" / "run").resolve())
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and os.readlink(proc / "cwd") == run_folder:
                alive.append(proc.name)
        except OSError:
            continue
    assert alive == [], "the claude run outlived its timeout"
