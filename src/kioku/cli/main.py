"""The ``kioku`` command line.

Each subcommand lives in a module under ``kioku.cli`` that defines
``register(subparsers)``; only the module that owns the requested command is
imported, so ``kioku recall`` never pays for chromadb. Errors derived from
:class:`kioku.infra.errors.KiokuError` become one line on stderr and a non-zero exit; any
other exception also becomes one line, with the traceback appended to ``<logs>/cli.log``
(``KIOKU_DEBUG=1`` shows it instead).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from kioku import __version__
from kioku.infra.errors import KiokuError

# command name -> owning module (under kioku.cli) and one-line help
COMMANDS: dict[str, tuple[str, str]] = {
    "remember": ("memory", "save a memory (memory-system)"),
    "recall": ("memory", "print the memory a session starts with"),
    "search": ("memory", "search all memory files"),
    "organize": ("memory", "report index size, propose merges and archiving"),
    "forget": ("memory", "archive a memory on explicit request"),
    "learn": ("lessons", "record a learned improvement for an agent"),
    "improvements": ("lessons", "retrieve an agent's improvements relevant to a task"),
    "dashboard": ("lessons", "show an agent's learning dashboard"),
    "maintain": ("lessons", "run daily/weekly/monthly maintenance"),
    "consolidate": ("lessons", "consolidate lessons across agents"),
    "rollback": ("lessons", "roll an agent's improvements back to a timestamp"),
    "restore": ("lessons", "bring a deprecated lesson back to active"),
    "clone": ("lessons", "copy an agent's collections (A/B testing)"),
    "export": ("lessons", "export an agent's memory for review (Markdown/JSON)"),
    "import": ("lessons", "import an exported agent memory"),
    "sync": ("lessons", "apply pending journal entries to ChromaDB"),
    "rebuild": ("lessons", "rebuild the agent-memory store from its journal"),
    "evaluate": ("evaluate", "self-evaluate a task from a Claude Code transcript"),
    "worker": ("evaluate", "process queued hook jobs (run detached by hooks)"),
    "agent-section": ("section", "render an agent's Memory Configuration section"),
    "import-auto-memory": ("install", "import Claude Code auto-memory notes into Kioku"),
    "hook": ("install", "run a hook event handler (used by installed hooks)"),
    "doctor": ("install", "check the installation and stores"),
    "judge": ("judge", "the model judge: status, on, off"),
    "enrich": ("enrich", "search enrichment for memories and lessons, written by a model"),
    "ui": ("ui", "open the local web app"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kioku", description="Persistent, self-improving memory for Claude Code agents."
    )
    parser.add_argument("--version", action="version", version=f"kioku {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = {COMMANDS[only][0]} if only in COMMANDS else {m for m, _ in COMMANDS.values()}
    for module_name in sorted(modules):
        module = importlib.import_module(f"kioku.cli.{module_name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(first)
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
        print(f"kioku: error: {message} (details in {_log_traceback(args.command)})", file=sys.stderr)
        _json_error(args, message, 1)
        return 1
    except Exception as exc:  # noqa: BLE001 - one line for the user, the traceback in the log
        if os.environ.get("KIOKU_DEBUG"):
            raise
        print(f"kioku: error: {_one_line(exc)} (details in {_log_traceback(args.command)})", file=sys.stderr)
        _json_error(args, _one_line(exc), 1)
        return 1


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
    import time
    import traceback

    try:
        from kioku.infra import fsutil, paths

        log = fsutil.ensure_private_dir(paths.logs_dir()) / "cli.log"
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} kioku {command}\n")
            handle.write(traceback.format_exc())
        return str(log)
    except OSError:
        return "the log (could not be written)"


if __name__ == "__main__":
    raise SystemExit(main())
