"""The learning-loop simulation runs the real code, reports its ceilings and leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _simulate(out: Path, scratch: Path, harmful: int) -> dict:
    """12 sessions of the learning-loop bench (2 helpful, ``harmful`` harmful, 2 neutral lessons)."""
    res = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench" / "learning_loop.py"), "--sessions", "12",
         "--helpful", "2", "--harmful", str(harmful), "--neutral", "2", "--seed", "5", "--json", str(out)],
        env={**os.environ, "TMPDIR": str(scratch)}, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(out.read_text())


def test_simulation_reports_both_ceilings_and_removes_its_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = _simulate(tmp_path / "loop.json", scratch, harmful=2)
    assert 0.0 < result["eligible_oracle_success_last_100"] <= result["oracle_success"] <= 0.99
    assert result["params"]["sessions"] == 12
    for key in ("harmful_deprecated", "helpful_deprecated", "neutral_promoted", "harmful_out", "helpful_suspended"):
        assert isinstance(result[key], float) and 0.0 <= result[key] <= 1.0, key
    mix = result["last_100"]  # what the last sessions got, by lesson type
    assert mix["helpful_given"] <= mix["helpful_eligible"]
    assert mix["at_eligible_ceiling"] + mix["with_harmful"] + mix["short_of_helpful"] >= 1.0 - 2e-3  # shares rounded
    assert result["expected_success_last_100"] <= mix["expected_success_without_harmful"] <= 0.99
    assert mix["helpful_given"] + mix["neutral_given"] + mix["harmful_given"] <= 5
    # with no harmful lesson in the store, none is counted and leaving them out changes nothing
    result = _simulate(tmp_path / "no_harm.json", scratch, harmful=0)
    mix = result["last_100"]
    assert mix["harmful_given"] == mix["with_harmful"] == 0
    assert mix["expected_success_without_harmful"] == result["expected_success_last_100"]
    assert mix["helpful_given"] > 0 and abs(mix["at_eligible_ceiling"] + mix["short_of_helpful"] - 1.0) <= 2e-3
    # the temporary store is gone (a third-party library may leave a small marker file of its own)
    assert [p.name for p in scratch.iterdir() if p.is_dir()] == []


def test_reference_learner_learns_and_reports_what_the_regime_allows(tmp_path: Path) -> None:
    out = tmp_path / "bound.json"
    res = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench" / "learning_bound.py"), "--base-success", "0.5",
         "--effect", "0.2", "--sessions", "300", "--seeds", "3", "--json", str(out)],
        capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["regime"]["sessions"] == 300
    for learner in ("thompson_all", "thompson_lexical"):
        r = report[learner]
        # it learns: the last 100 sessions do far better than the base rate, within the ceiling
        assert 0.7 < r["expected_last_100"] <= r["eligible_ceiling_last_100"] <= r["oracle"] == 0.99
        assert 0.0 <= r["harmful_with_evidence"] <= 1.0 and r["harmful_given_turns_median"] > 0
    assert report["thompson_lexical"]["eligible_ceiling_last_100"] <= report["thompson_all"]["eligible_ceiling_last_100"]


def test_crowding_bench_shows_that_slots_by_score_keep_the_lesson_about_the_task(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = tmp_path / "crowding.json"
    res = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench" / "lesson_crowding.py"), "--floors", "0.3,0",
         "--sessions", "30", "--json", str(out)],
        env={**os.environ, "TMPDIR": str(scratch)}, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(out.read_text())
    for order in ("by_score", "random"):
        strict, loose = report["orders"][order]["0.3"], report["orders"][order]["0.0"]
        assert len(strict["tasks"]) == len(loose["tasks"]) >= 5
        # with no floor more lessons are eligible
        assert all(s["eligible"] <= l["eligible"] for s, l in zip(strict["tasks"], loose["tasks"]))
    # in random order they push the lessons written for the task out; by score they hardly do
    random, by_score = report["orders"]["random"], report["orders"]["by_score"]
    assert random["0.3"]["gold_given_mean"] > random["0.0"]["gold_given_mean"] + 0.2
    assert by_score["0.0"]["gold_given_mean"] > random["0.0"]["gold_given_mean"] + 0.2
    assert [p.name for p in scratch.iterdir() if p.is_dir()] == []


def test_no_use_error_bench_runs_the_rule_with_and_without_the_check_between_looks(tmp_path: Path) -> None:
    def run(lift: str) -> dict:
        out = tmp_path / f"no_use_{lift}.json"
        res = subprocess.run(
            [sys.executable, str(REPO / "scripts" / "bench" / "no_use_error.py"), "--lift", lift, "--base", "0.7",
             "--turns", "400", "--paths", "150", "--json", str(out)],
            capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr[-2000:]
        return json.loads(out.read_text())["bases"]["0.7"]

    nothing, strong = run("0.0"), run("0.3")
    for row in (nothing, strong):
        for version in row.values():
            assert abs(sum(version.values()) - 1.0) < 1e-3
        assert "no use, between looks" not in row["at looks only"]
    # a lesson that does nothing is retired as "no use", sooner with the check between looks
    rule, looks = nothing["rule"], nothing["at looks only"]
    assert rule.get("no use, between looks", 0) > 0.05
    assert rule.get("no use, between looks", 0) + rule.get("no use, at a look", 0) > looks.get("no use, at a look", 0)
    # a lesson that lifts success by 0.3 is promoted, never retired
    assert strong["rule"].get("promoted", 0) > 0.9 and not any(k.startswith(("no use", "hurts")) for k in strong["rule"])


def test_the_noisy_judge_keeps_its_rates_and_the_derived_false_alarm_rate() -> None:
    import random

    sys.path.insert(0, str(REPO / "scripts" / "bench"))
    from judge_noise import HURT_FALSE, NoisyJudge, false_alarm_rate, hurt_rates

    # 16 of 130 turns negative, recall 0.82, precision 0.93: 13.1 found, 0.99 false alarms in 114 others
    assert false_alarm_rate(0.82, 0.93, 16, 130) == pytest.approx(0.82 * 16 * 0.07 / 0.93 / 114)
    # the model judge: 40 of 48 found, 3 false alarms (40 of 43 right) in the 342 others, over three answer sets
    assert HURT_FALSE == hurt_rates("model")[1] == pytest.approx(1 / 114, abs=1e-4)
    # the rules: 8 of 16 found, 3 false alarms (8 of 11 right)
    assert hurt_rates("rules") == pytest.approx((0.5, 3 / 114), abs=1e-4)
    assert hurt_rates("perfect") == (1.0, 0.0)
    judge, rng = NoisyJudge.named("model", attribution=True, relevance=True), random.Random(3)
    n = 20000
    assert abs(sum(judge.outcome(True, rng) == "success" for _ in range(n)) / n - 224 / 267) < 0.01
    assert abs(sum(judge.outcome(False, rng) == "success" for _ in range(n)) / n - 6 / 96) < 0.01
    hurts = [judge.uses(["bad", "good"], ["held"], {"bad"}, {"bad", "good"}, False, rng) for _ in range(n)]
    assert abs(sum(u[0]["effect"] == "hurt" for u in hurts) / n - 40 / 48) < 0.01     # the harmful one, failed
    assert sum(u[1]["effect"] == "hurt" for u in hurts) / n < 0.02                    # a helpful one: false alarms
    assert all(u[2]["followed"] is None and u[2]["effect"] == "none" for u in hurts)  # held back
    off_task = judge.uses(["bad"], [], {"bad"}, set(), False, rng)
    assert off_task[0]["relevant"] is False
    assert NoisyJudge.named("model").uses(["bad"], [], {"bad"}, {"bad"}, False, rng) == []   # no attribution
    perfect = NoisyJudge.named("perfect", attribution=True)
    assert (perfect.success_if_success, perfect.success_if_failure, perfect.hurt_recall, perfect.hurt_false) == (
        1.0, 0.0, 1.0, 0.0)


def _loop(tmp_path: Path, name: str, *flags: str) -> dict:
    scratch = tmp_path / f"scratch-{name}"
    scratch.mkdir()
    out = tmp_path / f"{name}.json"
    res = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench" / "learning_loop.py"), "--sessions", "120", "--helpful", "2",
         "--harmful", "4", "--neutral", "2", "--seed", "5", *flags, "--json", str(out)],
        env={**os.environ, "TMPDIR": str(scratch)}, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(out.read_text())


@pytest.mark.slow
def test_the_loop_learns_less_from_a_noisier_judge_and_attribution_takes_harmful_lessons_out_sooner(tmp_path: Path):
    perfect = _loop(tmp_path, "perfect")
    noisy = _loop(tmp_path, "noisy", "--success-if-success", "0.9", "--success-if-failure", "0.5")
    blind = _loop(tmp_path, "blind", "--success-if-success", "1", "--success-if-failure", "1")  # says success always
    attributed = _loop(tmp_path, "attributed", "--judge", "model", "--attribution", "--relevance")
    assert noisy["judge"]["success_if_failure"] == 0.5 and attributed["judge"]["hurt_recall"] == 40 / 48
    # the noisier the verdicts, the less of a lesson's effect the uplift sees: a judge that never sees
    # a failure gives it nothing, and no harmful lesson is found out
    harm = [run["mean_uplift"]["harmful"] for run in (perfect, noisy, blind)]
    assert harm[0] < harm[1] < harm[2] == 0.0
    assert blind["mean_uplift"]["helpful"] == blind["mean_uplift"]["neutral"] == 0.0
    assert blind["harmful_deprecated"] == blind["harmful_out"] == 0.0
    # told which lessons hurt, the loop takes every harmful lesson out within a few of its own turns
    out = attributed["timing"]["harmful"]["out"]
    assert attributed["harmful_out"] == 1.0 and all(turns is not None and turns <= 15 for turns in out)
    assert perfect["harmful_out"] < 1.0 and max(out) < min(perfect["timing"]["harmful"]["eligible"])  # not so without
    assert sum(attributed["timing"]["harmful"]["hurts"]) >= 4
    # with attribution the harmful lessons cost less while the loop learns
    assert attributed["expected_success_all"] > perfect["expected_success_all"]
