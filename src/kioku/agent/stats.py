"""Usage statistics and the keep/deprecate/promote policy for improvements (stdlib only).

Rules:
- deprecate after ``usage_count >= 10`` with ``success_rate < 0.40``: sets ``deprecated=True`` and a
  ``deprecated_reason`` that quotes the numbers and the Wilson interval;
- promote after ``usage_count >= 20`` with ``success_rate >= 0.85``: ``confidence + 0.05`` (max 0.95)
  and ``promoted=True`` (once; a promoted item is not promoted again).

Ten uses are little evidence (4/10 has a 95 % Wilson interval of 0.17-0.69), so every report also shows
the Wilson lower bound: :func:`wilson_lower` is what dashboards, ``kioku improvements --json``
(field ``wilson_lower``) and the digest score use to rank items by *evidence*, not by raw rate.
"""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054
DEPRECATE_MIN_USES = 10
DEPRECATE_BELOW = 0.40
PROMOTE_MIN_USES = 20
PROMOTE_AT_LEAST = 0.85
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


def is_active(meta: dict[str, Any], min_confidence: float = 0.7, min_success: float = 0.6) -> bool:
    """Retrievable: confident enough, not deprecated, and working (or untested)."""
    if meta.get("deprecated", False):
        return False
    if float(meta.get("confidence", 0.0)) < min_confidence:
        return False
    return (not is_tested(meta)) or float(meta.get("success_rate", 0.0)) >= min_success


def policy_changes(meta: dict[str, Any], now_iso: str, now_epoch: float) -> dict[str, Any]:
    """Metadata changes the deprecate/promote rules ask for (empty dict: nothing to do)."""
    s, n = usage_of(meta)
    if n <= 0:
        return {}
    rate = s / n
    lo, hi = wilson_interval(s, n)
    if n >= DEPRECATE_MIN_USES and rate < DEPRECATE_BELOW and not meta.get("deprecated", False):
        return {
            "deprecated": True,
            "deprecated_reason": (
                f"success {s}/{n} = {rate:.0%} < {DEPRECATE_BELOW:.0%} after >= {DEPRECATE_MIN_USES} uses"
                f" (95% Wilson {lo:.2f}-{hi:.2f})"
            ),
            "deprecated_at": now_iso,
            "deprecated_at_epoch": now_epoch,
        }
    if (n >= PROMOTE_MIN_USES and rate >= PROMOTE_AT_LEAST and not meta.get("promoted", False)
            and not meta.get("deprecated", False)):
        old = float(meta.get("confidence", 0.0))
        return {
            "promoted": True,
            "confidence": round(min(CONFIDENCE_CAP, old + PROMOTE_STEP), 4),
            "confidence_before_promotion": old,  # lets a rollback undo the promotion exactly
            "promoted_at": now_iso,
            "promoted_at_epoch": now_epoch,
        }
    return {}


def digest_score(meta: dict[str, Any]) -> float:
    """Ranking score for the digest and top lists: confidence x evidence x cross-validation.

    Evidence is 0.5 + the Wilson lower bound of (successes + 1) / (uses + 2): one pseudo success
    and one pseudo failure: untested 0.59, 0/3 0.54, 1/1 0.71, 9/10 1.05, 17/20 1.11. A single
    success does not outrank a long record. (Items below 60 % success are not active anyway.)
    """
    conf = float(meta.get("confidence", 0.0))
    s, n = usage_of(meta)
    evidence = 0.5 + wilson_lower(s + 1, n + 2)
    boost = 1.2 if meta.get("cross_validated", False) else 1.0
    return round(conf * evidence * boost, 6)
