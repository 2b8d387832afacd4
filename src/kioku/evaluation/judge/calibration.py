"""How often each judge's outcome is right, for the learning rule to read its evidence on the true scale.

A judge that calls a successful turn a success with probability ``hit`` and a failed one with
probability ``miss`` shrinks every measured difference in success by ``hit - miss`` and moves
every measured rate towards ``miss``. The lifecycle's "no use" margin is a lift on the true scale,
so it is asked of the evidence through these rates (``kioku.learning.lifecycle.no_use_margin``).
The rates are those ``scripts/bench/evaluation.py`` measured on labelled real sessions (both sets,
see docs/benchmarks.md, "The judge"); verdicts of no known judge (a user's own word, rows written
before the judge was recorded) count as exact.
"""

from __future__ import annotations

Rates = tuple[float, float]  # (P(judged success | success), P(judged success | failure))

EXACT: Rates = (1.0, 0.0)
RULES: Rates = (85 / 89, 5 / 32)
MODEL: Rates = (224 / 267, 6 / 96)  # three sets of answers to the requests, pooled
FAMILIES: dict[str, Rates] = {"exact": EXACT, "rules": RULES, "model": MODEL}


def family(judged_by: str | None) -> str:
    """The judge family of a verdict's ``judged_by``: "model" ("model:<name>"), "rules" (the rules,
    also as a fallback of a model batch) or "exact" (anything else)."""
    text = (judged_by or "").strip()
    if text.startswith("model:"):
        return "model"
    if text.startswith("rules"):
        return "rules"
    return "exact"


def rates(name: str | None) -> Rates:
    """The rates of a judge family (unknown or missing: exact)."""
    return FAMILIES.get(name or "exact", EXACT)


def mixed(weights: dict[str, float]) -> Rates:
    """The rates of evidence drawn from several judges, ``weights``: family -> the weight of its turns."""
    total = sum(w for w in weights.values() if w > 0)
    if total <= 0:
        return EXACT
    hit = sum(rates(name)[0] * w for name, w in weights.items() if w > 0) / total
    miss = sum(rates(name)[1] * w for name, w in weights.items() if w > 0) / total
    return hit, miss
