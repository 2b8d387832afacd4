"""Bringing MEMORY.md in line with the topic files (``kioku organize --repair``) and the notices
the report gives of what does not match: repeated ids, missing topic files, lines of moved memories."""

from __future__ import annotations

import os

from kioku.memory.index import IndexDoc, IndexEntry
from kioku.memory.store import MemoryDir, index_entry_for
from kioku.memory.topics import TopicFile


def repair_index(md: MemoryDir, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[str]:
    """Make the index's entries match the topic files, keeping every line written by hand.

    Index lines pointing into a topic file that holds no such memory (edited or deleted by
    hand, or a cut file) are removed, after the file is copied to ``MEMORY.md.corrupt-<time>``;
    a repeated line is dropped and a wrong type corrected (nothing is lost by either). Entries
    missing from the index are added by the caller.
    """
    done: list[str] = []
    md.mark_hand(doc, topics)
    moved = lines_of_moved_memories(md, doc, topics)
    for line, name in moved:
        line.topic, line.hand = name, False
    if moved:
        one = len(moved) == 1
        done.append(f"pointed {len(moved)} line{'' if one else 's'} of {md.index_path.name} at "
                    f"{', '.join(sorted({n for _l, n in moved}))}, which now hold{'s' if one else ''} "
                    f"{'its memory' if one else 'their memories'} (was a topic file renamed?)")
    stale = [e for e in doc.entries if e.hand and e.topic in topics]
    if stale:
        backup = md.backup(md.index_path)
        doc.entries = [e for e in doc.entries if not (e.hand and e.topic in topics)]
        done.append(f"removed {len(stale)} line{'s' if len(stale) != 1 else ''} from {md.index_path.name} that "
                    f"point{'' if len(stale) != 1 else 's'} to no memory in {'their' if len(stale) != 1 else 'its'} "
                    f"topic file (previous copy: {backup.name})")
    expected = {(name, line.summary): line
                for name, line in ((n, index_entry_for(e, n)) for n, e in md.active_entries(topics))}
    seen: set[tuple[str, str]] = set()
    kept: list[IndexEntry] = []
    fixed = 0
    for entry in doc.entries:
        key = (entry.topic, entry.summary)
        if not entry.hand:
            if key in seen:
                continue
            seen.add(key)
            right = expected.get(key)
            if right is not None and right.type != entry.type:
                entry.type = right.type
                fixed += 1
        kept.append(entry)
    if len(kept) != len(doc.entries):
        done.append(f"removed {len(doc.entries) - len(kept)} repeated line(s) from {md.index_path.name}")
    if fixed:
        done.append(f"corrected the type of {fixed} line(s) in {md.index_path.name}")
    doc.entries = kept
    return done


def written_ids(topic: TopicFile) -> list[tuple[str, str]]:
    """The new ids ``load_topics`` gave entries of ``topic`` that have an id line to write them
    in (an entry without one, written by hand, has an id made from its text on every read)."""
    return [(old, new) for old, new in topic.renumbered if not old.startswith("h")]


def repeated_id_lines(topics: dict[str, TopicFile]) -> list[str]:
    """One line per topic file with entries whose id line repeated an earlier entry's (a block
    copied by hand keeps its id line); ``load_topics`` has given them new ids."""
    out = []
    for name, topic in sorted(topics.items()):
        pairs = written_ids(topic)
        if pairs:
            out.append(f"{name}: {len(pairs)} entr{'y' if len(pairs) == 1 else 'ies'} repeated another entry's id "
                       "and got a new one (" + ", ".join(f"{old} → {new}" for old, new in pairs[:5])
                       + (", …" if len(pairs) > 5 else "") + ")")
    return out


def missing_topic_notices(md: MemoryDir, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[str]:
    """One line per topic file that index entries point to but that is not there (deleted or
    renamed): their lines are kept and recalled as notes, and the topic's full texts are gone
    from search, so the user should know. Lines whose memory is now in another file (the file
    was renamed) are named apart: ``--repair`` points them there."""
    moved_lines = {id(line): name for line, name in lines_of_moved_memories(md, doc, topics)}
    missing: dict[str, int] = {}
    moved: dict[tuple[str, str], int] = {}
    for entry in doc.entries:
        if id(entry) in moved_lines:
            key = (entry.topic, moved_lines[id(entry)])
            moved[key] = moved.get(key, 0) + 1
        elif entry.hand and entry.topic not in topics and not os.path.lexists(md.path / entry.topic):
            missing[entry.topic] = missing.get(entry.topic, 0) + 1
    return [f"{md.scope} memory: {count} line{'s' if count != 1 else ''} of {md.index_path.name} point to "
            f"{old}, which does not exist, and their memories are in {new} (renamed?); "
            "`kioku organize --repair` points the lines there" for (old, new), count in sorted(moved.items())] + [
            f"{md.scope} memory: {count} line{'s' if count != 1 else ''} of {md.index_path.name} point to "
            f"{name}, which does not exist (deleted or renamed?); they are kept as notes: restore the file "
            "(from git, for example) or delete the lines" for name, count in sorted(missing.items())]


def lines_of_moved_memories(md: MemoryDir, doc: IndexDoc,
                             topics: dict[str, TopicFile]) -> list[tuple[IndexEntry, str]]:
    """(index line, topic file) for each line into a topic file that does not exist whose
    memory is an active entry of another file, named by exactly that line (same type and
    summary) and by no line of its own: the file was renamed after the line was written."""
    loose = [e for e in doc.entries if e.hand and e.topic not in topics and not os.path.lexists(md.path / e.topic)]
    if not loose:
        return []
    indexed = {(e.topic, e.summary) for e in doc.entries if not e.hand}
    homes: dict[tuple[str, str], list[str]] = {}
    for name, entry in md.active_entries(topics):
        line = index_entry_for(entry, name)
        if (name, line.summary) not in indexed:
            homes.setdefault((line.type, line.summary), []).append(name)
    claims: dict[tuple[str, str], int] = {}
    for e in loose:
        claims[(e.type, e.summary)] = claims.get((e.type, e.summary), 0) + 1
    return [(e, homes[(e.type, e.summary)][0]) for e in loose
            if len(homes.get((e.type, e.summary), ())) == 1 and claims[(e.type, e.summary)] == 1]


def archived_with_id(md: MemoryDir, line: IndexEntry, id: str) -> bool:
    """Whether the index line ``line`` belonged to the archived memory ``id`` (or an id prefix)."""
    archived = md.load_topics(archive=True).get(line.topic)
    return archived is not None and any(
        (e.id == id or (len(id) >= 4 and e.id.startswith(id))) and index_entry_for(e, line.topic).summary == line.summary
        for e in archived.entries)
