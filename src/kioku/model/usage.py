"""How much Kioku has asked of a model: calls, tokens and cost per day, and the last error.

``<state_dir>/model/usage.json`` (atomic, locked)::

    {"days": {"2026-12-06": {"judge": {"calls", "input_tokens", "output_tokens", "cost_usd",
                                       "estimated_usd", "failures", "fallbacks"}, "enrich": {...}}},
     "last_error": {"at", "purpose", "message"}, "unavailable_until": 0.0}

Days are UTC dates; days older than :data:`KEEP_DAYS` are dropped. ``cost_usd`` sums what the
backend reported; ``estimated_usd`` is the same plus list-price estimates for calls that reported
no cost. ``unavailable_until``: after a non-transient failure (no login, missing binary) no call
is tried before this time, so a broken setup costs one attempt an hour, not one per turn.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kioku.infra import clock, fsutil, paths

KEEP_DAYS = 62
RETRY_UNAVAILABLE_S = 3600.0
_COUNTERS = ("calls", "input_tokens", "output_tokens", "cost_usd", "estimated_usd", "failures", "fallbacks")


def usage_path() -> Path:
    return paths.state_dir() / "model" / "usage.json"


def call_lock_path() -> Path:
    """Held around every model call: one call at a time per Kioku home."""
    return paths.state_dir() / "locks" / "model.lock"


def today(now: float | None = None) -> str:
    return clock.utc_day(now)


def _load() -> dict[str, Any]:
    try:
        data = json.loads(usage_path().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _update(change) -> dict[str, Any]:
    path = usage_path()
    with fsutil.exclusive_lock(path.with_suffix(".lock"), timeout=30):
        data = _load()
        change(data)
        days = data.get("days") if isinstance(data.get("days"), dict) else {}
        cutoff = today(time.time() - KEEP_DAYS * 86400)
        data["days"] = {day: v for day, v in days.items() if day >= cutoff}
        fsutil.atomic_write_text(path, json.dumps(data, ensure_ascii=False, sort_keys=True))
    return data


def _bucket(data: dict[str, Any], purpose: str, now: float | None = None) -> dict[str, float]:
    day = data.setdefault("days", {}).setdefault(today(now), {})
    bucket = day.setdefault(purpose, {})
    for key in _COUNTERS:
        bucket.setdefault(key, 0)
    return bucket


def record_call(purpose: str, input_tokens: int, output_tokens: int, cost_usd: float | None,
                estimated_usd: float) -> None:
    def change(data: dict[str, Any]) -> None:
        bucket = _bucket(data, purpose)
        bucket["calls"] += 1
        bucket["input_tokens"] += int(input_tokens)
        bucket["output_tokens"] += int(output_tokens)
        bucket["cost_usd"] = round(bucket["cost_usd"] + (cost_usd or 0.0), 6)
        bucket["estimated_usd"] = round(bucket["estimated_usd"] + (cost_usd if cost_usd is not None
                                                                   else estimated_usd), 6)
        data["unavailable_until"] = 0.0

    _update(change)


def record_failure(purpose: str, message: str, *, transient: bool) -> None:
    """A call that gave no usable answer; a non-transient one pauses calls for an hour."""
    def change(data: dict[str, Any]) -> None:
        _bucket(data, purpose)["failures"] += 1
        data["last_error"] = {"at": time.time(), "purpose": purpose, "message": message[:300]}
        if not transient:
            data["unavailable_until"] = time.time() + RETRY_UNAVAILABLE_S

    _update(change)


def record_fallback(purpose: str, count: int = 1) -> None:
    """Work the rules did because no usable answer came (counted per turn or per item)."""
    def change(data: dict[str, Any]) -> None:
        _bucket(data, purpose)["fallbacks"] += count

    _update(change)


@dataclass(frozen=True)
class Totals:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    estimated_usd: float = 0.0
    failures: int = 0
    fallbacks: int = 0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_json(self) -> dict[str, Any]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "tokens": self.tokens, "cost_usd": round(self.cost_usd, 4),
                "estimated_usd": round(self.estimated_usd, 4), "failures": self.failures,
                "fallbacks": self.fallbacks}


def totals(since_day: str, purpose: str | None = None, data: dict[str, Any] | None = None) -> Totals:
    """Sums from ``since_day`` (inclusive) on, for one purpose or all."""
    data = _load() if data is None else data
    sums = dict.fromkeys(_COUNTERS, 0.0)
    for day, purposes in (data.get("days") or {}).items():
        if day < since_day or not isinstance(purposes, dict):
            continue
        for name, bucket in purposes.items():
            if purpose is not None and name != purpose or not isinstance(bucket, dict):
                continue
            for key in _COUNTERS:
                value = bucket.get(key, 0)
                sums[key] += value if isinstance(value, (int, float)) else 0
    return Totals(int(sums["calls"]), int(sums["input_tokens"]), int(sums["output_tokens"]), sums["cost_usd"],
                  sums["estimated_usd"], int(sums["failures"]), int(sums["fallbacks"]))


def snapshot() -> dict[str, Any]:
    return _load()


def paused_until(data: dict[str, Any] | None = None) -> float:
    data = _load() if data is None else data
    value = data.get("unavailable_until", 0.0)
    return float(value) if isinstance(value, (int, float)) else 0.0
