"""``kioku dashboard [--agent NAME] [--json | --html OUT]``: an agent's learning dashboard.

The text form is defanged (it quotes lessons and evaluation reasons, and Claude reads it);
``--html`` writes the self-contained report of kioku.ui.report. For a name with no lessons or
evaluations a note on stderr lists the agents that have some (a typo is the usual cause).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kioku.cli.args import add_agent, print_json


def setup(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the dashboard as JSON")
    form.add_argument("--html", metavar="OUT", help="write a self-contained HTML report to OUT")
    p.set_defaults(func=cmd_dashboard)


def _root() -> Path:
    from kioku.infra.paths import find_project_root

    return find_project_root()


def cmd_dashboard(args: argparse.Namespace) -> int:
    from kioku.lessons.dashboard import build_dashboard, format_dashboard

    if args.html:
        from kioku.ui.report import write_report

        print(f"wrote {write_report(args.agent, Path(args.html), _root())}")
        if not _has_memory(args.agent):
            _hint_known_agents(args.agent)
        return 0
    data = build_dashboard(args.agent, _root())
    if args.json:
        print_json(data)
    else:
        from kioku.text.defang import defang

        print(defang(format_dashboard(data)))  # lessons and evaluation reasons, read by Claude
        if not data["total_improvements"] and not data["total_evaluations"]:
            _hint_known_agents(args.agent)
    return 0


def _has_memory(agent: str) -> bool:
    """Whether any scope holds lessons or evaluations of ``agent``."""
    from kioku.lessons import scopes as sc

    return any(agent in sc.open_scope(scope, _root()).agents() for scope in sc.existing_scopes(_root()))


def _hint_known_agents(agent: str) -> None:
    """On stderr, for a name with no memory at all (a typo?): the agents that have some."""
    from kioku.lessons import scopes as sc
    from kioku.text.defang import defang

    known: set[str] = set()
    for scope in sc.existing_scopes(_root()):
        known.update(sc.open_scope(scope, _root()).agents())
    known.discard(agent)
    listed = ", ".join(sorted(known)[:10]) if known else "none yet"
    print(defang(f"kioku: note: agent {agent!r} has no lessons or evaluations here; agents with memory: {listed}"),
          file=sys.stderr)
