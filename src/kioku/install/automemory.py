"""Bring Claude Code's built-in auto-memory notes into Kioku (``kioku import-auto-memory``).

Auto memory keeps ``<claude dir>/projects/<project key>/memory/MEMORY.md`` plus one topic
file per memory with YAML frontmatter ``name``, ``description``, ``type`` (user | feedback |
project | reference). ``<project key>`` is the git root's absolute path with every
non-alphanumeric character replaced by ``-`` (names over 200 characters are truncated and
get a hash suffix, so a prefix match is used then); ``autoMemoryDirectory`` in settings.json
overrides the folder.

Each topic file becomes one ``kioku.memory.api.remember`` call with the file's type, so the
secrets check, duplicate detection and superseding all apply: a note with a secret is
skipped with the reason, a note Kioku already has is reported as a duplicate. The auto-memory
files themselves are never modified. Standard library only (the frontmatter here is flat
``key: value`` lines, so no YAML parser is needed).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from kioku.core import paths

TYPES = {"user", "feedback", "project", "reference"}
MAX_NOTE_CHARS = 1500


@dataclass
class Note:
    path: Path
    type: str | None
    text: str


@dataclass
class ImportOutcome:
    path: Path
    status: str  # saved | duplicate | superseded | skipped | would-import
    detail: str = ""


def project_key(root: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def auto_memory_dir(root: Path, claude_dir: Path | None = None) -> Path | None:
    base = claude_dir or paths.claude_dir()
    override = _settings_override(base)
    if override:
        return override
    projects = base / "projects"
    key = project_key(root)
    exact = projects / key / "memory"
    if exact.is_dir():
        return exact
    if len(key) > 200 and projects.is_dir():
        for cand in sorted(projects.iterdir()):
            if cand.name.startswith(key[:200]) and (cand / "memory").is_dir():
                return cand / "memory"
    return None


def _settings_override(base: Path) -> Path | None:
    try:
        data = json.loads((base / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
    if isinstance(value, str) and value.strip():
        path = Path(value).expanduser()
        return path if path.is_dir() else None
    return None


def parse_note(path: Path) -> Note:
    text = path.read_text(encoding="utf-8", errors="replace")
    meta: dict[str, str] = {}
    body = text
    match = re.match(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", text, re.DOTALL)
    if match:
        body = text[match.end():]
        for line in match.group(1).splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() and not key.startswith((" ", "\t")):
                meta[key.strip()] = value.strip().strip("'\"")
    kind = meta.get("type", "").lower()
    content = " ".join(body.split())
    if not content:
        content = meta.get("description", "") or meta.get("name", "")
    return Note(path, kind if kind in TYPES else None, content[:MAX_NOTE_CHARS])


def find_notes(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.md") if p.name != "MEMORY.md" and p.is_file())


def import_notes(root: Path, folder: Path, dry_run: bool = False) -> list[ImportOutcome]:
    from kioku.core.errors import KiokuError, SecretRejected
    from kioku.core.secrets import contains_secret

    outcomes: list[ImportOutcome] = []
    for path in find_notes(folder):
        note = parse_note(path)
        if not note.text:
            outcomes.append(ImportOutcome(path, "skipped", "empty note"))
            continue
        if dry_run:
            if contains_secret(note.text):
                outcomes.append(ImportOutcome(path, "skipped", "looks like it contains a secret"))
            else:
                outcomes.append(ImportOutcome(path, "would-import", f"[{note.type or 'auto'}] {note.text[:80]}"))
            continue
        from kioku.memory.api import remember

        try:
            result = remember(note.text, type=note.type, project_root=root)
        except SecretRejected as exc:
            outcomes.append(ImportOutcome(path, "skipped", str(exc)))
        except KiokuError as exc:
            outcomes.append(ImportOutcome(path, "skipped", str(exc)))
        else:
            outcomes.append(ImportOutcome(path, result.status, result.summary))
    return outcomes
