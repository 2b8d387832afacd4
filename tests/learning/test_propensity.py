"""Unequal chances of being given: recorded per turn, and the uplift weighs turns by them."""

from __future__ import annotations

import pytest

from kioku.learning import evidence, ledger, lifecycle, select
from kioku.learning import uplift as up


def test_weighted_uplift_with_equal_weights_is_the_plain_interval():
    given = (70, 56, 70.0, 70.0, 56.0)   # weight 1 on every turn: Σw = Σw² = n, Σw·y = successes
    held = (80, 48, 80.0, 80.0, 48.0)
    plain = up.uplift_interval(56, 70, 48, 80)
    weighted = up.weighted_uplift(given, held)
    assert (weighted.uplift, weighted.low, weighted.high) == (plain.uplift, plain.low, plain.high)
    assert (weighted.effective_given, weighted.effective_held_back) == (70.0, 80.0)


def test_effective_arm_by_hand():
    # two turns given, with chances 1/2 (success) and 1/4 (failure): weights 2 and 4
    successes, n_eff = up.effective_arm(2 + 4, 4 + 16, 2)
    assert n_eff == pytest.approx(36 / 20)            # Kish: (Σw)² / Σw²
    assert successes / n_eff == pytest.approx(2 / 6)  # Hajek: Σw·y / Σw
    assert up.effective_arm(0.0, 0.0, 0.0) == (0.0, 0.0)


def test_inverse_weights_remove_the_bias_of_unequal_chances(project):
    """A lesson with no effect, given rarely when promoted lessons lift success, and often when not.

    Stratum A (100 turns): chance 0.2, success 0.9 either way; stratum B (100 turns): chance 0.8,
    success 0.5. Plain rates: given 58/100, not given 82/100, an uplift of -0.24 from nothing.
    Weighted: given (20·5·0.9 + 80·1.25·0.5) / (20·5 + 80·1.25) = 140/200, not given
    (80·1.25·0.9 + 20·5·0.5) / 200 = 140/200: uplift 0.
    """
    lesson = "null-lesson"
    cases = [("A", 0.2, 20, 18, 80, 72), ("B", 0.8, 80, 40, 20, 10)]
    for stratum, chance, n_given, s_given, n_held, s_held in cases:
        for n in range(n_given):
            evidence.write_turn("main", f"{stratum}g{n}", "t1", {lesson: "global"}, {}, n < s_given, 0.0,
                                {lesson: chance})
        for n in range(n_held):
            evidence.write_turn("main", f"{stratum}h{n}", "t1", {}, {lesson: "global"}, n < s_held, 0.0,
                                {lesson: chance})
    assert evidence.totals("main", [lesson])[lesson] == (100, 58, 100, 82)
    given, held = evidence.weighted_totals("main", [lesson])[lesson]
    assert given[2:] == pytest.approx((200.0, 20 * 25 + 80 * 1.5625, 140.0))
    assert held[2:] == pytest.approx((200.0, 80 * 1.5625 + 20 * 25, 140.0))
    assert up.uplift_interval(58, 100, 82, 100, z=up.DEPRECATE_Z).high < 0   # the plain rates would deprecate
    change = lifecycle.decide({"confidence": 0.8}, (given, held))
    assert change["uplift"] == pytest.approx(0.0, abs=1e-9)
    assert "deprecated" not in change and "promoted" not in change
    assert (change["turns_given"], change["success_given"]) == (100, 58)


def test_turns_with_chance_zero_or_one_weigh_nothing(project):
    evidence.write_turn("main", "s1", "t1", {"a": "global"}, {"b": "global"}, True, 0.0, {"a": 1.0, "b": 0.0})
    evidence.write_turn("main", "s2", "t1", {"a": "global"}, {"b": "global"}, True, 0.0, {"a": 0.5, "b": 0.5})
    evidence.write_turn("main", "s3", "t1", {"a": "global"}, {"b": "global"}, True, 0.0)  # no chances recorded
    assert evidence.totals("main", ["a", "b"]) == {"a": (3, 3, 0, 0), "b": (0, 0, 3, 3)}  # every turn counts
    weighted = evidence.weighted_totals("main", ["a", "b"])
    assert weighted["a"][0] == (3, 3, 2.0 + 1.0, 4.0 + 1.0, 3.0)   # weight 0 at chance 1, 1/0.5, 1 if unknown
    assert weighted["b"][1] == (3, 3, 2.0 + 1.0, 4.0 + 1.0, 3.0)


