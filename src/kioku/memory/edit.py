"""Correcting stored memories: edit a memory's text, change its type, restore it from the archive.

``edit_memory(id, text=None, type=None, project_root=None) -> EditResult``
``restore_memory(id, project_root=None) -> EditResult``

These are the write paths behind the web UI's buttons and follow the same rules as
``remember`` and ``forget``: new text passes ``guard.ensure_rememberable`` (the secrets choke
point, length and transcript rules) before anything is read for writing; every change happens
under the folder lock; topic files (the source of truth) are written first with atomic
writes, then MEMORY.md. A memory keeps its id through every change.

A type change that crosses folders (``user`` lives in the user-wide folder, every other type
in the project) moves the memory: it is written into the target folder first and removed
from the source afterwards, so a crash can leave a copy in both places but never in none.
Restoring moves an archived entry back into its topic file (live copy first, then the
archive is rewritten without it) and gives it an index line again when the index has room.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass
from pathlib import Path

from kioku.infra.errors import KiokuError, UsageError
from kioku.memory.folders import memory_dirs, target_dir
from kioku.memory.classify import pick_topic
from kioku.memory.guard import ensure_rememberable
from kioku.memory.index import MAX_LINES, TYPES, IndexDoc, format_entry
from kioku.memory.store import MemoryDir, index_entry_for
from kioku.infra.clock import now_iso
from kioku.memory.topics import Entry, TopicFile, new_topic, read_topic, topic_path
from kioku.memory.written import record_entries
from kioku.memory.wanted import want_enrichment

_HISTORY_NOTES = ("(archived ", "(superseded ", "(merged ")


@dataclass
class EditResult:
    id: str
    status: str  # "edited" | "moved" | "restored" | "unchanged"
    type: str
    summary: str
    scope: str
    topic_file: str
    indexed: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


def _find(entry_id: str, project_root: Path | None, archive: bool) -> tuple[MemoryDir, str]:
    """(folder, topic file name) of the one memory with this exact id."""
    if not entry_id or not entry_id.strip():
        raise UsageError("say which memory: an id")
    found: list[tuple[MemoryDir, str]] = []
    for md in memory_dirs(project_root):
        topics = md.load_topics(archive=archive)
        for name, topic in topics.items():
            entries = topic.entries if archive else topic.active()
            found.extend((md, name) for e in entries if e.id == entry_id)
    where = "in the archive" if archive else "among active memories"
    if not found:
        raise KiokuError(f"no memory with id {entry_id!r} {where}; nothing was changed")
    if len(found) > 1:
        raise KiokuError(f"{len(found)} memories have id {entry_id!r} {where}; edit the topic files by hand")
    return found[0]


def _entry(topic: TopicFile | None, entry_id: str, active_only: bool = True) -> Entry:
    for entry in (topic.entries if topic else []):
        if entry.id == entry_id and (entry.status == "active" or not active_only):
            return entry
    raise KiokuError("that memory changed while editing it; nothing was changed, try again")


def _drop_index_line(doc: IndexDoc, entry: Entry, topic_name: str) -> int:
    position = doc.find(topic_name, index_entry_for(entry, topic_name).summary)
    if position >= 0:
        del doc.entries[position]
    return position


def _add_index_line(doc: IndexDoc, entry: Entry, topic_name: str, position: int = -1) -> bool:
    line = index_entry_for(entry, topic_name)
    if position >= 0:
        doc.entries.insert(position, line)
        return True
    if doc.entry_line_count() + 1 > MAX_LINES:  # hand-written lines give way (MemoryDir.write_index)
        return False
    doc.entries.append(line)
    return True


def edit_memory(entry_id: str, text: str | None = None, type: str | None = None,
                project_root: Path | None = None) -> EditResult:
    """Replace a memory's text and/or type; raises SecretRejected, MemoryRejected, UsageError, KiokuError."""
    cleaned = ensure_rememberable(text) if text is not None else None
    new_type = (type or "").strip().lower() or None
    if new_type is not None and new_type not in TYPES:
        raise UsageError(f"unknown memory type {type!r}: use one of {', '.join(TYPES)}")
    md, name = _find(entry_id, project_root, archive=False)
    destination = target_dir(new_type, project_root) if new_type else md
    if destination.path.resolve() != md.path.resolve():
        return _move(md, name, destination, entry_id, cleaned, new_type or "", project_root)
    with md.lock():
        topics = md.load_topics()
        doc = md.load_index(topics)
        topic = topics.get(name)
        entry = _entry(topic, entry_id)
        final_text = cleaned if cleaned is not None else entry.text
        final_type = new_type or entry.type
        if final_text == entry.text and final_type == entry.type:
            return EditResult(entry.id, "unchanged", entry.type, entry.summary, md.scope, str(topic.path))
        position = _drop_index_line(doc, entry, name)
        text_before = entry.text
        if cleaned is not None and cleaned != entry.text:
            entry.summary = format_entry(final_type, cleaned, name).summary
            entry.text = cleaned
        entry.type = final_type
        entry.meta["edited"] = now_iso()
        entry.touch()
        if cleaned is not None and cleaned != text_before:
            record_entries(md, [entry])  # the user's words now: the memory is theirs
        md.write_topic(topic)  # the topic file is the truth: written before the index
        indexed = _add_index_line(doc, entry, name, position)
        md.write_index(doc)
    if final_text != text_before:
        want_enrichment(md, entry.id, project_root)  # its enrichment is stale: written again by the worker
    return EditResult(entry.id, "edited", entry.type, entry.summary, md.scope, str(topic.path), indexed)


