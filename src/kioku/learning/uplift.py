"""Uplift statistics for one lesson: given vs. eligible-but-not-given turns (stdlib only).

``uplift`` is the difference of success rates ``success_given / turns_given -
success_held_back / turns_held_back``. Its interval is Newcombe's hybrid score interval
(method 10 of Newcombe 1998): the two Wilson score intervals combined by the square-and-add
rule, which keeps its coverage at small counts and near 0 or 1, where the Wald interval does not.

Unequal chances. A lesson's chance of being given changes from turn to turn (how many promoted
lessons compete for the slots; ``kioku.learning.select`` records it per turn), and the turns
where it is low are also the turns where the promoted lessons lift success. A plain difference
of rates would then charge the lesson for the others' help. :func:`weighted_uplift` weights
each turn by the inverse of the chance of the arm it fell in (1/p given, 1/(1-p) not given; the
Hajek ratio estimator), and runs the same interval on the weighted rates with Kish's effective
number of turns ``(Σw)² / Σw²`` in each arm. With equal chances it is the plain difference.

Repeated looks. The worker re-examines a lesson after every credited turn; testing at a fixed
95 % level on every look would end up "significant" for many lessons that do nothing. So
decisions are taken only at *looks*: when the smaller arm (its effective number of turns,
below) reaches a point of the schedule 10, 15, 22, 34, 51, ... (x 1.5, at most
:data:`MAX_LOOKS` looks; the information grows by about half from one look to the next), and
each look uses a constant (Pocock-type) boundary calibrated for that schedule: the normal
quantile at which a statistic with no effect crosses at *any* of the looks with probability
``alpha``. :func:`crossing_rate` computes that probability by simulating the statistic's path
(a Brownian motion observed at the looks); the constants below were found by bisection on it
and ``tests/learning/test_uplift.py`` re-derives them:
- :data:`PROMOTE_Z` = 2.40: a lesson without effect is promoted with probability <= 7.5 %;
- :data:`DEPRECATE_Z` = 1.91: a lesson without effect is deprecated as harmful with probability <= 20 %
  (``kioku.learning.lifecycle`` also retires it as "no use" once its interval is narrow).
  This side spends more of the error budget, for power against lessons that hurt: deprecating
  a lesson that does nothing costs nothing but the context it would have taken, a deprecated
  lesson stays on disk and can be restored, and a lesson that helps is almost never
  deprecated (its statistic drifts the other way).
The simulation's null lessons (``scripts/bench/learning_loop.py --helpful 0 --harmful 0``)
check these rates through the whole loop (docs/benchmarks.md, "Learning loop").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kioku.lessons.stats import wilson_interval as wilson

Z95 = 1.959963984540054
FIRST_LOOK = 10       # no decision before both arms have this many turns
LOOK_RATIO = 1.5
MAX_LOOKS = 17        # last look when the smaller arm reaches 10 * 1.5**16 (about 6,570 turns)
PROMOTE_Z = 2.40      # one-sided 7.5 % over all looks
DEPRECATE_Z = 1.91    # one-sided 20 % over all looks


@dataclass(frozen=True)
class Uplift:
    turns_given: int
    success_given: int
    turns_held_back: int
    success_held_back: int
    uplift: float | None      # None until both arms have a turn
    low: float
    high: float
    effective_given: float = 0.0      # Kish's effective number of turns (the raw count when unweighted)
    effective_held_back: float = 0.0

    @property
    def defined(self) -> bool:
        return self.uplift is not None


def uplift_interval(success_given: float, turns_given: float, success_held_back: float, turns_held_back: float,
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
                  round(d, 6), round(max(-1.0, low), 6), round(min(1.0, high), 6),
                  float(turns_given), float(turns_held_back))


def effective_arm(sum_w: float, sum_w2: float, sum_wy: float) -> tuple[float, float]:
    """(weighted successes, effective turns) of one arm from Σw, Σw² and Σw·success."""
    if sum_w <= 0 or sum_w2 <= 0:
        return 0.0, 0.0
    n_eff = sum_w * sum_w / sum_w2
    return (sum_wy / sum_w) * n_eff, n_eff


def weighted_uplift(given: tuple, held_back: tuple, z: float = Z95) -> Uplift:
    """Inverse-probability-weighted uplift; each arm is (turns, successes, Σw, Σw², Σw·success)."""
    ng, sg = int(given[0]), int(given[1])
    nh, sh = int(held_back[0]), int(held_back[1])
    s1, n1 = effective_arm(*given[2:5])
    s2, n2 = effective_arm(*held_back[2:5])
    if n1 <= 0 or n2 <= 0:
        return Uplift(ng, sg, nh, sh, None, -1.0, 1.0, n1, n2)
    u = uplift_interval(s1, n1, s2, n2, z)  # fractional counts: the score intervals take them as they are
    return Uplift(ng, sg, nh, sh, u.uplift, u.low, u.high, round(n1, 3), round(n2, 3))


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
