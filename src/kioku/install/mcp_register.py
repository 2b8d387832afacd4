"""``install.py``'s entry for the ``kioku mcp`` server, where Claude Code reads MCP servers.

- A user install adds ``mcpServers.kioku`` to Claude Code's user configuration file:
  ``$CLAUDE_CONFIG_DIR/.claude.json`` when that variable is set, else ``~/.claude.json`` (what
  ``claude mcp add --scope user`` writes; checked with the pinned binary's ``claude mcp list``).
  The command is the installed ``kioku`` launcher with ``mcp``.
- A project install adds it to the project's ``.mcp.json`` (shared with the project, so it names
  no path of this machine: a short ``sh`` command finds ``.claude/kioku/bin/kioku`` from the
  folder Claude Code runs in upward, and says so when a clone has no install). Claude Code asks
  once before it starts a project's servers.

The installer owns only what it wrote. The manifest keeps the entry, the file's bytes from
before (when Kioku made the only change since) and whether the file and its ``mcpServers``
existed: uninstall puts those bytes back when the file is as Kioku left it, and otherwise removes
exactly its entry (Claude Code rewrites ``.claude.json`` all the time), leaving an entry someone
changed alone. An entry named ``kioku`` that Kioku did not write is never replaced: the install
goes on without it and says why, as it does for a file that is not valid JSON.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kioku.install import settings
from kioku.install.layout import Target, sha256

SERVER_NAME = "kioku"
# From the folder Claude Code runs in up to the first that holds a project install of Kioku.
FIND_PROJECT_LAUNCHER = (
    'd=$PWD; while :; do if [ -x "$d/.claude/kioku/bin/kioku" ]; then exec "$d/.claude/kioku/bin/kioku" mcp '
    '--project "$d"; fi; [ "$d" = / ] && break; d=$(dirname "$d"); done; echo "kioku: Kioku is not installed in '
    'this project (python3 install.py --project DIR installs it)" >&2; exit 1')


def config_file(target: Target) -> Path:
    if target.project:
        return target.project / ".mcp.json"
    folder = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(folder).expanduser() if folder else Path.home()) / ".claude.json"


def server_entry(target: Target) -> dict[str, Any]:
    if target.project:
        return {"type": "stdio", "command": "sh", "args": ["-c", FIND_PROJECT_LAUNCHER, "kioku-mcp"], "env": {}}
    return {"type": "stdio", "command": str(target.kioku_dir / "bin" / "kioku"), "args": ["mcp"], "env": {}}


@dataclass
class Plan:
    path: Path
    raw: bytes | None  # the file now
    new_raw: bytes | None  # what the install writes (None: leave the file as it is)
    entry: dict[str, Any] | None  # the entry Kioku owns after the install (None: none)
    record: dict[str, Any] | None  # the manifest's "mcp" value after the install
    warning: str = ""


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _parse(raw: bytes | None, path: Path) -> dict[str, Any]:
    data = settings.parse(raw, str(path))  # SettingsError for anything but a JSON object
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise settings.SettingsError(f'{path}: "mcpServers" is not an object; Kioku did not change it.')
    return data


def plan(target: Target, old: dict[str, Any] | None) -> Plan:
    """What the install does to the MCP configuration (nothing is written here)."""
    path = config_file(target)
    raw = _read(path)
    previous = old if isinstance(old, dict) and old.get("file") == str(path) else None
    try:
        data = _parse(raw, path)
    except settings.SettingsError as exc:
        return Plan(path, raw, None, None, previous, f"{exc} The kioku MCP server was not registered.")
    entry = server_entry(target)
    present = data.get("mcpServers", {}).get(SERVER_NAME)
    ours = previous.get("entry") if previous else None
    if present == entry:
        # already there: an earlier install's record, else (its manifest lost) one that can only
        # take the entry out again, the bytes from before being unknown
        return Plan(path, raw, None, entry, previous or {
            "file": str(path), "existed": True, "had_servers": True, "baseline_b64": None, "entry": entry,
            "written_sha256": None})
    if present is not None and present != ours:
        return Plan(path, raw, None, None, None,
                    f"{path} already has an MCP server named {SERVER_NAME!r} that Kioku did not write; it was left "
                    "as it is and Kioku's was not registered.")
    new = {**data, "mcpServers": {**data.get("mcpServers", {}), SERVER_NAME: entry}}
    new_raw = settings.dumps(new, raw)
    if previous and raw is not None and sha256(raw) == previous.get("written_sha256"):
        record = {**previous, "entry": entry, "written_sha256": sha256(new_raw)}  # the same baseline
    elif previous:
        record = {**previous, "entry": entry, "baseline_b64": None, "written_sha256": sha256(new_raw)}
    else:
        record = _record(path, raw, new_raw, entry, data)
    return Plan(path, raw, new_raw, entry, record)


def _record(path: Path, raw: bytes | None, new_raw: bytes | None, entry: dict[str, Any],
            data: dict[str, Any]) -> dict[str, Any]:
    return {"file": str(path), "existed": raw is not None, "had_servers": "mcpServers" in data,
            "baseline_b64": base64.b64encode(raw or b"").decode(), "entry": entry,
            "written_sha256": sha256(new_raw) if new_raw is not None else None}


def write(path: Path, data: bytes | None) -> None:
    """Replace ``path`` atomically (its mode and a symbolic link kept), or remove it for None."""
    from kioku.infra import fsutil

    if data is None:
        path.unlink(missing_ok=True)
        return
    dest, _note = settings.write_destination(path)
    try:
        mode = dest.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600
    fsutil.replace_file_bytes(dest, data, mode)


def restored(record: dict[str, Any] | None) -> tuple[Path, bytes | None] | None:
    """What uninstall writes to the MCP configuration file: its bytes from before when Kioku's was
    the last change, else the file without Kioku's entry (None for the file: delete it); None when
    there is nothing of Kioku's to take out."""
    if not isinstance(record, dict) or not record.get("file"):
        return None
    path = Path(record["file"])
    raw = _read(path)
    if raw is None:
        return None
    if record.get("baseline_b64") is not None and sha256(raw) == record.get("written_sha256"):
        return (path, base64.b64decode(record["baseline_b64"]) if record.get("existed") else None)
    try:
        data = _parse(raw, path)
    except settings.SettingsError:
        return None  # not JSON any more: someone else's now; `kioku doctor` is not needed to see it
    servers = dict(data.get("mcpServers", {}))
    if servers.get(SERVER_NAME) != record.get("entry"):
        return None  # gone, or changed by someone: not Kioku's to remove
    del servers[SERVER_NAME]
    rest = {k: v for k, v in data.items() if k != "mcpServers"}
    if servers or record.get("had_servers"):
        rest["mcpServers"] = servers
    if not rest and not record.get("existed"):
        return (path, None)
    return (path, settings.dumps(rest, raw))


def describe(target: Target) -> str:
    where = "this project's .mcp.json (Claude Code asks once before starting it)" if target.project else \
        "Claude Code's user configuration"
    return f"MCP server {SERVER_NAME!r} in {where}"

