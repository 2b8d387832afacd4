"""``kioku enrich``: search enrichment for the memories and lessons that have none.

    kioku enrich [--dry-run] [--only memories|lessons] [--agent NAME] [--max-calls N] [--json]
    kioku enrich status [--json]
    kioku enrich on | off [--project]
    kioku enrich --export-prompts DIR [--all]
    kioku enrich --import DIR

Without a switch: every current memory (user-wide and project) and every active lesson (of each
agent, or of ``--agent``) without a usable enrichment, or whose enrichment went stale through an
edit, is enriched, in as few model calls as fit (``kioku.enrich.run``), within the daily caps
every model call shares, with a progress line on stderr. ``--dry-run`` says how many calls it
would make, and calls nothing. ``status``: how many items are enriched, stale, failed or without,
and today's enrichment calls. ``on`` / ``off`` write ``[enrich] enabled`` in the user's config
(``--project``: the project's ``.agents/kioku.toml``). ``--export-prompts DIR`` writes the requests
it would send, one file per call (``--all``: for every item in scope, enriched or not);
``--import DIR`` reads the answer ``F.answer`` beside each request file ``F`` through the same
parser as live answers (``kioku.enrich.files``). Without a model, search works as it always did.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("switch", nargs="?", choices=("status", "on", "off"),
                   help="status: what is enriched; on / off: allow model calls for enrichment")
    p.add_argument("--dry-run", action="store_true", help="say how many model calls it would make, call nothing")
    p.add_argument("--only", choices=("memories", "lessons"), help="enrich only these")
    p.add_argument("--agent", help="lessons of this agent only (default: every agent's)")
    p.add_argument("--max-calls", type=int, metavar="N", help="stop after N model calls")
    p.add_argument("--export-prompts", type=Path, metavar="DIR", help="write the requests to DIR, one file per call")
    p.add_argument("--all", action="store_true", help="with --export-prompts: every item, enriched or not")
    p.add_argument("--import", dest="import_dir", type=Path, metavar="DIR",
                   help="read the answers F.answer beside each request file F in DIR")
    p.add_argument("--project", action="store_true", help="with on / off: for this project (.agents/kioku.toml)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_enrich)


def _items(args: argparse.Namespace, root: Path):
    from kioku.enrich import targets

    items = []
    if args.only != "lessons" and not args.agent:
        items += targets.memory_items(root)
    if args.only != "memories":
        items += targets.lesson_items(root, args.agent)
    return items


def _counts(items) -> dict[str, int]:
    out = {"memories": sum(i.kind == "memory" for i in items), "lessons": sum(i.kind == "lesson" for i in items)}
    return out


def _what(items) -> str:
    c = _counts(items)
    parts = [f"{c['memories']} memor{'y' if c['memories'] == 1 else 'ies'}" if c["memories"] else "",
             f"{c['lessons']} lesson{'' if c['lessons'] == 1 else 's'}" if c["lessons"] else ""]
    return " and ".join(p for p in parts if p) or "nothing"


def _print(args: argparse.Namespace, data: dict, text: str) -> None:
    from kioku.text.defang import defang

    print(json.dumps(data, ensure_ascii=False) if args.json else defang(text))


def cmd_enrich(args: argparse.Namespace) -> int:
    from kioku.infra.errors import UsageError
    from kioku.infra.paths import find_project_root

    root = find_project_root()
    if args.switch in ("on", "off"):
        return _switch(args, root)
    if args.export_prompts and args.import_dir:
        raise UsageError("--export-prompts and --import are two steps: run them one after the other")
    if args.max_calls is not None and args.max_calls < 1:
        raise UsageError("--max-calls must be at least 1")
    if args.switch == "status":
        return _status(args, root)
    if args.import_dir:
        return _import(args, root)
    return _run(args, root)


def _todo(args: argparse.Namespace, root: Path):
    from kioku.enrich import targets

    states = targets.states(_items(args, root))
    return states, [s.item for s in states if s.state != "enriched"]


def _run(args: argparse.Namespace, root: Path) -> int:
    from kioku.enrich.run import enrich, plan
    from kioku.model import usage
    from kioku.model.client import unavailable_reason
    from kioku.model.settings import load_settings

    settings = load_settings(root)
    states, todo = _todo(args, root)
    if args.export_prompts:
        from kioku.enrich.files import export_requests

        chosen = [s.item for s in states] if args.all else todo
        index = export_requests(chosen, args.export_prompts, settings.model)
        _print(args, {"files": len(index["calls"]), "folder": str(args.export_prompts), **_counts(chosen)},
               f"wrote {len(index['calls'])} request file(s) for {_what(chosen)} to {args.export_prompts}; "
               f"answer each file F in F.answer, then run: kioku enrich --import {args.export_prompts}")
        return 0
    requests = plan(todo)
    reason = unavailable_reason("enrich", settings)
    stale = sum(s.state == "stale" for s in states)
    if args.dry_run or not todo:
        calls = len(requests) if args.max_calls is None else min(len(requests), args.max_calls)
        spent = usage.totals(usage.today())
        left = max(0, settings.daily_calls - spent.calls) if settings.daily_calls else None
        text = (f"{_what(todo)} without a usable enrichment ({stale} stale after an edit); "
                f"enriching {'them' if todo else 'nothing'} would take {calls} model call(s)"
                + (f" (a retry, where an answer is unusable, adds one)" if calls else "")
                + (f"; {left} of today's {settings.daily_calls} calls are left" if left is not None else "")
                + (f"\nno model call now: {reason}" if reason and todo else ""))
        _print(args, {"calls": calls, "stale": stale, "budget_left": left, "unavailable": reason or None,
                      **_counts(todo)}, text)
        return 0
    if reason:
        _print(args, {"enriched": 0, "unavailable": reason, **_counts(todo)},
               f"no model call now: {reason}; nothing was enriched (search works on the memories' text, as without "
               "enrichment)")
        return 1
    run = enrich(todo, settings=settings, project_root=root, progress=None if args.json else _progress,
                 max_calls=args.max_calls)
    if not args.json:
        print(file=sys.stderr)
    data = {"enriched": len(run.enriched), "failed": len(run.failed), "left": len(run.left), "calls": run.calls,
            "stopped": run.stopped or None}
    text = f"enriched {_what(run.enriched)} in {run.calls} model call(s)"
    if run.failed:
        text += f"; {len(run.failed)} without a usable answer (kioku enrich tries them again)"
    if run.stopped:
        text += f"\nstopped: {run.stopped}; {_what(run.left)} left for a later run"
    _print(args, data, text)
    return 0 if not run.stopped or run.enriched else 1


def _progress(done: int, total: int, calls: int) -> None:
    width = 24
    filled = int(width * done / total) if total else width
    sys.stderr.write(f"\renriching [{'#' * filled}{'.' * (width - filled)}] {done}/{total}, {calls} call(s)")
    sys.stderr.flush()


def _import(args: argparse.Namespace, root: Path) -> int:
    from kioku.enrich import targets
    from kioku.enrich.files import import_answers
    from kioku.infra.errors import UsageError

    items = [s.item for s in targets.states(_items(args, root))]
    try:
        report = import_answers(args.import_dir, items)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    run = report.run
    data = {"calls": report.calls, "answered": len(report.answered), "missing": len(report.missing),
            "skipped": len(report.skipped), "enriched": len(run.enriched), "failed": len(run.failed)}
    text = (f"read {len(report.answered)} of {report.calls} answer file(s): enriched {_what(run.enriched)}"
            + (f"; {len(run.failed)} without a usable answer" if run.failed else "")
            + (f"; {len(report.missing)} request(s) not answered yet" if report.missing else "")
            + (f"; {len(report.skipped)} request(s) skipped: their notes changed or are gone since the export"
               if report.skipped else ""))
    _print(args, data, text)
    return 0


def _status(args: argparse.Namespace, root: Path) -> int:
    from kioku.enrich import targets
    from kioku.model import usage
    from kioku.model.client import unavailable_reason
    from kioku.model.settings import load_settings

    settings = load_settings(root)
    states = targets.states(_items(args, root))
    counts: dict[str, dict[str, int]] = {}
    for s in states:
        kind = "memories" if s.item.kind == "memory" else "lessons"
        counts.setdefault(kind, dict.fromkeys(targets.STATES, 0))[s.state] += 1
    today = usage.totals(usage.today(), "enrich")
    reason = unavailable_reason("enrich", settings)
    data = {"enabled": settings.allowed("enrich"), "unavailable": reason or None, "items": counts,
            "today": today.to_json()}
    lines = [f"enrichment: {'on' if settings.allowed('enrich') else 'off'}"
             + (f"; no model call now: {reason}" if reason else f"; model {settings.model}")]
    for kind, found in counts.items():
        lines.append(f"  {kind}: " + ", ".join(f"{n} {state}" for state, n in found.items()))
    lines.append(f"  today: {today.calls} enrichment call(s), {today.tokens:,} tokens, "
                 f"{today.fallbacks} item(s) without a usable answer")
    _print(args, data, "\n".join(lines))
    return 0


def _switch(args: argparse.Namespace, root: Path) -> int:
    from kioku.infra.config import config_files, set_table_key
    from kioku.model.settings import load_settings

    user_file, project_file = config_files(root)
    target = project_file if args.project else user_file
    enabled = args.switch == "on"
    set_table_key(target, "enrich", "enabled", enabled)
    settings = load_settings(root)
    where = "for this project" if args.project else "for you"
    note = "" if settings.allowed("enrich") == enabled else f" (still off: {settings.off.get('enrich')})"
    _print(args, {"enabled": settings.allowed("enrich"), "file": str(target)},
           f"search enrichment is {args.switch} {where} ({target}){note}")
    return 0
