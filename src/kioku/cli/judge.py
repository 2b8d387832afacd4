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


def cmd_status(args: argparse.Namespace) -> int:
    from kioku.infra.paths import find_project_root
    from kioku.model.status import format_status, status
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
