"""The ``kioku`` command line: everyday memory verbs at the top, the rest grouped by noun.

``COMMANDS`` is the whole command tree's first level, in the order ``kioku --help`` lists it.
Each entry names the function that adds the command's arguments (``"module:function"`` under
``kioku.cli``), the section of the help it appears in (``None``: hidden, for the commands
Kioku's hooks and worker run) and its summary, written only here: it is the command's line in
``kioku --help`` and the description atop ``kioku COMMAND --help``. Only the module that owns
the requested command is imported, so ``kioku recall`` never pays for chromadb, and
``kioku --help`` imports none.

Adding a command is one entry here plus a module:

- a command: ``"mcp": Command("mcp:setup", UPKEEP, "serve memory to MCP clients")`` and
  ``kioku/cli/mcp.py`` with ``def setup(parser)`` that adds the arguments and
  ``parser.set_defaults(func=handler)``; the handler returns the exit code;
- a group of verbs: ``"judge": Command("judge:setup", AGENTS, "which judge evaluates turns")``
  and ``kioku/cli/judge.py`` with ``VERBS = {"status": Verb(summary, arguments, run), ...}`` and
  ``def setup(parser): add_verbs(parser, VERBS)`` (``kioku.cli.args``). Options shared by many
  commands come from there too: ``add_agent`` (``--agent``, ``main`` by default) and
  ``add_json`` (``--json``).

``MOVED`` maps the names of commands that moved into a group to where they are now: the old
name still runs the command, with the same output and exit code, after one line on stderr.

Errors derived from :class:`kioku.infra.errors.KiokuError` become one line on stderr and a
non-zero exit; any other exception also becomes one line, with the traceback appended to
``<logs>/cli.log`` (``KIOKU_DEBUG=1`` shows it instead). With ``--json`` a failed command also
prints ``{"error": ..., "exit_code": ...}`` on stdout.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from dataclasses import dataclass
from typing import Callable, Sequence

from kioku import __version__
from kioku.cli.args import sentence
from kioku.infra.errors import KiokuError

MEMORY, AGENTS, UPKEEP = "Memory", "Agents and their lessons", "Setup and upkeep"


@dataclass(frozen=True)
class Command:
    setup: str            # "module:function" under kioku.cli; function(parser) adds the arguments
    section: str | None   # where `kioku --help` lists the command; None hides it
    summary: str          # its one line of help, lower case, no full stop


COMMANDS: dict[str, Command] = {
    "remember": Command("memory:setup_remember", MEMORY, "save a memory"),
    "recall": Command("memory:setup_recall", MEMORY, "print the memory a session starts with"),
    "search": Command("memory:setup_search", MEMORY, "search all memory files"),
    "forget": Command("memory:setup_forget", MEMORY, "archive a memory on explicit request"),
    "organize": Command("memory:setup_organize", MEMORY, "report index size, propose merges and archiving"),
    "trust": Command("trust:setup", MEMORY, "review and allow memories withheld from the agent"),
    "import-auto-memory": Command("install:setup_import_auto_memory", MEMORY,
                                  "import Claude Code's auto-memory notes of this project"),
    "lessons": Command("lessons:setup", AGENTS, "an agent's lessons: learn, search, restore, roll back, ..."),
    "eval": Command("evaluate:setup", AGENTS, "judge every turn of a Claude Code transcript"),
    "judge": Command("judge:setup", AGENTS, "the model judge of turns: status, on, off"),
    "dashboard": Command("dashboard:setup", AGENTS, "show an agent's learning dashboard"),
    "agent-section": Command("section:setup", AGENTS, "render an agent's Memory Configuration section"),
    "doctor": Command("install:setup_doctor", UPKEEP, "check the installation and stores"),
    "ui": Command("ui:setup", UPKEEP, "open the local web app"),
    "enrich": Command("enrich:setup", UPKEEP, "search aids for memories and lessons, written by a model"),
    "store": Command("store:setup", UPKEEP, "the agent-memory store: sync, rebuild from the journal"),
    "mcp": Command("mcp:setup", UPKEEP, "serve memory and lessons to MCP clients (stdio)"),
    "hook": Command("internal:setup_hook", None, "run a hook event handler on a payload from stdin"),
    "worker": Command("internal:setup_worker", None, "process queued hook jobs (run detached by hooks)"),
}

# old flat name -> where the command is now; the old names go away in REMOVED_IN
MOVED: dict[str, str] = {
    "learn": "lessons learn",
    "improvements": "lessons search",
    "restore": "lessons restore",
    "rollback": "lessons rollback",
    "clone": "lessons clone",
    "export": "lessons export",
    "import": "lessons import",
    "consolidate": "lessons consolidate",
    "maintain": "lessons maintain",
    "evaluate": "eval transcript",
    "sync": "store sync",
    "rebuild": "store rebuild",
}
REMOVED_IN = "0.3"


class _TopLevelParser(argparse.ArgumentParser):
    """``kioku --help``: the commands by section, from ``COMMANDS``, in one screen."""

    def format_help(self) -> str:
        shown = {name: c for name, c in COMMANDS.items() if c.section}
        width = max(map(len, shown))
        lines = [self.format_usage().rstrip("\n"), self.description or "",
                 "`kioku COMMAND --help` shows a command's options (and a group's verbs).", ""]
        for section in dict.fromkeys(c.section for c in shown.values()):
            lines.append(f"{section}:")
            lines += [f"  {name:<{width}}  {c.summary}" for name, c in shown.items() if c.section == section]
        return "\n".join(lines) + "\n"


def command_of(argv: Sequence[str]) -> str | None:
    """The command word of ``argv``: its first argument that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def moved_to(argv: Sequence[str]) -> tuple[list[str], str | None]:
    """``argv`` with an old command name replaced by where it moved, and the notice to print."""
    args = list(argv)
    old = command_of(args)
    if old not in MOVED:
        return args, None
    at = args.index(old)
    args[at:at + 1] = MOVED[old].split()
    return args, (f"kioku: `kioku {old}` is now `kioku {MOVED[old]}`; the old name goes away in {REMOVED_IN}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, only that command's module is imported and configured
    (none for a name that is not a command, whose error lists the visible ones)."""
    parser = _TopLevelParser(prog="kioku", description="Persistent, self-improving memory for Claude Code agents.")
    parser.add_argument("--version", action="version", version=f"kioku {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    for name, spec in COMMANDS.items():
        wanted = command is None or command == name
        if spec.section is None and not wanted:
            continue  # internals are known only to whoever names them
        p = sub.add_parser(name, help=spec.summary, description=sentence(spec.summary))
        if wanted:
            _setup_function(spec.setup)(p)
    return parser


def _setup_function(target: str) -> Callable[[argparse.ArgumentParser], None]:
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(f"kioku.cli.{module}"), function)


def main(argv: Sequence[str] | None = None) -> int:
    args_list, notice = moved_to(sys.argv[1:] if argv is None else argv)
    if notice:
        print(notice, file=sys.stderr)
    parser = build_parser(command_of(args_list) or "")
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0 if not args_list else 2
    try:
        return int(args.func(args) or 0)
    except KiokuError as exc:
        print(f"kioku: error: {exc}", file=sys.stderr)
        _json_error(args, str(exc), exc.exit_code)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``kioku search x | head -1``): stop quietly, as a command killed
        # by SIGPIPE would; stdout goes to /dev/null so the exit flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:  # a full disk, a read-only folder: say so, and that the command stopped
        if os.environ.get("KIOKU_DEBUG"):
            raise
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        message = f"{exc.strerror or _one_line(exc)}{where}; the command did not complete"
        print(f"kioku: error: {message} (details in {_log_traceback(_command_line(args))})", file=sys.stderr)
        _json_error(args, message, 1)
        return 1
    except Exception as exc:  # noqa: BLE001 - one line for the user, the traceback in the log
        if os.environ.get("KIOKU_DEBUG"):
            raise
        print(f"kioku: error: {_one_line(exc)} (details in {_log_traceback(_command_line(args))})",
              file=sys.stderr)
        _json_error(args, _one_line(exc), 1)
        return 1


def _command_line(args: argparse.Namespace) -> str:
    """``lessons learn`` for a group's verb, ``recall`` for a command."""
    return " ".join(part for part in (args.command, getattr(args, "verb", None)) if part)


def _json_error(args: argparse.Namespace, message: str, exit_code: int) -> None:
    """With ``--json``, a failed command also prints ``{"error": ..., "exit_code": ...}`` on
    stdout, so a script reading it gets JSON either way (the line on stderr is for people)."""
    if getattr(args, "json", False) is not True:
        return
    import json

    from kioku.text.defang import defang_json

    try:
        print(defang_json(json.dumps({"error": message, "exit_code": exit_code}, ensure_ascii=False)))
    except OSError:
        pass


def _one_line(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _log_traceback(command: str) -> str:
    """Append the current traceback to ``<logs>/cli.log``; returns where (or "the log")."""
    from kioku.infra.tracelog import append_traceback

    return append_traceback("cli.log", f"kioku {command}")


if __name__ == "__main__":
    raise SystemExit(main())
