"""The "no use" margin read through the judge's measured rates: evidence from a judge that errs asks
a smaller measured lift, and every credit row records which judge decided it."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from kioku.evaluation.judge import calibration
from kioku.evaluation.verdict import TurnVerdict
from kioku.learning import evidence, ledger, lifecycle
from kioku.learning import uplift as up
from kioku.learning.credit import apply_turn_verdicts


def test_the_family_of_each_judge():
    assert calibration.family("model:haiku") == "model"
    assert calibration.family("model:haiku (answers from dir)") == "model"
    assert calibration.family("rules") == "rules"
    assert calibration.family("rules (unusable answer: no JSON)") == "rules"
    assert calibration.family("") == calibration.family(None) == calibration.family("user") == "exact"
    assert calibration.rates("no such judge") == calibration.rates(None) == calibration.EXACT


def test_mixed_rates_weigh_each_judge_by_its_turns():
    hit, miss = calibration.mixed({"model": 3.0, "rules": 1.0})
    assert hit == pytest.approx((3 * calibration.MODEL[0] + calibration.RULES[0]) / 4)
    assert miss == pytest.approx((3 * calibration.MODEL[1] + calibration.RULES[1]) / 4)
    assert calibration.mixed({}) == calibration.mixed({"model": 0.0}) == calibration.EXACT


def _arm(n: int, successes: int) -> tuple:
    return (n, successes, float(n), float(n), float(successes))


def test_exact_verdicts_keep_the_margin_as_it_was():
    held = _arm(100, 70)  # 30 % failures left: 0.4 of them is 0.12, capped at 0.10
    assert lifecycle.no_use_margin(held) == pytest.approx(lifecycle.NO_USE_MARGIN_MAX)
    assert lifecycle.no_use_margin(_arm(100, 95)) == pytest.approx(lifecycle.NO_USE_MARGIN)
    assert lifecycle.no_use_margin(_arm(0, 0)) == pytest.approx(lifecycle.NO_USE_MARGIN)


def test_a_judge_that_errs_shrinks_the_margin_by_the_gap_between_its_rates():
    hit, miss = rates = (0.85, 0.05)
    # a measured rate of 0.05 + 0.8 * 0.9 = 0.77 is a true success rate of 0.9: 10 % failures left
    measured = _arm(1000, round(1000 * (miss + (hit - miss) * 0.9)))
    margin = lifecycle.no_use_margin(measured, rates)
    assert margin == pytest.approx((hit - miss) * lifecycle.NO_USE_MARGIN, rel=1e-3)
    # the same evidence read as exact looks like 23 % failures left: a larger margin
    assert lifecycle.no_use_margin(measured) == pytest.approx(lifecycle.NO_USE_SHARE_OF_FAILURES * 0.23, rel=1e-2)
    # a judge no better than a coin is read as if its rates were MIN_JUDGE_SPREAD apart
    assert lifecycle.no_use_margin(_arm(0, 0), (0.5, 0.5)) == pytest.approx(
        lifecycle.MIN_JUDGE_SPREAD * lifecycle.NO_USE_MARGIN)


def test_the_same_evidence_is_no_use_from_exact_verdicts_and_kept_from_a_model_judge():
    given, held = _arm(400, 258), _arm(400, 248)  # measured lift +0.025, held-back success 0.62
    harm = up.weighted_uplift(given, held, z=up.DEPRECATE_Z)
    exact_margin = lifecycle.no_use_margin(held)
    model_margin = lifecycle.no_use_margin(held, calibration.MODEL)
    assert model_margin < harm.high < exact_margin  # the case the calibration decides
    exact = lifecycle.decide({"confidence": 0.8}, (given, held))
    model = lifecycle.decide({"confidence": 0.8}, (given, held), calibration.MODEL)
    assert exact.get("deprecated") is True and exact["decision_reason"].startswith("no use")
    assert not model.get("deprecated")


def test_credit_rows_record_the_judge_and_the_lifecycle_reads_the_mix(project):
    session = "cal-s1"
    for prompt_id in ("p1", "p2"):
        ledger.open_turn(session, "main", prompt_id=prompt_id, prompt_sha256="", given={"L1": "global"},
                         held_back={"L2": "global"}, project_root=str(project), propensity={"L1": 0.5, "L2": 0.5})
    verdicts = [TurnVerdict(prompt_uuid="u1", prompt_index=0, prompt_id="p1", outcome="success",
                            judged_by="model:haiku"),
                TurnVerdict(prompt_uuid="u2", prompt_index=1, prompt_id="p2", outcome="failed",
                            judged_by="rules (unusable answer: no JSON)")]
    apply_turn_verdicts("main", session, verdicts, project)
    with closing(sqlite3.connect(evidence.db_path())) as conn:
        rows = sorted(conn.execute("SELECT lesson, turn, judge FROM credits WHERE session=?", (session,)))
    assert rows == [("L1", "t1", "model"), ("L1", "t2", "rules"), ("L2", "t1", "model"), ("L2", "t2", "rules")]
    mix = evidence.judges("main", ["L1", "L2", "L3"])
    assert mix["L1"] == {"model": pytest.approx(2.0), "rules": pytest.approx(2.0)}
    assert mix["L3"] == {}


def test_a_ledger_made_before_the_judge_was_recorded_gains_the_column(project):
    path = evidence.db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE credits (agent TEXT NOT NULL, lesson TEXT NOT NULL, scope TEXT NOT NULL,"
                     " session TEXT NOT NULL, turn TEXT NOT NULL, arm TEXT NOT NULL, success INTEGER NOT NULL,"
                     " at REAL NOT NULL, PRIMARY KEY (agent, lesson, session, turn))")
        conn.execute("INSERT INTO credits VALUES ('main', 'old', 'global', 's0', 't1', 'held_back', 1, 0.0)")
        conn.commit()
    assert evidence.judges("main", ["old"]) == {"old": {"exact": pytest.approx(1.0)}}
    evidence.write_turn("main", "s1", "t1", {"old": "global"}, {}, True, 0.0, {"old": 0.5}, "model")
    assert evidence.judges("main", ["old"])["old"] == {"exact": pytest.approx(1.0), "model": pytest.approx(2.0)}
