"""``kioku judge status | on | off``: the model judge's backend, use and budget, and the switch.

``status`` shows the backend (as configured and as a call would use it now), the model, whether
calls are allowed and why not, calls, tokens and cost today and this month (judge and enrichment
together share the caps), what is left of today's budget, and the last error. ``off`` / ``on``
write ``[judge] enabled`` in the user's config, or with ``--project`` in the project's
``.agents/kioku.toml`` (committable: a team can keep a repository's turns off every model; a
project can never turn on what the user turned off).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    judge = sub.add_parser("judge", help="the model judge: status, on, off")
    verbs = judge.add_subparsers(dest="judge_verb", metavar="VERB")
    status = verbs.add_parser("status", help="backend, model, use today and this month, budget left, last error")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.set_defaults(func=cmd_status)
    for verb, value in (("on", True), ("off", False)):
        p = verbs.add_parser(verb, help=f"turn the model judge {verb} (for you, or with --project for this project)")
        p.add_argument("--project", action="store_true", help="for this project (.agents/kioku.toml)")
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.set_defaults(func=cmd_switch, enabled=value)
    judge.set_defaults(func=cmd_status, json=False)


def status(project_root: Path) -> dict[str, Any]:
    from kioku.model import usage
    from kioku.model.client import unavailable_reason
    from kioku.model.settings import load_settings

    settings = load_settings(project_root)
    data = usage.snapshot()
    today = usage.today()
    day = usage.totals(today, data=data)
    month = usage.totals(today[:8] + "01", data=data)
    judge_day = usage.totals(today, "judge", data=data)
    last = data.get("last_error") if isinstance(data.get("last_error"), dict) else None
    return {
        "backend": settings.backend, "uses": settings.resolved_backend(), "model": settings.model,
        "claude": settings.claude_path() or None, "enabled": settings.allowed("judge"),
        "unavailable": unavailable_reason("judge", settings) or None,
        "today": {**day.to_json(), "judge": judge_day.to_json()}, "month": month.to_json(),
        "budget_left": {"calls": max(0, settings.daily_calls - day.calls) if settings.daily_calls else None,
                        "tokens": max(0, settings.daily_tokens - day.tokens) if settings.daily_tokens else None},
        "caps": {"daily_calls": settings.daily_calls, "daily_tokens": settings.daily_tokens,
                 "max_usd_per_call": settings.max_usd_per_call},
        "last_error": ({"at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(last.get("at", 0))),
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
    lines.append(f"  this month: {m['calls']} call(s), {m['tokens']:,} tokens, {_money(m)}")
    left = s["budget_left"]
    lines.append("  left today: " + ", ".join(
        f"{left[k]:,} {k}" if left[k] is not None else f"no cap on {k}" for k in ("calls", "tokens"))
        + f" (caps: [model] daily_calls, daily_tokens; ${s['caps']['max_usd_per_call']:g} a call)")
    if s["last_error"]:
        lines.append(f"  last error ({s['last_error']['at']}): {s['last_error']['message']}")
    return "\n".join(lines)


def cmd_status(args: argparse.Namespace) -> int:
    from kioku.infra.paths import find_project_root
    from kioku.text.defang import defang

    report = status(find_project_root())
    print(json.dumps(report, ensure_ascii=False) if getattr(args, "json", False) else defang(format_status(report)))
    return 0


def cmd_switch(args: argparse.Namespace) -> int:
    from kioku.infra import paths
    from kioku.infra.config import config_files, set_table_key

    user_file, project_file = config_files(paths.find_project_root())
    target = project_file if args.project else user_file
    set_table_key(target, "judge", "enabled", args.enabled)
    from kioku.model.settings import load_settings

    settings = load_settings(paths.find_project_root())
    word = "on" if args.enabled else "off"
    where = "for this project" if args.project else "for you"
    note = "" if settings.allowed("judge") == args.enabled else f" (still off: {settings.off.get('judge')})"
    if args.json:
        print(json.dumps({"enabled": settings.allowed("judge"), "file": str(target)}))
    else:
        print(f"the model judge is {word} {where} ({target}){note}")
    return 0
