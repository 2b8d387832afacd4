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

Measured rates. ``scripts/bench/evaluation.py`` on the labelled transcripts (both sets, 130
turns): the rules judge success 0.97 of the successful turns and 0.27 of the failed ones, the
model judge 0.96 and 0.14. There is no labelled data for attribution. "Hurt" is read from the
same signal as negative feedback (the user's correction of what was done), so its rates are
derived from the model judge's negative-feedback recall (0.82) and precision (0.93) on those
turns, 16 of which carry negative feedback: ``hurt_recall`` = the recall, and ``hurt_false`` =
the false-positive rate those imply, FP / negatives = recall x positives x (1 - P) / P /
(130 - 16) = 0.0087 (:func:`false_alarm_rate`). Charging that rate to every lesson given in
every turn, and recall to every failed turn of a harmful lesson (most of which it did not cause
in this world), are both generous to the false alarms and to the recall alike.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

NEGATIVE_RECALL = 0.82
NEGATIVE_PRECISION = 0.93
NEGATIVE_TURNS, LABELLED_TURNS = 16, 130


def false_alarm_rate(recall: float, precision: float, positives: int, total: int) -> float:
    """P(says negative | not negative) that a recall and precision imply at this prevalence."""
    true_positives = recall * positives
    false_positives = true_positives * (1.0 - precision) / precision
    return false_positives / (total - positives)


HURT_FALSE = round(false_alarm_rate(NEGATIVE_RECALL, NEGATIVE_PRECISION, NEGATIVE_TURNS, LABELLED_TURNS), 4)
JUDGES = {"perfect": (1.0, 0.0), "rules": (0.97, 0.27), "model": (0.96, 0.14)}


@dataclass(frozen=True)
class NoisyJudge:
    success_if_success: float = 1.0
    success_if_failure: float = 0.0
    attribution: bool = False
    hurt_recall: float = NEGATIVE_RECALL
    hurt_false: float = HURT_FALSE
    relevance: bool = False

    @classmethod
    def named(cls, name: str, *, attribution: bool = False, relevance: bool = False) -> "NoisyJudge":
        """A judge at the measured rates of ``name`` (perfect: no noise, every hurt seen, no false alarm)."""
        hit, miss = JUDGES[name]
        if name == "perfect":
            return cls(hit, miss, attribution, 1.0, 0.0, relevance)
        return cls(hit, miss, attribution, NEGATIVE_RECALL, HURT_FALSE, relevance)

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
                "relevance": self.relevance if self.attribution else None}
