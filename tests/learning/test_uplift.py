"""Uplift statistics and the decision rule on hand-computed cases."""

from __future__ import annotations

import pytest

from kioku.learning import lifecycle
from kioku.learning import uplift as up


def test_wilson_matches_published_values():
    lo, hi = up.wilson(4, 10)
    assert lo == pytest.approx(0.1682, abs=1e-3) and hi == pytest.approx(0.6873, abs=1e-3)
    assert up.wilson(0, 0) == (0.0, 1.0)


def test_newcombe_hybrid_interval_matches_newcombe_1998_example():
    # Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 vs 48/80,
    # method 10 gives 0.0524 to 0.3339 around a difference of 0.2.
    u = up.uplift_interval(56, 70, 48, 80)
    assert u.uplift == pytest.approx(0.2)
    assert u.low == pytest.approx(0.0524, abs=5e-4) and u.high == pytest.approx(0.3339, abs=5e-4)


def test_uplift_undefined_until_both_arms_have_turns():
    u = up.uplift_interval(3, 5, 0, 0)
    assert not u.defined and (u.low, u.high) == (-1.0, 1.0)


def test_look_schedule_grows_by_half():
    assert up.look_schedule(100) == [10, 15, 22, 34, 51, 76]
    assert [up.looks_passed(n) for n in (9, 10, 14, 15, 114, 10**6)] == [0, 1, 1, 2, 7, up.MAX_LOOKS]


@pytest.mark.parametrize("z,alpha", [(up.PROMOTE_Z, 0.075), (up.DEPRECATE_Z, 0.20)])
def test_boundaries_hold_their_error_rate_over_all_looks(z, alpha):
    """Re-derives the constants: a no-effect statistic crosses with probability ~alpha, not more."""
    rate = up.crossing_rate(z, paths=20000, seed=11)
    assert alpha - 0.012 <= rate <= alpha + 0.006
    # the uncorrected 95 % quantile would cross far more often over ten looks
    assert up.crossing_rate(1.645, paths=20000, seed=11) > 2 * 0.05


def test_decide_deprecates_on_harm_only_at_a_look():
    meta = {"confidence": 0.8}
    # 2/10 given vs 9/10 held back: the first look (smaller arm 10)
    change = lifecycle.decide(meta, (10, 2, 10, 9))
    assert change["deprecated"] is True and change["looks"] == 1
    assert change["decision_reason"].startswith("hurts: uplift -0.70")
    # 3/10 vs 7/10 is "significant" at an uncorrected 90 % but not at the corrected boundary
    assert up.uplift_interval(3, 10, 7, 10, z=1.645).high < 0
    assert "deprecated" not in lifecycle.decide(meta, (10, 3, 10, 7))
    # the same rates at 11 turns given / 9 held back: no look, evidence only
    change = lifecycle.decide(meta, (11, 2, 9, 8))
    assert "deprecated" not in change and "looks" not in change
    assert change["turns_given"] == 11 and change["uplift"] == pytest.approx(2 / 11 - 8 / 9, abs=1e-6)


def test_decide_promotes_when_interval_above_zero_and_keeps_seed_counters():
    change = lifecycle.decide({"confidence": 0.8}, (20, 18, 20, 8))
    assert change["promoted"] is True and change["confidence"] == 0.85
    assert (change["usage_count"], change["success_count"], change["success_rate"]) == (20, 18, 0.9)


