"""Bring Claude Code's built-in auto-memory notes into Kioku (``kioku import-auto-memory``).

Auto memory keeps ``<claude dir>/projects/<project key>/memory/MEMORY.md`` plus one topic
file per memory with YAML frontmatter ``name``, ``description``, ``type`` (user | feedback |
project | reference). ``<project key>`` is the git root's absolute path with every
non-alphanumeric character replaced by ``-`` (names over 200 characters are truncated and
get a hash suffix, so a prefix match is used then); ``autoMemoryDirectory`` in settings.json
overrides the folder.

Each topic file becomes one ``kioku.memory.api.remember`` call with the file's type and its
body as written (line breaks kept), so exactly the checks of ``kioku remember``
(``kioku.memory.guard.ensure_rememberable``: secrets, transcripts, long code, over-long text)
and its duplicate detection and superseding apply: a refused note is skipped with the
reason, never shortened; a note Kioku already has is reported as a duplicate. ``--dry-run``
runs the same checks (and the same choice of folder) and writes nothing. A note file that is
a symbolic link, or not a regular file (a FIFO is never opened, so nothing can block), is
skipped with a one-line reason. The auto-memory files themselves are never modified.
Standard library only (the frontmatter here is flat ``key: value`` lines, so no YAML parser
is needed).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from kioku.infra import paths

TYPES = {"user", "feedback", "project", "reference"}
# Read at most this much of a note: far more than a memory may hold (guard.MAX_CHARS), so a
# longer file is refused by its size without reading it whole.
MAX_NOTE_BYTES = 64 * 1024


class NoteRefused(Exception):
    """A note file that is not read: a symbolic link, not a regular file, unreadable, huge."""


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


def read_note_text(path: Path) -> str:
    """The text of a note file; NoteRefused (one-line reason) for a symbolic link (never
    followed), anything but a regular file (opened non-blocking, so a FIFO cannot hang the
    import), an unreadable file, or one too large to be a memory. Invalid UTF-8 becomes
    U+FFFD, which the remember checks then refuse with their usual message."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise NoteRefused(f"cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        raise NoteRefused(f"it is a symbolic link (to {target}); Kioku never follows links, so it was not read")
    if not stat.S_ISREG(info.st_mode):
        raise NoteRefused("it is not a regular file (a FIFO, device or folder), so it was not read")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise NoteRefused(f"cannot read it ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped after the lstat
            raise NoteRefused("it is not a regular file (a FIFO, device or folder), so it was not read")
        data = handle.read(MAX_NOTE_BYTES + 1)
    if len(data) > MAX_NOTE_BYTES:
        raise NoteRefused(f"not saved: the file is over {MAX_NOTE_BYTES // 1024} KB, far too long for a memory; "
                          "summarise it, or keep long material in the repository and remember where it is")
    return data.decode("utf-8", errors="replace")


def parse_note(path: Path) -> Note:
    """A note's type and text: the body as written (only the ends stripped), or when it is
    empty the frontmatter's description or name. NoteRefused as ``read_note_text``."""
    text = read_note_text(path)
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
    content = body.replace("\r\n", "\n").strip()
    if not content:
        content = (meta.get("description", "") or meta.get("name", "")).strip()
    return Note(path, kind if kind in TYPES else None, content)


def find_notes(folder: Path) -> list[Path]:
    """Every ``*.md`` entry but the index, links and non-regular files included (they are
    reported as skipped, with the reason, rather than left out silently)."""
    return sorted(p for p in folder.glob("*.md") if p.name != "MEMORY.md")


def _check(note: Note, root: Path) -> str:
    """What ``remember`` refuses before writing, as the dry run's verdict: the remember
    checks on the note's own text, then the folder its type goes to. Returns the type."""
    from kioku.memory.classify import classify_type
    from kioku.memory.folders import target_dir
    from kioku.memory.guard import ensure_rememberable

    cleaned = ensure_rememberable(note.text)
    type_ = note.type or classify_type(cleaned)
    target_dir(type_, root)
    return type_


def import_notes(root: Path, folder: Path, dry_run: bool = False) -> list[ImportOutcome]:
    from kioku.infra.errors import KiokuError
    from kioku.memory.textutil import one_line

    outcomes: list[ImportOutcome] = []
    for path in find_notes(folder):
        try:
            note = parse_note(path)
        except NoteRefused as exc:
            outcomes.append(ImportOutcome(path, "skipped", str(exc)))
            continue
        if not note.text:
            outcomes.append(ImportOutcome(path, "skipped", "empty note"))
            continue
        try:
            if dry_run:
                type_ = _check(note, root)
                outcomes.append(ImportOutcome(path, "would-import", f"[{type_}] {one_line(note.text)[:80]}"))
                continue
            from kioku.memory.api import remember

            result = remember(note.text, type=note.type, project_root=root)
        except KiokuError as exc:  # secrets, long code, over-long text, the home folder ...
            outcomes.append(ImportOutcome(path, "skipped", one_line(str(exc))))
        else:
            outcomes.append(ImportOutcome(path, result.status, result.summary))
    return outcomes
