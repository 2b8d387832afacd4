"""Signals, quality, insights and criteria on the recorded real transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kioku.core import transcript as tr
from kioku.evaluation import quality
from kioku.evaluation.api import evaluate_entries, evaluate_transcript, load_criteria
from kioku.evaluation.signals import measure


def test_bash_fail_then_success(transcripts: Path) -> None:
    ev = evaluate_transcript(transcripts / "bash_fail_then_success.jsonl", "main")
    assert ev.success is True
    assert ev.tool_errors == 1 and ev.retries == 1 and ev.tool_calls == 2
    assert ev.tokens == 45 and 0 < ev.duration_s < 60
    assert ev.feedback == 0
    assert ev.quality >= 70  # recovered: good enough to learn from
    assert any("recovered" in s for s in ev.strengths)
    assert "1 tool error(s)" in ev.weaknesses
    [insight] = ev.insights
    assert insight.category == "error_handling"
    assert insight.lesson == ("When `ls /nonexistent-dir` (Bash) fails with 'No such file or directory', "
                              "`ls` worked instead.")
    assert insight.confidence >= 0.7
    meta = ev.metadata("p1")
    for key in ("agent_name", "session_id", "task_id", "success", "quality", "duration_s", "tokens",
                "tool_errors", "retries", "feedback", "strengths", "weaknesses", "insights_count",
                "timestamp", "timestamp_epoch"):
        assert key in meta and meta[key] is not None
    assert meta["session_id"] == "00000000-0000-4000-8000-000000000001"
    assert isinstance(meta["strengths"], str) and meta["insights_count"] == 1
    assert meta["timestamp"].endswith("Z")
    # the document is a summary, not transcript output
    assert "README.md" not in ev.summary().split("Insights:")[0].split("Task:")[1].split("\n", 1)[1]


def test_plain_success_is_high_quality_without_insights(transcripts: Path) -> None:
    ev = evaluate_transcript(transcripts / "plain_success.jsonl", "main")
    assert ev.success and ev.tool_errors == 0 and ev.retries == 0
    assert ev.insights == []
    assert ev.quality > evaluate_transcript(transcripts / "bash_fail_then_success.jsonl", "main").quality


def test_subagent_transcript(transcripts: Path) -> None:
    ev = evaluate_transcript(transcripts / "subagent.agent-1.jsonl", "reviewer")
    assert ev.transcript_kind == "subagent" and ev.success
    assert ev.task == "Review the files in the project and report problems."


def test_feedback_english_and_japanese(transcripts: Path, split_turns) -> None:
    ev = evaluate_transcript(transcripts / "feedback_followups.jsonl", "main")
    # "That's wrong…" then "ありがとう、完璧です": the user's last word is positive
    assert ev.feedback == 1 and ev.success
    assert any("user reported a problem" in w for w in ev.weaknesses)
    assert any(i.category == "code_quality" for i in ev.insights)
    turns = split_turns("feedback_followups")
    assert len(turns) == 3
    first_two = [json.loads(line) for line in turns[0] + turns[1]]
    negative = evaluate_entries(first_two, "main")
    assert negative.feedback == -1 and negative.success is False
    only_ja = evaluate_entries([json.loads(line) for line in turns[2]], "main")
    assert only_ja.opening_feedback == 1  # the Japanese thanks judges the previous turn


def test_unresolved_error_is_failure(tmp_path: Path, transcripts: Path) -> None:
    lines = (transcripts / "bash_fail_then_success.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    # cut right after the failing tool result: the session ends on an error
    cut = next(i for i, line in enumerate(lines) if '"is_error":true' in line.replace(" ", ""))
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[:cut + 1]), encoding="utf-8")
    ev = evaluate_transcript(path, "main")
    assert ev.success is False and ev.tool_errors == 1
    assert "ended with an unresolved error" in ev.weaknesses
    assert ev.quality < 70 and ev.insights == []


def test_failure_admission_in_final_text(tmp_path: Path, transcripts: Path) -> None:
    lines = (transcripts / "plain_success.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    out = []
    for line in lines:
        obj = json.loads(line)
        if obj.get("type") == "assistant":
            obj["message"]["content"] = [{"type": "text", "text": "申し訳ありません、計算できませんでした。"}]
            line = json.dumps(obj, ensure_ascii=False) + "\n"
        out.append(line)
    path = tmp_path / "fail.jsonl"
    path.write_text("".join(out), encoding="utf-8")
    ev = evaluate_transcript(path, "main")
    assert ev.success is False
    assert "reported that the task could not be done" in ev.weaknesses


@pytest.mark.parametrize("name,dimension", [
    ("accuracy", "correctness"), ("Correctness", "correctness"), ("efficiency", "efficiency"),
    ("speed", "efficiency"), ("confidence", "confidence"), ("completeness", "completeness"),
    ("documentation", "documentation"), ("test coverage", "testing"), ("thoroughness", "completeness"), ("testing", "testing"),
    ("user satisfaction", "feedback"), ("正確さ", "correctness"), ("vibes", "outcome"),
])
def test_criterion_keywords(name: str, dimension: str) -> None:
    assert quality.dimension_for(name) == dimension


def test_criteria_weights_change_quality(transcripts: Path) -> None:
    sig = measure(tr.parse(tr.read_from(transcripts / "bash_fail_then_success.jsonl")[0]))
    q_eff, per_eff = quality.score(sig, {"efficiency": 100})
    q_doc, _ = quality.score(sig, {"completeness": 100})
    q_mix, per_mix = quality.score(sig, {"efficiency": 50, "completeness": 50})
    assert q_eff < q_doc  # one retry costs efficiency, not completeness
    assert q_mix == pytest.approx((q_eff + q_doc) / 2, abs=0.1)
    assert set(per_mix) == {"efficiency", "completeness"}
    assert quality.score(sig, None)[0] == quality.score(sig, quality.DEFAULT_CRITERIA)[0]


def test_agent_criteria_from_agent_file(project: Path, transcripts: Path) -> None:
    from kioku.render.section import render_section

    section = render_section("reviewer", {"efficiency": 80, "documentation": 20}, {"code_quality": "global"}, False)
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "code-reviewer-file.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review code.\n\n" + section, encoding="utf-8")
    assert load_criteria("reviewer", project) == {"efficiency": 80, "documentation": 20}
    assert load_criteria("nobody", project) is None
    ev_default = evaluate_transcript(transcripts / "bash_fail_then_success.jsonl", "reviewer")
    ev_agent = evaluate_transcript(transcripts / "bash_fail_then_success.jsonl", "reviewer",
                                   load_criteria("reviewer", project))
    assert ev_agent.criteria_source == "agent" and set(ev_agent.criteria_scores) == {"efficiency", "documentation"}
    assert ev_agent.quality != ev_default.quality


def test_insights_are_short_and_redacted(tmp_path: Path, transcripts: Path) -> None:
    lines = (transcripts / "bash_fail_then_success.jsonl").read_text(encoding="utf-8")
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    long_cmd = f"ls -H 'x-api-key: {secret}' https://example.invalid/v1/" + "x" * 300  # fixed by a later `ls`
    path = tmp_path / "secret.jsonl"
    path.write_text(lines.replace("ls /nonexistent-dir", long_cmd.replace("'", "\\u0027")), encoding="utf-8")
    ev = evaluate_transcript(path, "main")
    [insight] = ev.insights
    assert secret not in insight.lesson and secret not in ev.summary()
    assert len(insight.lesson) < 250
