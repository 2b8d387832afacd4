"""Usage statistics of improvements and the evidence fields reports show (stdlib only).

Lifecycle decisions are taken on counterfactual evidence by ``kioku.learning.lifecycle`` (uplift
of the turns a lesson was given over the comparable turns it was not).
``usage_count`` / ``success_count`` count the turns a lesson was given and how many succeeded.

Ten uses are little evidence (4/10 has a 95 % Wilson interval of 0.17-0.69), so every report also shows
the Wilson lower bound: :func:`wilson_lower` is what dashboards, ``kioku lessons search --json``
(field ``wilson_lower``) and the digest score use to rank items by *evidence*, not by raw rate.
"""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054
PROMOTE_STEP = 0.05
CONFIDENCE_CAP = 0.95


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval for ``successes`` out of ``n``; (0, 1) when n == 0."""
    if n <= 0:
        return 0.0, 1.0
    successes = max(0, min(successes, n))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_lower(successes: int, n: int, z: float = Z95) -> float:
    return wilson_interval(successes, n, z)[0]


def usage_of(meta: dict[str, Any]) -> tuple[int, int]:
    """(success_count, usage_count) from improvement metadata, tolerant of missing keys."""
    return int(meta.get("success_count", 0) or 0), int(meta.get("usage_count", 0) or 0)


def is_tested(meta: dict[str, Any]) -> bool:
    return bool(meta.get("tested", False)) and float(meta.get("success_rate", -1.0)) >= 0.0


def wilson_of(meta: dict[str, Any]) -> float:
    s, n = usage_of(meta)
    return round(wilson_lower(s, n), 4)


def is_active(meta: dict[str, Any], min_confidence: float = 0.7) -> bool:
    """Injectable: confident enough and not deprecated.

    A lesson is not hidden for its success rate: the sessions it was given to may fail for
    reasons it has nothing to do with, and only the comparison with turns it was held back
    from (``kioku.learning.lifecycle``) says whether it hurts.
    """
    if meta.get("deprecated", False):
        return False
    return float(meta.get("confidence", 0.0)) >= min_confidence


def decision_of(meta: dict[str, Any]) -> str:
    """The lesson's lifecycle state: deprecated, suspended (``kioku.learning.suspension``), promoted,
    candidate (below 0.7 confidence) or active."""
    if meta.get("deprecated", False):
        return "deprecated"
    if meta.get("suspended", False):
        return "suspended"
    if meta.get("promoted", False):
        return "promoted"
    if float(meta.get("confidence", 0.0)) < 0.7:
        return "candidate"
    return "active"


def _opt_float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def epoch_of(value: Any) -> float:
    """A stored time in seconds (``created_at_epoch`` and the like), 0.0 when it is missing or not a number."""
    number = _opt_float(value)
    return 0.0 if number is None else number


def given_since_suspension(meta: dict[str, Any]) -> int:
    """Turns a suspended lesson was given in since its suspension (or the last hurt that renewed it)."""
    return max(0, int(meta.get("turns_given", 0) or 0) - int(meta.get("suspended_given", 0) or 0))


def _turn_number(key: Any) -> int:
    """The number of a ledger turn key ("t3" -> 3; 0 when it is not one)."""
    digits = str(key or "").removeprefix("t")
    return int(digits) if digits.isdigit() else 0


def suspension_of(meta: dict[str, Any]) -> dict[str, Any] | None:
    """The suspension in force (``kioku.learning.suspension``): the judge's reason, when, the session
    and turn that caused it, that turn's task, and the turns given since; None when not suspended."""
    if not meta.get("suspended") or meta.get("deprecated"):
        return None
    return {"reason": str(meta.get("suspended_reason") or ""), "at": str(meta.get("suspended_at") or ""),
            "session": str(meta.get("suspended_session") or ""),
            "turn": _turn_number(meta.get("suspended_turn")),
            "task": str(meta.get("suspended_task") or ""), "given_since": given_since_suspension(meta)}


def lesson_evidence(meta: dict[str, Any]) -> dict[str, Any]:
    """The evidence fields every report shows for a lesson (dashboard, ``improvements --json``).

    ``uplift`` / ``uplift_low`` / ``uplift_high`` are None until the lesson has both given and
    held-back turns (``kioku.learning.uplift``). ``suspension`` is :func:`suspension_of`.
    """
    has = int(meta.get("turns_given", 0) or 0) > 0 and int(meta.get("turns_held_back", 0) or 0) > 0
    return {
        "turns_given": int(meta.get("turns_given", 0) or 0),
        "turns_held_back": int(meta.get("turns_held_back", 0) or 0),
        "success_given": int(meta.get("success_given", 0) or 0),
        "success_held_back": int(meta.get("success_held_back", 0) or 0),
        "uplift": _opt_float(meta.get("uplift")) if has else None,
        "uplift_low": _opt_float(meta.get("uplift_low")) if has else None,
        "uplift_high": _opt_float(meta.get("uplift_high")) if has else None,
        "decision": decision_of(meta),
        "decision_reason": str(meta.get("decision_reason") or meta.get("deprecated_reason") or ""),
        "suspension": suspension_of(meta),
    }


def digest_score(meta: dict[str, Any]) -> float:
    """Ranking score for the digest and top lists: confidence x evidence x cross-validation.

    Evidence is 0.5 + the Wilson lower bound of (successes + 1) / (uses + 2): one pseudo success
    and one pseudo failure: untested 0.59, 0/3 0.54, 1/1 0.71, 9/10 1.05, 17/20 1.11. A single
    success does not outrank a long record. This is the one definition of the score (the digest
    and the dashboard rank by it).
    """
    conf = float(meta.get("confidence", 0.0))
    s, n = usage_of(meta)
    evidence = 0.5 + wilson_lower(s + 1, n + 2)
    boost = 1.2 if meta.get("cross_validated", False) else 1.0
    return round(conf * evidence * boost, 6)
