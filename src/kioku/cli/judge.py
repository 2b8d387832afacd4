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

from kioku.cli.args import Verb, add_json, add_verbs, print_json


def _status_arguments(parser: argparse.ArgumentParser) -> None:
    add_json(parser, "the status")


def _switch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", action="store_true", help="for this project (.agents/kioku.toml)")
    add_json(parser)


def setup(parser: argparse.ArgumentParser) -> None:
    add_verbs(parser, VERBS)


def cmd_status(args: argparse.Namespace) -> int:
    from kioku.infra.paths import find_project_root
    from kioku.model.status import format_status, status
    from kioku.text.defang import defang

    report = status(find_project_root())
    if args.json:
        print_json(report)
    else:
        print(defang(format_status(report)))
    return 0


def cmd_switch(args: argparse.Namespace) -> int:
    from kioku.infra import paths
    from kioku.infra.config import config_files, set_table_key

    enabled = args.verb == "on"
    user_file, project_file = config_files(paths.find_project_root())
    target = project_file if args.project else user_file
    set_table_key(target, "judge", "enabled", enabled)
    from kioku.model.settings import load_settings

    settings = load_settings(paths.find_project_root())
    where = "for this project" if args.project else "for you"
    note = "" if settings.allowed("judge") == enabled else f" (still off: {settings.off.get('judge')})"
    if args.json:
        print(json.dumps({"enabled": settings.allowed("judge"), "file": str(target)}))
    else:
        print(f"the model judge is {args.verb} {where} ({target}){note}")
    return 0


VERBS = {
    "status": Verb("backend, model, use today and this month, budget left, last error", _status_arguments, cmd_status),
    "on": Verb("turn the model judge on (for you, or with --project for this project)", _switch_arguments, cmd_switch),
    "off": Verb("turn the model judge off (for you, or with --project for this project)", _switch_arguments, cmd_switch),
}
