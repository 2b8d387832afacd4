"""Merge Kioku's hook entries into a Claude Code settings.json, and take them out again.

Contract:
- Kioku's handlers are recognised by their command containing the installed hooks folder
  (``<claude dir>/kioku/hooks/`` for a user install, ``"$CLAUDE_PROJECT_DIR"/.claude/kioku/
  hooks/`` for a project install); nothing else in the file is ever touched.
- Each event gets one matcher group of Kioku's own, appended after other tools' groups,
  with an explicit ``timeout`` in seconds.
- A malformed file (not strict JSON, not an object, ``hooks`` of the wrong shape) raises
  :class:`SettingsError`; the caller refuses and the file is not overwritten.
- A symlinked settings.json stays a link: :func:`write_destination` writes through to its
  target or refuses.
- Serialisation keeps the file's indentation style and trailing newline, so an unchanged
  structure gives unchanged bytes; callers skip the write when nothing changed.
Standard library only.
"""

from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kioku.infra.errors import KiokuError


class SettingsError(KiokuError):
    """settings.json cannot be merged safely; it was left exactly as it was."""


def write_destination(path: Path) -> tuple[Path, str | None]:
    """Where the new settings.json bytes go, and a line for the user when it is not ``path``.

    A settings.json the user made a symbolic link (dotfiles) stays a link: the write goes
    through to the link's target, which must be an existing regular file; otherwise the
    write is refused (``SettingsError``) so the link is never replaced by a plain file."""
    if not path.is_symlink():
        return path, None
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise SettingsError(f"refusing to write {path}: it is a symbolic link whose target is missing "
                            "or loops; nothing was written") from None
    if not target.is_file():
        raise SettingsError(f"refusing to write {path}: it is a symbolic link to {target}, which is not "
                            "a regular file; nothing was written")
    return target, f"{path} is a symbolic link: wrote through to its target {target} (the link is kept)"


@dataclass(frozen=True)
class HookSpec:
    event: str
    timeout: int
    matcher: str | None = None


HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", 15, "startup|resume|clear|compact"),
    HookSpec("UserPromptSubmit", 10),
    HookSpec("Stop", 10),
    HookSpec("SubagentStart", 10),
    HookSpec("SubagentStop", 10),
    HookSpec("SessionEnd", 5),
)
AUTO_MEMORY_KEY = "autoMemoryEnabled"


def parse(raw: bytes | None, where: str) -> dict[str, Any]:
    """The settings object ({} for a missing or blank file); SettingsError when unsafe."""
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{where} is not UTF-8 text ({exc.reason}); Kioku did not change it.") from None
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
            "Kioku did not change it; fix the file (strict JSON: no comments, no trailing "
            "commas) and run the installer again.") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{where} holds a JSON {type(data).__name__}, not an object; Kioku did not change it.")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise SettingsError(f'{where}: "hooks" is not an object of event lists; Kioku did not change it.')
    return data


def kioku_groups(command_for: Callable[[str], str]) -> dict[str, dict[str, Any]]:
    """The matcher group Kioku wants for each event; ``command_for(event)`` -> shell string."""
    groups: dict[str, dict[str, Any]] = {}
    for spec in HOOK_SPECS:
        group: dict[str, Any] = {}
        if spec.matcher:
            group["matcher"] = spec.matcher
        group["hooks"] = [{"type": "command", "command": command_for(spec.event),
                           "timeout": spec.timeout}]
        groups[spec.event] = group
    return groups


def is_kioku_handler(handler: Any, marker: str) -> bool:
    """Whether a settings hook entry runs Kioku's launcher: ``marker`` (the launcher's folder) is
    in its command as written, or in one of its words once the shell's quoting is undone (a
    path with an apostrophe is written as ``'…'"'"'…'``)."""
    if not isinstance(handler, dict):
        return False
    command = str(handler.get("command", ""))
    if marker in command:
        return True
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if any(marker in word for word in words):
        return True
    # the same folder reached by another spelling (a symlinked home, ``..``): one install, not two
    if not os.path.isabs(marker):
        return False
    folder = os.path.realpath(marker)
    return any(os.path.isabs(word) and os.path.realpath(os.path.dirname(word)) == folder for word in words)


def strip_kioku(data: dict[str, Any], marker: str, keep_events: set[str] | None = None) -> dict[str, Any]:
    """A copy without Kioku's handlers; groups and event lists they emptied are dropped.

    ``keep_events``: events whose (now empty) list existed before Kioku and stays.
    """
    out = copy.deepcopy(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        removed = False
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(is_kioku_handler(h, marker) for h in handlers):
                removed = True
                rest = [h for h in handlers if not is_kioku_handler(h, marker)]
                if rest:
                    kept.append({**group, "hooks": rest})
                continue
            kept.append(group)
        # a list that was empty before (the user's own ``"Stop": []``) is not Kioku's to drop
        if kept or not removed or (keep_events and event in keep_events):
            hooks[event] = kept
        else:
            del hooks[event]
    return out


def merge(data: dict[str, Any], groups: dict[str, dict[str, Any]], marker: str) -> dict[str, Any]:
    """``data`` with exactly Kioku's ``groups`` installed (unchanged when already so)."""
    if _already_installed(data, groups, marker):
        return data
    out = strip_kioku(data, marker, keep_events=set(data.get("hooks", {})))
    hooks = out.setdefault("hooks", {})
    for event, group in groups.items():
        hooks.setdefault(event, []).append(copy.deepcopy(group))
    return out


def _already_installed(data: dict[str, Any], groups: dict[str, dict[str, Any]], marker: str) -> bool:
    hooks = data.get("hooks", {})
    for event in set(hooks) | set(groups):
        ours = [g for g in hooks.get(event, []) if isinstance(g, dict) and isinstance(g.get("hooks"), list)
                and any(is_kioku_handler(h, marker) for h in g["hooks"])]
        want = [groups[event]] if event in groups else []
        if ours != want:
            return False
    return True


def has_kioku(data: dict[str, Any], marker: str) -> bool:
    return strip_kioku(data, marker) != data


def style_of(raw: bytes | None) -> tuple[int | str | None, bool]:
    """(indent, trailing newline) as used by an existing file; Claude Code writes 2 spaces."""
    if not raw or not raw.strip():
        return 2, True
    text = raw.decode("utf-8", errors="replace")
    match = re.search(r"^[{\[][ \t]*\r?\n([ \t]+)\S", text, re.MULTILINE)
    if match:
        ws = match.group(1)
        indent: int | str | None = ws if "\t" in ws else len(ws)
    else:
        indent = None if "\n" not in text.strip() else 2
    return indent, text.endswith("\n")


def dumps(data: dict[str, Any], raw_before: bytes | None) -> bytes:
    indent, newline = style_of(raw_before)
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return (text + ("\n" if newline else "")).encode("utf-8")
