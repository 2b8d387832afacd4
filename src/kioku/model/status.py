"""What ``kioku judge status``, the dashboard and the web app say about model calls (one source).

``status(project_root)``: the backend (as configured, and what a call would use now), the model,
whether calls are allowed and why not, calls, tokens and cost today and this month (every purpose
shares the caps), what is left of today's budget, and the last error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kioku.model import usage
from kioku.model.client import unavailable_reason
from kioku.model.settings import load_settings
from kioku.infra import clock


def status(project_root: Path) -> dict[str, Any]:
    settings = load_settings(project_root)
    data = usage.snapshot()
    today = usage.today()
    day = usage.totals(today, data=data)
    month = usage.totals(today[:8] + "01", data=data)
    judge_day = usage.totals(today, "judge", data=data)
    enrich_day = usage.totals(today, "enrich", data=data)
    last = data.get("last_error") if isinstance(data.get("last_error"), dict) else None
    return {
        "backend": settings.backend, "uses": settings.resolved_backend(), "model": settings.model,
        "claude": settings.claude_path() or None, "enabled": settings.allowed("judge"),
        "unavailable": unavailable_reason("judge", settings) or None,
        "today": {**day.to_json(), "judge": judge_day.to_json(), "enrich": enrich_day.to_json()}, "month": month.to_json(),
        "budget_left": {"calls": max(0, settings.daily_calls - day.calls) if settings.daily_calls else None,
                        "tokens": max(0, settings.daily_tokens - day.tokens) if settings.daily_tokens else None},
        "caps": {"daily_calls": settings.daily_calls, "daily_tokens": settings.daily_tokens,
                 "max_usd_per_call": settings.max_usd_per_call},
        "last_error": ({"at": clock.utc_minute(last.get("at", 0)) + " UTC",
                        "message": last.get("message", "")} if last else None),
    }


def _money(totals: dict[str, Any]) -> str:
    reported, estimated = totals["cost_usd"], totals["estimated_usd"]
    return f"${estimated:.4f}" + (" (estimated)" if estimated > reported else "")


def format_status(s: dict[str, Any]) -> str:
    state = "on" if s["enabled"] else "off"
    uses = s["uses"] if s["uses"] != "heuristic" else "the rules (no model)"
    lines = [f"judge: {state}; backend {s['backend']} -> {uses}; model {s['model']}"]
    if s["unavailable"]:
        lines.append(f"  no model call now: {s['unavailable']}")
    t, m = s["today"], s["month"]
    lines.append(f"  today: {t['calls']} call(s), {t['tokens']:,} tokens, {_money(t)}; "
                 f"{t['judge']['fallbacks']} turn(s) judged by the rules after an unusable answer")
    if t.get("enrich", {}).get("calls"):
        lines.append(f"  of which search enrichment: {t['enrich']['calls']} call(s), {t['enrich']['tokens']:,} tokens "
                     "(kioku enrich status)")
    lines.append(f"  this month: {m['calls']} call(s), {m['tokens']:,} tokens, {_money(m)}")
    left = s["budget_left"]
    lines.append("  left today: " + ", ".join(
        f"{left[k]:,} {k}" if left[k] is not None else f"no cap on {k}" for k in ("calls", "tokens"))
        + f" (caps: [model] daily_calls, daily_tokens; ${s['caps']['max_usd_per_call']:g} a call)")
    if s["last_error"]:
        lines.append(f"  last error ({s['last_error']['at']}): {s['last_error']['message']}")
    return "\n".join(lines)