def test_recorded_chances_match_how_often_a_lesson_is_given():
    """Over many turns, Σ(given - chance) stays near 0 for every lesson: the chance is the real one."""
    pool = ([{"id": f"p{n}", "decision": "promoted"} for n in range(5)]
            + [{"id": f"u{n}", "decision": "active"} for n in range(4)])
    turns = 3000
    gap = {e["id"]: 0.0 for e in pool}
    for n in range(turns):
        chosen = select.select("main", ".", "", session_id="s", turn=str(n), k=5, hold_back=0.1, pool=pool)
        given = {e["id"] for e in chosen.given}
        assert len(given) <= 5 and set(chosen.propensity) == set(gap)
        for rec_id, chance in chosen.propensity.items():
            gap[rec_id] += (rec_id in given) - chance
    assert all(abs(g) / turns < 0.02 for g in gap.values()), gap


def test_undecided_lessons_keep_a_slot_when_promoted_ones_fill_every_slot():
    pool = ([{"id": f"p{n}", "decision": "promoted"} for n in range(6)] + [{"id": "new", "decision": "active"}])
    chosen = select.select("main", ".", "", session_id="s", turn="t", k=5, hold_back=0.0, pool=pool)
    assert [e["id"] for e in chosen.given] == ["p0", "p1", "p2", "p3", "new"]
    assert chosen.propensity == {"p0": 1.0, "p1": 1.0, "p2": 1.0, "p3": 1.0, "p4": 0.0, "p5": 0.0, "new": 1.0}
    # with nothing undecided, promoted lessons take every slot
    alone = select.select("main", ".", "", session_id="s", turn="t", k=5, hold_back=0.0, pool=pool[:6])
    assert [e["id"] for e in alone.given] == ["p0", "p1", "p2", "p3", "p4"]


def test_two_chances_in_one_turn_combine():
    assert ledger.combined_chance(0.5, 0.2) == pytest.approx(0.6)
    assert ledger.combined_chance(None, 0.2) is None



def test_inclusion_chances_by_hand():
    assert select.inclusion_chances([1.0, 1.0, 2.0], 2) == [0.5, 0.5, 1.0]   # 2 × 2/4 = 1: capped, the rest share 1
    assert select.inclusion_chances([4.0, 1.0, 1.0, 1.0, 1.0], 2) == [1.0, 0.25, 0.25, 0.25, 0.25]
    assert select.inclusion_chances([1.0, 3.0], 1) == [0.25, 0.75]
    assert select.inclusion_chances([1.0, 3.0], 2) == [1.0, 1.0]
    assert select.inclusion_chances([1.0, 3.0], 0) == [0.0, 0.0]


def test_systematic_pick_takes_each_item_with_its_chance():
    items, chances = ["a", "b", "c"], [0.5, 0.5, 1.0]   # stretches [0, .5) [.5, 1) [1, 2)
    assert select.systematic_pick(items, chances, 0.2) == ["a", "c"]
    assert select.systematic_pick(items, chances, 0.7) == ["b", "c"]
    chances = [0.3, 0.45, 0.25, 0.6, 0.4]
    starts = [n / 1000 for n in range(1000)]
    picks = [select.systematic_pick(list("abcde"), chances, start) for start in starts]
    assert all(len(p) == 2 for p in picks)
    for item, chance in zip("abcde", chances):
        assert sum(item in p for p in picks) / len(starts) == pytest.approx(chance, abs=0.002)


def test_inclusion_chances_share_equally_when_the_weights_say_nothing():
    assert select.inclusion_chances([1.0, 0.0, 0.0], 2) == [1.0, 0.5, 0.5]
    assert select.inclusion_chances([0.0, 0.0, 0.0], 1) == pytest.approx([1 / 3] * 3)
