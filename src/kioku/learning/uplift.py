"""Uplift statistics for one lesson: given vs. eligible-but-not-given turns (stdlib only).

``uplift`` is the difference of success rates ``success_given / turns_given -
success_held_back / turns_held_back``. Its interval is Newcombe's hybrid score interval
(method 10 of Newcombe 1998): the two Wilson score intervals combined by the square-and-add
rule, which keeps its coverage at small counts and near 0 or 1, where the Wald interval does not.

Repeated looks. The worker re-examines a lesson after every credited turn; testing at a fixed
95 % level on every look would end up "significant" for many lessons that do nothing. So
decisions are taken only at *looks*: when the smaller arm ``min(turns_given,
turns_held_back)`` reaches a point of the schedule 10, 15, 22, 34, 51, ... (x 1.5, at most
:data:`MAX_LOOKS` looks; the information grows by about half from one look to the next), and
each look uses a constant (Pocock-type) boundary calibrated for that schedule: the normal
quantile at which a statistic with no effect crosses at *any* of the looks with probability
``alpha``. :func:`crossing_rate` computes that probability by simulating the statistic's path
(a Brownian motion observed at the looks); the constants below were found by bisection on it
and ``tests/learning/test_uplift.py`` re-derives them:
- :data:`PROMOTE_Z` = 2.59: a lesson without effect is promoted with probability <= 5 %;
- :data:`DEPRECATE_Z` = 2.27: a lesson without effect is deprecated as harmful with
  probability <= 10 % (a deprecated lesson stays on disk and can be restored, so this side
  spends more of the error budget, for power against lessons that hurt).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054
FIRST_LOOK = 10       # no decision before both arms have this many turns
LOOK_RATIO = 1.5
MAX_LOOKS = 17        # last look when the smaller arm reaches 10 * 1.5**16 (about 6,570 turns)
PROMOTE_Z = 2.59      # one-sided 5 % over all looks
DEPRECATE_Z = 2.27    # one-sided 10 % over all looks


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
    """Smaller-arm sizes at which looks happen, up to ``limit``: 10, 15, 22, 34, 51, ..."""
    points = [int(round(FIRST_LOOK * LOOK_RATIO ** k)) for k in range(MAX_LOOKS)]
    return [p for p in points if p <= limit]


def looks_passed(smaller_arm: int) -> int:
    """How many looks a lesson whose smaller arm has this many turns has had."""
    return len(look_schedule(smaller_arm))


def crossing_rate(z: float, *, looks: int = MAX_LOOKS, ratio: float = LOOK_RATIO, paths: int = 20000,
                  seed: int = 1) -> float:
    """Chance that a no-effect statistic crosses ``z`` (one side) at any of the looks.

    The standardised difference at look k is W(t_k) / sqrt(t_k) for a Brownian motion W observed
    at information times t_k = ratio**k (independent normal increments between looks).
    """
    import random

    rng = random.Random(seed)
    times = [ratio ** k for k in range(looks)]
    crossed = 0
    for _ in range(paths):
        w = prev = 0.0
        for t in times:
            w += rng.gauss(0.0, math.sqrt(t - prev))
            prev = t
            if w / math.sqrt(t) >= z:
                crossed += 1
                break
    return crossed / paths
