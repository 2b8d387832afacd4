"""Pieces every CLI module shares: the ``--agent`` and ``--json`` options, verb groups, argument types.

A group (``kioku lessons``, ``kioku store``, ...) is a table of :class:`Verb` passed to
:func:`add_verbs`; each verb's summary is written once and serves as its line in the group's
``--help`` and as the description atop the verb's own ``--help``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable

MAIN_AGENT = "main"  # the agent of the main Claude Code session


@dataclass(frozen=True)
class Verb:
    summary: str                                         # one line, lower case, no full stop
    arguments: Callable[[argparse.ArgumentParser], None]  # adds the verb's options
    run: Callable[[argparse.Namespace], int]              # the handler; its return is the exit code


def add_verbs(parser: argparse.ArgumentParser, verbs: dict[str, Verb]) -> None:
    """Give a group's parser its verbs, listed in its ``--help``; the group alone
    (``kioku lessons``) prints that help."""
    sub = parser.add_subparsers(dest="verb", metavar="VERB", help=argparse.SUPPRESS)
    for name, verb in verbs.items():
        p = sub.add_parser(name, help=verb.summary, description=sentence(verb.summary))
        verb.arguments(p)
        p.set_defaults(func=verb.run)
    width = max(map(len, verbs))
    parser.usage = "%(prog)s [-h] VERB ..."
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keeps the verb list as laid out
    parser.epilog = "\n".join(["verbs:", *(f"  {name:<{width}}  {verb.summary}" for name, verb in verbs.items()),
                               "", f"Run `{parser.prog} VERB --help` for a verb's options."])
    parser.set_defaults(func=lambda _args: _print_help(parser))


def _print_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def sentence(summary: str) -> str:
    """A summary as the first line of a command's own ``--help``: capitalised, with a full stop."""
    text = summary[:1].upper() + summary[1:]
    return text if text.endswith((".", "…")) else text + "."


def add_agent(parser: argparse.ArgumentParser, what: str = "the agent") -> None:
    """``--agent NAME``, ``main`` (the main session's agent) unless given."""
    parser.add_argument("--agent", default=MAIN_AGENT, metavar="NAME",
                        help=f"{what} (default: {MAIN_AGENT}, the main session's agent)")


def add_json(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    """``--json``: the report as one JSON document on stdout (an error too: see kioku.cli.main)."""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def print_json(data: object) -> None:
    """``data`` as indented JSON, defanged: remembered text in it cannot open a tag for Claude."""
    import json

    from kioku.text.defang import defang_json

    print(defang_json(json.dumps(data, ensure_ascii=False, indent=2, default=str)))


def warn_flag(flag: str, advice: str) -> None:
    """One line on stderr for a flag kept only so that old scripts still run."""
    import sys

    print(f"kioku: warning: {flag} {advice}", file=sys.stderr)


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1 (``--limit 0`` would silently find nothing)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value
