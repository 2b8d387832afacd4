"""Uplift statistics for one lesson: given vs. eligible-but-not-given turns (stdlib only).

``uplift`` is the difference of success rates ``success_given / turns_given -
success_held_back / turns_held_back``. Its interval is Newcombe's hybrid score interval
(method 10 of Newcombe 1998): the two Wilson score intervals combined by the square-and-add
rule, which keeps its coverage at small counts and near 0 or 1, where the Wald interval does not.

Repeated looks. The worker re-examines a lesson after every credited turn, and testing at a
fixed 95 % level on every look would end up "significant" for many lessons that do nothing.
Decisions are therefore taken only at *looks*: the moments when the smaller arm
``min(turns_given, turns_held_back)`` reaches a point of a geometric schedule
(:data:`FIRST_LOOK`, then x :data:`LOOK_RATIO`). The k-th look spends ``alpha / (k (k + 1))``
of the error budget (an alpha-spending rule; the terms sum to ``alpha``), so by the union
bound the chance that a lesson with no effect is ever promoted or deprecated on harm stays
below ``alpha`` however long it is observed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

Z95 = 1.959963984540054
ALPHA = 0.10          # two-sided error budget per lesson over all looks
FIRST_LOOK = 10       # no decision before both arms have this many turns
LOOK_RATIO = 1.5


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` ((0, 1) when n == 0)."""
    if n <= 0:
        return 0.0, 1.0
    successes = max(0, min(successes, n))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Uplift:
    turns_given: int
    success_given: int
    turns_held_back: int
    success_held_back: int
    uplift: float | None      # None until both arms have a turn
    low: float
    high: float

    @property
    def defined(self) -> bool:
        return self.uplift is not None


def uplift_interval(success_given: int, turns_given: int, success_held_back: int, turns_held_back: int,
                    z: float = Z95) -> Uplift:
    """Difference of success rates with Newcombe's hybrid score interval at normal quantile ``z``."""
    if turns_given <= 0 or turns_held_back <= 0:
        return Uplift(turns_given, success_given, turns_held_back, success_held_back, None, -1.0, 1.0)
    p1 = success_given / turns_given
    p2 = success_held_back / turns_held_back
    l1, u1 = wilson(success_given, turns_given, z)
    l2, u2 = wilson(success_held_back, turns_held_back, z)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return Uplift(turns_given, success_given, turns_held_back, success_held_back,
                  round(d, 6), round(max(-1.0, low), 6), round(min(1.0, high), 6))


def look_schedule(limit: int) -> list[int]:
    """Arm sizes at which looks happen, up to ``limit``: 10, 15, 23, 34, 51, ..."""
    points: list[int] = []
    value = float(FIRST_LOOK)
    while int(round(value)) <= limit:
        point = int(round(value))
        if not points or point > points[-1]:
            points.append(point)
        value *= LOOK_RATIO
    return points


def look_index(smaller_arm: int) -> int:
    """1-based index of the look taken when the smaller arm has exactly this many turns, else 0."""
    if smaller_arm < FIRST_LOOK:
        return 0
    points = look_schedule(smaller_arm)
    return len(points) if points and points[-1] == smaller_arm else 0


def looks_passed(smaller_arm: int) -> int:
    """How many looks a lesson whose smaller arm has this many turns has had."""
    return len(look_schedule(smaller_arm)) if smaller_arm >= FIRST_LOOK else 0


def look_z(k: int, alpha: float = ALPHA) -> float:
    """Two-sided normal quantile for the k-th look under alpha-spending ``alpha / (k (k + 1))``."""
    spent = alpha / (k * (k + 1)) if k >= 1 else alpha
    return NormalDist().inv_cdf(1.0 - spent / 2.0)
