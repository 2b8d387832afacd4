"""``kioku doctor`` and ``kioku import-auto-memory``.

- ``doctor [--json]`` checks the installation (kioku.install.doctor); exit 1 on a failure.
- ``import-auto-memory [--dry-run] [--from DIR] [--json]`` imports Claude Code's auto-memory notes of
  the current project into Kioku (kioku.install.automemory).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kioku.cli.args import add_json, print_json


def setup_doctor(p: argparse.ArgumentParser) -> None:
    add_json(p, "the checks")
    p.set_defaults(func=cmd_doctor)


def setup_import_auto_memory(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true", help="list what would be imported")
    p.add_argument("--from", dest="source", metavar="DIR",
                   help="auto-memory folder (default: the current project's under the Claude folder)")
    add_json(p, "what was imported")
    p.set_defaults(func=cmd_import_auto_memory)


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
        return _nothing(args, str(where), f"No auto-memory folder for this project ({where}): nothing to import.")
    outcomes = automemory.import_notes(root, folder, dry_run=args.dry_run)
    if not outcomes:
        return _nothing(args, str(folder), f"No auto-memory notes in {folder}: nothing to import.")
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    if args.json:
        print_json({"folder": str(folder), "dry_run": args.dry_run, "counts": dict(sorted(counts.items())),
                    "notes": [{"file": o.path.name, "status": o.status, "detail": o.detail} for o in outcomes]})
        return 0
    for o in outcomes:
        print(f"{o.status:<12} {o.path.name}: {o.detail}")
    print(("Dry run: " if args.dry_run else "") + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0


def _nothing(args: argparse.Namespace, folder: str, line: str) -> int:
    if args.json:
        print_json({"folder": folder, "dry_run": args.dry_run, "counts": {}, "notes": []})
    else:
        print(line)
    return 0
