"""Speed checks that hold on any machine: ratios of times measured in the same run, never a
number of seconds.

- :func:`growth` times a function on an input and on one ``factor`` times as long: linear work
  grows by about ``factor``, quadratic work by ``factor`` squared.
- :func:`cost_ratio` times a function against a reference workload on the same input (a plain
  Python pass over it), so a pattern gone super-linear shows as a ratio far above its usual one.

Times are the process's CPU time (``time.process_time``), not the wall clock, so other work on
a busy machine does not count; each figure is the smallest of several interleaved measurements.
"""

from __future__ import annotations

import time
from typing import Callable


def _best(fn: Callable[[], object], number: int) -> float:
    start = time.process_time()
    for _ in range(number):
        fn()
    return time.process_time() - start


def _calls_for(fn: Callable[[], object], at_least: float = 0.01) -> int:
    """How many calls of ``fn`` take at least ``at_least`` seconds (at most 10,000)."""
    number = 1
    while number < 10_000 and _best(fn, number) < at_least:
        number *= 4
    return number


def growth(run: Callable[[str], object], build: Callable[[int], str], size: int, factor: int = 4,
           repeat: int = 3) -> float:
    """``run``'s time on ``build(size * factor)`` over its time on ``build(size)``."""
    small, large = build(size), build(size * factor)
    number = _calls_for(lambda: run(small))
    best_small = best_large = float("inf")
    for _ in range(repeat):
        best_small = min(best_small, _best(lambda: run(small), number))
        best_large = min(best_large, _best(lambda: run(large), number))
    return best_large / best_small


def reference_pass(text: str) -> int:
    """A plain Python pass over ``text``: the yardstick :func:`cost_ratio` measures against."""
    count = 0
    for ch in text:
        if ch == " ":
            count += 1
    return count


def cost_ratio(run: Callable[[str], object], text: str, repeat: int = 3) -> float:
    """``run(text)``'s time over the time of :func:`reference_pass` on the same text."""
    number, ref_number = _calls_for(lambda: run(text)), _calls_for(lambda: reference_pass(text))
    best_run = best_ref = float("inf")
    for _ in range(repeat):
        best_run = min(best_run, _best(lambda: run(text), number) / number)
        best_ref = min(best_ref, _best(lambda: reference_pass(text), ref_number) / ref_number)
    return best_run / best_ref