def test_decide_no_use_needs_a_narrow_interval_below_the_margin_and_spares_user_lessons(monkeypatch):
    n = lifecycle.NO_USE_MIN_TURNS
    assert n in up.look_schedule(n)  # the rule starts at a look
    # 51 turns each side, both arms 98 % successful: the interval at DEPRECATE_Z is about
    # -0.07 to +0.07, so a lift of 0.05 is not ruled out: no decision yet
    wide = up.weighted_uplift(*lifecycle.arms_of((51, 50, 51, 50)), z=up.DEPRECATE_Z)
    assert wide.high > lifecycle.no_use_margin(lifecycle.arms_of((51, 50, 51, 50))[1]) == lifecycle.NO_USE_MARGIN
    assert "deprecated" not in lifecycle.decide({"confidence": 0.8}, (51, 50, 51, 50))
    # at the first look past 1,000 turns each side, both at 50 %: interval within about ±0.04 - no use
    point = next(p for p in up.look_schedule(10**5) if p >= 1000)
    counts = (point, point // 2, point, point // 2)
    narrow = up.weighted_uplift(*lifecycle.arms_of(counts), z=up.DEPRECATE_Z)
    assert narrow.low < 0 < narrow.high < lifecycle.NO_USE_MARGIN
    change = lifecycle.decide({"confidence": 0.8}, counts)
    assert change["deprecated"] is True and change["decision_reason"].startswith("no use: uplift +0.00")
    # half of the turns fail without it: the margin is 40 % of 0.5, at most 0.10
    assert "helps by less than 0.100" in change["deprecated_reason"]
    assert "deprecated" not in lifecycle.decide({"confidence": 0.8, "learned_from": "user_feedback"}, counts)
    # a lesson that helps by 0.10 at the same size is kept (its interval lies above the margin's reach)
    helps = (point, point // 2 + point // 10, point, point // 2)
    assert "deprecated" not in lifecycle.decide({"confidence": 0.8}, helps)
    # below the minimum number of turns "no use" is not decided, however narrow the interval
    monkeypatch.setattr(lifecycle, "NO_USE_MIN_TURNS", point + 1)
    assert "deprecated" not in lifecycle.decide({"confidence": 0.8}, counts)


def test_no_use_margin_is_a_share_of_the_failures_left_between_its_bounds():
    def held(turns: int, successes: int) -> tuple:
        return lifecycle.arms_of((turns, successes, turns, successes))[1]

    assert lifecycle.no_use_margin(held(100, 90)) == 0.05            # 0.4 x 0.10 = 0.04: the floor
    assert lifecycle.no_use_margin(held(100, 80)) == pytest.approx(0.08)  # 0.4 x 0.20
    assert lifecycle.no_use_margin(held(100, 50)) == 0.10            # 0.4 x 0.50 = 0.20: the ceiling
    assert lifecycle.no_use_margin(held(0, 0)) == 0.05               # nothing to compare: the floor
    # weighted turns count by their weights: 170 of 200 weighted turns succeed, 0.4 x 0.15
    assert lifecycle.no_use_margin((120, 100, 200.0, 400.0, 170.0)) == pytest.approx(0.06)
    # the same lift of 0.04 for a promoted lesson at a look: retired where half of the turns fail
    # without it (0.04 is 8 % of those failures), kept where one in ten fails (40 % of them)
    promoted = {"confidence": 0.85, "promoted": True}
    point = next(p for p in up.look_schedule(10**5) if p >= 1000)
    low_base = (point, point // 2 + point * 4 // 100, point, point // 2)
    high_base = (point, point * 94 // 100, point, point * 9 // 10)
    for counts, retired in ((low_base, True), (high_base, False)):
        interval = up.weighted_uplift(*lifecycle.arms_of(counts), z=up.DEPRECATE_Z)
        assert interval.low > 0 and 0.05 < interval.high < 0.10
        assert bool(lifecycle.decide(promoted, counts).get("deprecated")) is retired
    assert "helps by less than 0.100" in lifecycle.decide(promoted, low_base)["deprecated_reason"]
    # a lesson not yet promoted and clear of zero at the promotion boundary is promoted instead
    assert lifecycle.decide({"confidence": 0.8}, high_base)["promoted"] is True


def test_no_use_margin_is_taken_from_the_weighted_rate_of_the_turns_without_the_lesson():
    # weighted arms (turns, successes, Σw, Σw², Σw·success): given 0.82 weighted, held back 0.75
    # weighted (0.90 counted plainly), so the uplift is +0.07 and the margin 0.4 x 0.25 -> 0.10
    given = (2000, 1640, 4000.0, 8000.0, 3280.0)
    held = (2000, 1800, 4000.0, 8000.0, 3000.0)
    interval = up.weighted_uplift(given, held, z=up.DEPRECATE_Z)
    assert interval.uplift == pytest.approx(0.07) and 0.09 < interval.high < 0.10
    # the margin the plain rate (0.05) or the given arm's rate (0.072) would give keeps the lesson
    assert lifecycle.no_use_margin(held) == pytest.approx(0.10)
    change = lifecycle.decide({"confidence": 0.85, "promoted": True}, (given, held))
    assert change["deprecated"] is True and "helps by less than 0.100" in change["deprecated_reason"]


def test_decide_checks_no_use_between_looks_only_for_a_lesson_measured_below_the_lean():
    # 40 turns a side lies between the fourth look (34) and the fifth (51)
    assert up.looks_passed(40) == up.looks_passed(34) == 4 and 40 not in up.look_schedule(51)
    meta = {"confidence": 0.8, "looks": 4}
    # 14/40 given vs 22/40 held back: uplift -0.20, interval at DEPRECATE_Z below +0.05 but not below 0
    leans = up.weighted_uplift(*lifecycle.arms_of((40, 14, 40, 22)), z=up.DEPRECATE_Z)
    assert leans.uplift < lifecycle.NO_USE_BETWEEN_LOOKS_BELOW and 0 < leans.high < lifecycle.NO_USE_MARGIN
    change = lifecycle.decide(meta, (40, 14, 40, 22))
    assert change["deprecated"] is True and "looks" not in change
    assert change["decision_reason"].startswith("no use: uplift -0.20") and change["decision_reason"].endswith(
        "between looks")
    # the user's lesson is never retired so; a deprecated one is not decided again
    assert "deprecated" not in lifecycle.decide({**meta, "learned_from": "user_feedback"}, (40, 14, 40, 22))
    assert "decision_reason" not in lifecycle.decide({**meta, "deprecated": True}, (40, 14, 40, 22))
    # a lesson restored by hand since its last look waits for the next look
    restored = {**meta, "looked_at_epoch": 100.0, "restored_at_epoch": 200.0}
    assert "deprecated" not in lifecycle.decide(restored, (40, 14, 40, 22))
    assert lifecycle.decide({**restored, "looked_at_epoch": 300.0}, (40, 14, 40, 22))["deprecated"] is True
    assert lifecycle.decide(restored, (51, 18, 51, 28))["looked_at_epoch"] > 200.0  # the fifth look
    # an interval still reaching the margin waits (18/40 vs 22/40: uplift -0.10, margin 0.10)
    reaching = up.weighted_uplift(*lifecycle.arms_of((40, 18, 40, 22)), z=up.DEPRECATE_Z)
    assert reaching.high > lifecycle.no_use_margin(lifecycle.arms_of((40, 18, 40, 22))[1]) == 0.10
    assert "deprecated" not in lifecycle.decide(meta, (40, 18, 40, 22))
    # one whose interval ends between 0.05 and that margin is retired between looks (18/45 vs 23/45)
    below = up.weighted_uplift(*lifecycle.arms_of((45, 18, 45, 23)), z=up.DEPRECATE_Z)
    assert up.looks_passed(45) == 4 and 0.05 < below.high < 0.10
    assert lifecycle.decide(meta, (45, 18, 45, 23))["decision_reason"].endswith("between looks")
    # below the fourth look, however clear the lean, nothing is decided between looks
    early = {"confidence": 0.8, "looks": 3}
    assert up.looks_passed(30) == 3 and "deprecated" not in lifecycle.decide(early, (30, 5, 30, 20))
    # a narrow interval below the margin, but an estimate above the lean (-0.02): only a look decides
    point = next(p for p in up.look_schedule(10**5) if p >= 1000)
    n = point + 50
    flat = (n, n // 2 - n // 50, n, n // 2)
    narrow = up.weighted_uplift(*lifecycle.arms_of(flat), z=up.DEPRECATE_Z)
    assert lifecycle.NO_USE_BETWEEN_LOOKS_BELOW < narrow.uplift < 0 and narrow.high < lifecycle.NO_USE_MARGIN
    assert "deprecated" not in lifecycle.decide({"confidence": 0.8, "looks": up.looks_passed(n)}, flat)
    assert lifecycle.decide({"confidence": 0.8, "looks": up.looks_passed(n) - 1}, flat)["deprecated"] is True


def test_decide_withdraws_a_promotion_once_the_uplift_is_no_longer_above_zero():
    promoted = {"confidence": 0.85, "confidence_before_promotion": 0.8, "promoted": True, "looks": 1,
                "decision_reason": "helps: uplift +0.60 ..., look 1"}
    # the second look (smaller arm 15): 8/15 given vs 8/15 held back, no harm shown, too few turns for "no use"
    change = lifecycle.decide(promoted, (15, 8, 15, 8))
    assert "deprecated" not in change
    assert change["promoted"] is False and change["confidence"] == 0.8 and change["promoted_at"] == ""
    assert change["decision_reason"].startswith("promotion withdrawn: uplift +0.00")
    # still above zero (10/15 vs 8/15): the promotion and its reason stay
    kept = lifecycle.decide(promoted, (15, 10, 15, 8))
    assert "promoted" not in kept and "decision_reason" not in kept and kept["looks"] == 2
    # only at a look: the same even rates at 16 / 14 turns change nothing
    assert "promoted" not in lifecycle.decide(promoted, (16, 8, 14, 7))
    # harm shown at the look deprecates instead (the promotion stays on record with the deprecation)
    assert lifecycle.decide(promoted, (15, 2, 15, 13))["decision_reason"].startswith("hurts:")
    # once withdrawn, the lesson can be promoted again at a later look
    again = lifecycle.decide({**promoted, **change}, (22, 20, 22, 8))
    assert again["promoted"] is True and again["confidence"] == 0.85 and again["confidence_before_promotion"] == 0.8
    # without a recorded confidence from before, one promotion step comes off
    unrecorded = {k: v for k, v in promoted.items() if k != "confidence_before_promotion"}
    assert lifecycle.decide(unrecorded, (15, 8, 15, 8))["confidence"] == 0.8
    # at the first look past 1,000 turns a side, an interval narrow around zero retires it as "no use"
    # instead; a lesson the user taught is never retired so, and loses only its promotion
    point = next(p for p in up.look_schedule(10**5) if p >= 1000)
    flat = (point, point // 2, point, point // 2)
    assert lifecycle.decide(promoted, flat)["decision_reason"].startswith("no use:")
    taught = lifecycle.decide({**promoted, "learned_from": "user_feedback"}, flat)
    assert "deprecated" not in taught and taught["promoted"] is False


def test_decide_never_repeats_a_look_already_taken():
    change = lifecycle.decide({"confidence": 0.8, "looks": 1}, (10, 2, 10, 9))
    assert "deprecated" not in change


def test_decide_takes_its_boundaries_from_the_calibration():
    """At the look at 51 turns a side, the decisions change exactly where the calibrated
    boundaries put them: a boundary a little lower or higher would decide these differently."""
    assert 51 in up.look_schedule(51)
    meta = {"confidence": 0.8}
    # 25/51 given vs 35/51 held back: below zero at z 1.91 (hurts), not at 2.11
    assert up.uplift_interval(25, 51, 35, 51, z=up.DEPRECATE_Z).high < 0 <= up.uplift_interval(25, 51, 35, 51, z=2.11).high
    assert lifecycle.decide(meta, (51, 25, 51, 35))["decision_reason"].startswith("hurts:")
    # 26/51 vs 35/51: below zero at z 1.71, not at 1.91 - narrow enough for "no use", not "hurts"
    assert up.uplift_interval(26, 51, 35, 51, z=1.71).high < 0 <= up.uplift_interval(26, 51, 35, 51, z=up.DEPRECATE_Z).high
    assert lifecycle.decide(meta, (51, 26, 51, 35))["decision_reason"].startswith("no use:")
    # 40/51 vs 28/51: above zero at z 2.40 (promoted), not at 2.59
    assert up.uplift_interval(40, 51, 28, 51, z=up.PROMOTE_Z).low > 0 >= up.uplift_interval(40, 51, 28, 51, z=2.59).low
    assert lifecycle.decide(meta, (51, 40, 51, 28))["promoted"] is True
    # 41/51 vs 30/51: above zero at z 2.20, not at 2.40
    assert up.uplift_interval(41, 51, 30, 51, z=2.20).low > 0 >= up.uplift_interval(41, 51, 30, 51, z=up.PROMOTE_Z).low
    change = lifecycle.decide(meta, (51, 41, 51, 30))
    assert "promoted" not in change and change["decision_reason"].startswith("undecided:")
