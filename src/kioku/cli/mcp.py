"""``kioku mcp [--project DIR]``: serve Kioku's memory and lessons over MCP on stdin/stdout.

An MCP client starts it (Claude Code through the plugin or the entry ``install.py`` writes;
Claude Desktop, Cursor and others through their own configuration: docs/mcp.md). The project
is ``--project``, else the folder Claude Code runs in, else the working directory.

Run by the Claude Code plugin before the plugin's environment exists (the system ``python3``
has no MCP SDK), it starts preparing that environment in the background and waits for it up to
:data:`READY_WAIT_S` (under Claude Code's 30 s connection timeout), then serves from it; when the
preparation takes longer (pip downloading Chroma), it says so and the server is there from the
next session. When ``install.py`` registered its own server too, the
plugin's stands aside (as the plugin's hooks do), so the tools are not listed twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from kioku.infra.errors import KiokuError, UsageError

READY_WAIT_S = 20.0


def setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", metavar="DIR",
                   help="the project whose memory to serve (default: Claude Code's project folder, "
                        "else the working directory)")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    if args.project and not Path(args.project).expanduser().is_dir():
        raise UsageError(f"--project {args.project}: no such folder")
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        return _without_sdk(args)
    if _plugin_stands_aside():
        return 1
    from kioku.mcp.context import Context
    from kioku.mcp.server import run

    project = str(Path(args.project).expanduser().resolve()) if args.project else None
    return run(Context.from_environment(project))


def _plugin_dirs() -> tuple[str, str] | None:
    data, root = os.environ.get("CLAUDE_PLUGIN_DATA", ""), os.environ.get("CLAUDE_PLUGIN_ROOT", "")
    return (data, root) if data and root else None


def _without_sdk(args: argparse.Namespace) -> int:
    plugin = _plugin_dirs()
    if plugin is None:
        raise KiokuError(f"kioku mcp needs the MCP SDK (the Python package mcp), which {sys.executable} lacks; "
                         "run install.py again to rebuild Kioku's environment")
    from kioku.install import plugin_env

    data, root = plugin
    log = os.path.join(data, plugin_env.PREPARE_LOG)
    try:
        started = plugin_env.start_prepare(data, root)
    except OSError:
        started = False  # the next hook tries again
    if not started and not plugin_env.prepare_running(data) and os.path.exists(
            os.path.join(data, plugin_env.FAILED_MARKER)):
        print(f"kioku mcp: preparing Kioku's environment (the MCP SDK, Chroma, the model) failed (log: {log}); "
              "`kioku doctor` says why, and it is tried again an hour later", file=sys.stderr)
        return 1
    import time

    begun = time.monotonic()
    while not plugin_env.is_ready(data) and time.monotonic() < begun + READY_WAIT_S and (
            plugin_env.prepare_running(data) or (started and time.monotonic() < begun + 2.0)):
        time.sleep(0.2)  # a preparation just started takes its lock within moments
    if plugin_env.is_ready(data) and plugin_env.pointer():
        # the environment is there now: serve from it (the client's first messages wait on stdin)
        return plugin_env.run_cli(["mcp", *(["--project", args.project] if args.project else [])])
    print(f"kioku mcp: Kioku's environment (the MCP SDK, Chroma, the model) is being prepared in the background "
          f"(log: {log}); the kioku MCP server is available from the next session, or once /mcp reconnects it",
          file=sys.stderr)
    return 1


def _plugin_stands_aside() -> bool:
    """Whether this is the plugin's server while an ``install.py`` installation registered its own."""
    if _plugin_dirs() is None:
        return False
    from kioku.infra.pathstr import find_project_root
    from kioku.install.plugin_env import installer_manifests

    for path in installer_manifests(find_project_root(os.environ.get("CLAUDE_PROJECT_DIR") or None)):
        try:
            registered = json.loads(Path(path).read_text(encoding="utf-8")).get("mcp")
        except (OSError, ValueError, AttributeError):
            continue
        if registered:
            print(f"kioku mcp: Kioku is installed twice, as a Claude Code plugin and with install.py "
                  f"({os.path.dirname(os.path.dirname(path))}), whose kioku MCP server serves the same tools; the "
                  "plugin's stands aside. Remove one (`claude plugin uninstall kioku@<marketplace>` or "
                  "`python3 install.py --uninstall`).", file=sys.stderr)
            return True
    return False
