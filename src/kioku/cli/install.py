"""``kioku hook EVENT``, ``kioku doctor`` and ``kioku import-auto-memory``.

- ``hook EVENT`` reads a hook payload on stdin and runs it through the same fail-open
  boundary as the installed hook launchers (kioku.hooks.dispatch.run): always exit 0, stdout
  empty or one JSON object. EVENT is the Claude Code name (``SessionStart``) or the module
  name (``session_start``).
- ``doctor [--json]`` checks the installation (kioku.install.doctor); exit 1 on a failure.
- ``import-auto-memory [--dry-run] [--from DIR]`` imports Claude Code's auto-memory notes of
  the current project into Kioku (kioku.install.automemory).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kioku.infra.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="run a hook event handler on a payload from stdin")
    p.add_argument("event", help="SessionStart | UserPromptSubmit | Stop | SubagentStart | SubagentStop | SessionEnd")
    p.set_defaults(func=cmd_hook)

    p = sub.add_parser("doctor", help="check the installation and stores")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("import-auto-memory", help="import Claude Code auto-memory notes into Kioku")
    p.add_argument("--dry-run", action="store_true", help="list what would be imported")
    p.add_argument("--from", dest="source", metavar="DIR",
                   help="auto-memory folder (default: the current project's under the Claude folder)")
    p.set_defaults(func=cmd_import_auto_memory)


def _event_name(value: str) -> str:
    from kioku.hooks.dispatch import EVENT_MODULES

    for event, module in EVENT_MODULES.items():
        if value in (event, module) or value.lower() == event.lower():
            return event
    raise UsageError(f"unknown hook event {value!r}; one of: {', '.join(EVENT_MODULES)}")


def cmd_hook(args: argparse.Namespace) -> int:
    from kioku.hooks.dispatch import run

    try:
        event = _event_name(args.event)
    except UsageError as exc:  # a hook never fails its caller: say why, do nothing, exit 0
        print(f"kioku: hook skipped: {exc}", file=sys.stderr)
        return 0
    return run(event)


def cmd_doctor(args: argparse.Namespace) -> int:
    from kioku.install.doctor import run_checks

    checks = run_checks()
    if args.json:
        print(json.dumps(checks, indent=2, ensure_ascii=False))
    else:
        for c in checks:
            mark = "ok  " if c["ok"] and not c["warning"] else ("warn" if c["ok"] else "FAIL")
            print(f"[{mark}] {c['check']}: {c['detail']}")
    return 0 if all(c["ok"] for c in checks) else 1


def cmd_import_auto_memory(args: argparse.Namespace) -> int:
    from kioku.infra import paths
    from kioku.install import automemory

    root = paths.find_project_root()
    folder = Path(args.source).expanduser() if args.source else automemory.auto_memory_dir(root)
    if folder is None or not folder.is_dir():
        where = args.source or (paths.claude_dir() / "projects" / automemory.project_key(root) / "memory")
        print(f"No auto-memory folder for this project ({where}): nothing to import.")
        return 0
    outcomes = automemory.import_notes(root, folder, dry_run=args.dry_run)
    if not outcomes:
        print(f"No auto-memory notes in {folder}: nothing to import.")
        return 0
    for o in outcomes:
        print(f"{o.status:<12} {o.path.name}: {o.detail}")
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    print(("Dry run: " if args.dry_run else "") + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0
