"""How a function's cost grows with its input, measured in one run (no wall-clock target).

``growth(run, small, factor)`` times ``run(small)`` and ``run(small * factor)`` (the best of a few
runs each) and returns the ratio. A linear cost gives about ``factor``, a quadratic one about
``factor ** 2``; tests assert ``growth(...) < LINEAR_BOUND * factor`` so a machine's speed, or
another job on it, does not decide the result. Speed targets live in ``scripts/bench/``.
"""

from __future__ import annotations

import time
from typing import Callable

LINEAR_BOUND = 2.5  # a linear cost stays well under 2.5x factor; a quadratic one is factor x factor


def best_time(call: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def growth(run: Callable[[int], object], small: int, factor: int = 4, repeat: int = 3) -> float:
    """``run(small * factor)``'s time over ``run(small)``'s, each the best of ``repeat`` runs."""
    return best_time(lambda: run(small * factor), repeat) / max(best_time(lambda: run(small), repeat), 1e-6)
