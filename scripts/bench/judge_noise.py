"""A noisy judge for the learning-loop bench: the verdict a simulated turn gets.

Outcome: a turn that succeeded is judged a success with probability ``success_if_success``, one
that failed with ``success_if_failure`` (the two conditional rates of a judge).

Attribution (``attribution=True``), what a model judge says of each lesson in play
(``TurnVerdict.lesson_uses``), for each lesson given in the turn (the simulated agent follows
every lesson it is given):
- "hurt" with probability ``hurt_recall`` for a harmful lesson that bore on the task when the
  turn failed;
- "hurt" with probability ``hurt_false`` for every other lesson given (helpful, neutral, or a
  harmful one in a turn that succeeded or that it did not bear on): the judge's false alarms;
- "none" otherwise. With ``relevance=True`` the judge also says which lessons in play bore on
  the task (given and held back), without error; otherwise every lesson is reported relevant.

The rates of each judge (``JUDGES``, ``NEGATIVE_FEEDBACK``) are those ``scripts/bench/evaluation.py``
measured on the labelled transcripts; docs/benchmarks-learning.md gives the figures and their source.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from kioku.evaluation.judge import calibration  # noqa: E402

LABELLED_TURNS = 130  # labelled turns the rates were measured on (no_task turns left out)
NEGATIVE_TURNS = 16   # of which carry negative feedback on the turn before
# P(judged success | success), P(judged success | failure) per judge (failure: partial, failed or interrupted)
# (the product's calibration reads its evidence by the same rates)
JUDGES = {"perfect": calibration.EXACT, "rules": calibration.RULES, "model": calibration.MODEL}
# the ``judged_by`` each judge's verdicts carry, as the worker writes them
JUDGED_BY = {"perfect": "exact (simulated)", "rules": "rules", "model": "model:simulated"}
# negative feedback's (recall, precision) per judge: "hurt" is read from the same signal
NEGATIVE_FEEDBACK = {"perfect": (1.0, 1.0), "rules": (8 / 16, 8 / 11), "model": (40 / 48, 40 / 43)}  # model: three answer sets


def false_alarm_rate(recall: float, precision: float, positives: int, total: int) -> float:
    """P(says negative | not negative) that a recall and precision imply at this prevalence."""
    true_positives = recall * positives
    false_positives = true_positives * (1.0 - precision) / precision
    return false_positives / (total - positives)


def hurt_rates(name: str) -> tuple[float, float]:
    """(hurt recall, hurt false-alarm rate) of judge ``name``, from its negative-feedback recall and precision."""
    recall, precision = NEGATIVE_FEEDBACK[name]
    return recall, round(false_alarm_rate(recall, precision, NEGATIVE_TURNS, LABELLED_TURNS), 4)


NEGATIVE_RECALL, HURT_FALSE = hurt_rates("model")


@dataclass(frozen=True)
class NoisyJudge:
    success_if_success: float = 1.0
    success_if_failure: float = 0.0
    attribution: bool = False
    hurt_recall: float = NEGATIVE_RECALL
    hurt_false: float = HURT_FALSE
    relevance: bool = False
    judged_by: str = "exact (simulated)"

    @classmethod
    def named(cls, name: str, *, attribution: bool = False, relevance: bool = False) -> "NoisyJudge":
        """A judge at the measured rates of ``name`` (perfect: no noise, every hurt seen, no false alarm)."""
        hit, miss = JUDGES[name]
        return cls(hit, miss, attribution, *hurt_rates(name), relevance, JUDGED_BY[name])

    def outcome(self, succeeded: bool, rng: random.Random) -> str:
        chance = self.success_if_success if succeeded else self.success_if_failure
        return "success" if rng.random() < chance else "failed"

    def uses(self, given: list[str], held_back: list[str], harmful: set[str], bears: set[str], succeeded: bool,
             rng: random.Random) -> list[dict]:
        """The ``lesson_uses`` of a turn: ``harmful`` and ``bears`` (the lessons that bore on the task)
        are the truth; empty without attribution."""
        if not self.attribution:
            return []
        out = []
        for lesson in given:
            hurts = lesson in harmful and lesson in bears and not succeeded
            said = rng.random() < (self.hurt_recall if hurts else self.hurt_false)
            out.append({"lesson_id": lesson, "relevant": lesson in bears if self.relevance else True,
                        "followed": True, "effect": "hurt" if said else "none", "reason": "simulated"})
        for lesson in held_back:
            out.append({"lesson_id": lesson, "relevant": lesson in bears if self.relevance else True,
                        "followed": None, "effect": "none", "reason": "simulated"})
        return out

    def describe(self) -> dict:
        return {"success_if_success": self.success_if_success, "success_if_failure": self.success_if_failure,
                "attribution": self.attribution, "hurt_recall": self.hurt_recall if self.attribution else None,
                "hurt_false": self.hurt_false if self.attribution else None,
                "relevance": self.relevance if self.attribution else None, "judged_by": self.judged_by}