@contextlib.contextmanager
def _both_locked(a: MemoryDir, b: MemoryDir):
    first, second = sorted((a, b), key=lambda m: str(m.path.resolve()))
    with first.lock(), second.lock():
        yield


def _move(source: MemoryDir, name: str, destination: MemoryDir, entry_id: str, cleaned: str | None,
          new_type: str, project_root: Path | None = None) -> EditResult:
    with _both_locked(source, destination):
        topics = source.load_topics()
        doc = source.load_index(topics)
        topic = topics.get(name)
        entry = _entry(topic, entry_id)
        if cleaned is not None and cleaned != entry.text:
            entry.text = cleaned
            entry.summary = format_entry(new_type, cleaned, name).summary
        target_name = pick_topic(entry.text, new_type)
        target_topics = destination.load_topics()
        target_doc = destination.load_index(target_topics)
        path = topic_path(destination.path, target_name)
        target = target_topics.get(target_name) or (read_topic(path) if path.exists() else new_topic(path, new_type))
        _drop_index_line(doc, entry, name)
        entry.type = new_type
        entry.meta["edited"] = now_iso()
        entry.meta["moved_from"] = source.scope
        entry.touch()
        target.entries.append(entry)
        record_entries(destination, [entry])  # a user memory moved into the project stays the user's
        destination.write_topic(target)  # the new copy first: a crash leaves two copies, never none
        topic.entries = [e for e in topic.entries if e is not entry]
        source.write_topic(topic)
        indexed = _add_index_line(target_doc, entry, target_name)
        destination.write_index(target_doc)
        source.write_index(doc)
    want_enrichment(destination, entry.id, project_root)  # in a new folder, and maybe with new text
    return EditResult(entry.id, "moved", entry.type, entry.summary, destination.scope, str(target.path), indexed)


def restore_memory(entry_id: str, project_root: Path | None = None) -> EditResult:
    """Move an archived memory back into its topic file as an active memory."""
    md, name = _find(entry_id, project_root, archive=True)
    with md.lock():
        archived = md.load_topics(archive=True)
        archive_topic = archived.get(name)
        entry = _entry(archive_topic, entry_id, active_only=False)
        topics = md.load_topics()
        doc = md.load_index(topics)
        path = topic_path(md.path, name)
        topic = topics.get(name) or (read_topic(path) if path.exists() else new_topic(path, entry.type))
        for key in [k for k in entry.meta if k.endswith(("_on", "_by"))]:
            del entry.meta[key]
        entry.notes = [n for n in entry.notes if not n.startswith(_HISTORY_NOTES)]
        entry.status = "active"
        entry.meta["restored"] = now_iso()
        entry.touch()
        topic.entries.append(entry)
        md.write_topic(topic)  # live copy first: a crash leaves it in both places, never lost
        archive_topic.entries = [e for e in archive_topic.entries if e is not entry]
        md.write_topic(archive_topic)
        indexed = _add_index_line(doc, entry, name)
        md.write_index(doc)
    return EditResult(entry.id, "restored", entry.type, entry.summary, md.scope, str(topic.path), indexed)
