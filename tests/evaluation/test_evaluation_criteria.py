"""An agent's quality criteria: read from its agent file, mapped to dimensions, weighting a turn's score."""

from __future__ import annotations

from pathlib import Path

import pytest

from kioku.evaluation import quality
from kioku.evaluation.criteria import load_criteria
from kioku.evaluation.per_turn import evaluate_path


@pytest.mark.parametrize("name,dimension", [
    ("accuracy", "correctness"), ("Correctness", "correctness"), ("efficiency", "efficiency"),
    ("speed", "efficiency"), ("confidence", "confidence"), ("completeness", "completeness"),
    ("documentation", "documentation"), ("test coverage", "testing"), ("thoroughness", "completeness"),
    ("testing", "testing"), ("user satisfaction", "feedback"), ("正確さ", "correctness"), ("vibes", "outcome"),
])
def test_criterion_keywords(name: str, dimension: str) -> None:
    assert quality.dimension_for(name) == dimension


def test_criteria_weights_change_a_turns_quality(transcripts: Path) -> None:
    [verdict] = evaluate_path(transcripts / "bash_fail_then_success.jsonl").verdicts
    q_eff, _ = quality.score_turn(verdict, {"efficiency": 100})
    q_done, _ = quality.score_turn(verdict, {"completeness": 100})
    q_mix, per_mix = quality.score_turn(verdict, {"efficiency": 50, "completeness": 50})
    assert q_eff < q_done  # one recovered error costs efficiency, not completeness
    assert q_mix == pytest.approx((q_eff + q_done) / 2, abs=0.1)
    assert set(per_mix) == {"efficiency", "completeness"}
    assert quality.score_turn(verdict, None)[0] == quality.score_turn(verdict, quality.DEFAULT_CRITERIA)[0]


def test_agent_criteria_from_agent_file(project: Path, transcripts: Path) -> None:
    from kioku.render.section import render_section

    section = render_section("reviewer", {"efficiency": 80, "documentation": 20}, {"code_quality": "global"}, False)
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "code-reviewer-file.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review code.\n\n" + section, encoding="utf-8")
    assert load_criteria("reviewer", project) == {"efficiency": 80, "documentation": 20}
    assert load_criteria("nobody", project) is None
    [verdict] = evaluate_path(transcripts / "bash_fail_then_success.jsonl").verdicts
    default, _ = quality.score_turn(verdict, None)
    agent, per = quality.score_turn(verdict, load_criteria("reviewer", project))
    assert set(per) == {"efficiency", "documentation"} and agent != default
