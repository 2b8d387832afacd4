"""Moving memories out of a topic file into its archive (``archive/<topic>.md``), copy first."""

from __future__ import annotations

from pathlib import Path

from kioku.memory.index import IndexDoc
from kioku.memory.store import MemoryDir, index_entry_for
from kioku.infra.clock import today
from kioku.memory.topics import Entry, TopicFile, new_topic, read_topic, topic_path


def archive_entries(md: MemoryDir, name: str, entries: list[Entry], status: str, note: str) -> Path:
    """Append entries to archive/<name> (caller removes them from the topic file afterwards)."""
    path = topic_path(md.archive_path, name)
    archive = read_topic(path) if path.exists() else new_topic(path, entries[0].type)
    for entry in entries:
        entry.touch()
        if entry.status == "active":
            entry.status = status
            entry.meta.update({f"{status}_on": today()})
        entry.notes.append(f"(archived {today()}: {note})")
        archive.entries.append(entry)
    md.write_topic(archive)
    return path


def remove_from(topic: TopicFile, doc: IndexDoc, entries: list[Entry]) -> None:
    """Drop exactly these entries (by identity: an older entry that shares an id stays), and
    their index lines, copies included (a line pasted twice, a merge of two branches), as long
    as no remaining memory of the topic has that line too."""
    gone = {id(e) for e in entries}
    remaining = [e for e in topic.entries if id(e) not in gone]
    for entry in entries:
        summary = index_entry_for(entry, topic.name).summary
        keep = sum(1 for e in remaining if e.status == "active" and index_entry_for(e, topic.name).summary == summary)
        position = doc.find(topic.name, summary)
        if position >= 0:
            del doc.entries[position]
        while keep == 0 and (position := doc.find(topic.name, summary)) >= 0:
            del doc.entries[position]
    topic.entries = remaining
