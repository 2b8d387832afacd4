"""Keeping memory tidy: ``kioku organize`` (report, propose, ``--apply``) and ``kioku forget``.

``organize(project_root=None, apply=False, repair=False, older_than_days=None) -> OrganizeReport``
reports, per folder (user-wide and project), the index size against its limits (warning
from ``WARN_LINES`` = 150, full at ``MAX_LINES`` = 200), the topic files, entries missing
from the index, and proposes:

- **merge**: active entries of one topic file of which every two are similar (same type,
  token Jaccard ≥ 0.5, not contradicting each other) → one entry that keeps every original
  text, with an index line that joins their summaries; a group is merged only when that line
  shows every summary whole and the text stays within a memory's size, so merging shortens
  the index without hiding a fact. The originals go to the archive marked ``merged``;
- **archive**: superseded entries; the oldest active entries (by creation time, compared as
  times) while Kioku's own index lines are past the warning size (down to ``TARGET_LINES``;
  lines written by hand are not counted: archiving memories cannot shorten them, and Kioku
  moves them out of the index itself when it would pass ``MAX_LINES``); with
  ``older_than_days`` every older entry.

Nothing moves unless ``apply=True``. Archiving moves an entry to ``archive/<topic>.md``
(written *before* it is removed from the topic file, so a crash leaves a copy, never a
loss), removes its index line, and notes the date. ``repair=True`` rewrites damaged topic
files and brings MEMORY.md in line with the topic files: entries missing from it are added,
lines with a wrong type are corrected, and index lines that point into a topic file with no
such memory are removed. Lines written by hand (not entries, or entries pointing to no topic
file here) are kept. A ``.corrupt-<time>`` copy is written only of a file that was damaged:
a topic file repaired, an unreadable MEMORY.md, or one that lost lines pointing to nothing.

The report mentions what the other commands do silently: a missing MEMORY.md (rebuilt by
``--repair`` or the next save) and ``*.md`` files that are not read as topic files (symbolic
links, FIFOs and other non-regular files).

``forget(query=None, id=None, project_root=None) -> ForgetResult`` archives exactly one
memory on explicit request: by id, or by a query that matches exactly one active memory
(otherwise the candidates are listed with their ids and nothing changes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kioku.infra.errors import KiokuError
from kioku.memory.contradict import assess, relation, stated_values
from kioku.memory.guard import MAX_CHARS
from kioku.memory.index import MAX_LINES, WARN_LINES, IndexDoc, IndexEntry, format_entry
from kioku.memory.store import MemoryDir, index_entry_for
from kioku.memory.textutil import (
    current_date,
    jaccard,
    normalize,
    now_iso,
    parse_date,
    time_key,
    token_set,
    today,
)
from kioku.memory.topics import Entry, TopicFile, new_topic, read_topic, topic_path, unique_id
from kioku.memory.screen import screened_summary
from kioku.memory.trusted import carry_over

MERGE_JACCARD = 0.5
TARGET_LINES = 120


@dataclass
class Proposal:
    kind: str  # "merge" | "archive"
    scope: str
    topic: str
    ids: list[str]
    summaries: list[str]
    reason: str


@dataclass
class FolderReport:
    scope: str
    path: str
    index_lines: int = 0
    indexed: int = 0
    unindexed: int = 0
    topics: dict[str, int] = field(default_factory=dict)  # file -> active entries
    status: str = "ok"  # ok | warn | full | unindexed | missing | unreadable | empty
    hand_written: int = 0  # index lines that are not Kioku's entries
    out_of_date: int = 0  # entry lines into a topic file that has no such memory (edited by hand)
    skipped: list[str] = field(default_factory=list)  # "*.md files not read: why", one per file


@dataclass
class OrganizeReport:
    folders: list[FolderReport] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


@dataclass
class ForgetResult:
    id: str
    summary: str
    scope: str
    topic_file: str
    archive_file: str


def _dirs(project_root: Path | None) -> list[MemoryDir]:
    from kioku.memory.folders import memory_dirs

    return memory_dirs(project_root)


def _similar(a: Entry, b: Entry, tokens_a: set[str], tokens_b: set[str]) -> bool:
    """Alike enough to share one entry: same type, most words in common, and neither may
    replace the other ("version 3.11" / "version 3.12") nor holds for another scope or
    subject ("port 3000 in development" / "port 443 in production")."""
    if a.type != b.type or jaccard(tokens_a, tokens_b) < MERGE_JACCARD:
        return False
    values_a, values_b = stated_values(a.text), stated_values(b.text)
    if values_a and values_b and values_a != values_b:
        return False  # the same words with other numbers or options: another fact
    return not (assess(a.text, b.text) or assess(b.text, a.text) or relation(a.text, b.text) == "different")


def merged_summary(entries: list[Entry]) -> str:
    return "; ".join(dict.fromkeys(e.summary for e in entries))


def _fits(entries: list[Entry], topic_name: str) -> bool:
    """A merge may only shorten the index, never hide a fact: the merged index line must show
    every original summary whole, and the merged text must stay a memory's size."""
    joined = merged_summary(entries)
    return (format_entry(entries[-1].type, joined, topic_name).summary == joined
            and len("\n".join(dict.fromkeys(e.text for e in entries))) <= MAX_CHARS)


def _merge_groups(topic: TopicFile) -> list[list[Entry]]:
    """Groups of active entries, oldest first, in which every two entries are similar (no
    chains of look-alikes) and whose merge fits one index line and one memory."""
    active = sorted(topic.active(), key=lambda e: time_key(e.created))
    tokens = {id(e): token_set(e.text) for e in active}
    groups: list[list[Entry]] = []
    for entry in active:
        for group in groups:
            if all(_similar(entry, other, tokens[id(entry)], tokens[id(other)]) for other in group) and _fits(
                    group + [entry], topic.name):
                group.append(entry)
                break
        else:
            groups.append([entry])
    return [g for g in groups if len(g) > 1]


PROTECTED_DAYS = 30  # a memory younger than this is not archived to make room in the index


def _plan(md: MemoryDir, topics: dict[str, TopicFile], doc: IndexDoc, older_than_days: int | None) -> list[Proposal]:
    proposals: list[Proposal] = []
    merged: set[str] = set()
    saved_by_merges = 0
    for name, topic in sorted(topics.items()):
        for group in _merge_groups(topic):
            merged.update(e.id for e in group)
            saved_by_merges += len(group) - 1  # a merged group keeps one line
            proposals.append(Proposal("merge", md.scope, name, [e.id for e in group], [e.summary for e in group],
                                      "similar entries in the same topic"))
        for entry in topic.entries:
            if entry.status == "superseded":
                proposals.append(Proposal("archive", md.scope, name, [entry.id], [entry.summary],
                                          f"superseded on {entry.meta.get('superseded_on', '?')}"))
    chosen: set[str] = set()
    if older_than_days is not None:
        for name, entry in md.active_entries(topics):
            created = parse_date(entry.created)
            if created and (current_date() - created).days > older_than_days and entry.id not in merged:
                chosen.add(entry.id)
                proposals.append(Proposal("archive", md.scope, name, [entry.id], [entry.summary],
                                          f"older than {older_than_days} days ({entry.date})"))
    # Kioku's own lines only: hand-written lines are not shortened by archiving memories.
    md.mark_hand(doc, topics)
    lines = doc.entry_line_count() + len(md.unindexed(doc, topics))
    if lines > WARN_LINES:
        # what the merges and the age-based archives above already take off counts first
        excess = lines - TARGET_LINES - saved_by_merges - len(chosen)
        for name, entry in sorted(md.active_entries(topics), key=lambda item: time_key(item[1].created)):
            if excess <= 0:
                break
            if entry.id in merged or entry.id in chosen:
                continue
            created = parse_date(entry.created)
            if entry.type == "feedback" or created is None or (current_date() - created).days < PROTECTED_DAYS:
                continue  # corrections of behaviour and memories of the last weeks are never archived for room
            excess -= 1
            proposals.append(Proposal("archive", md.scope, name, [entry.id], [entry.summary],
                                      f"oldest entry ({entry.date}); index over {WARN_LINES} lines"))
    return proposals


def _archive_entries(md: MemoryDir, name: str, entries: list[Entry], status: str, note: str) -> Path:
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


def _remove_from(topic: TopicFile, doc: IndexDoc, entries: list[Entry]) -> None:
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


def _apply(md: MemoryDir, topics: dict[str, TopicFile], doc: IndexDoc, proposals: list[Proposal]) -> list[str]:
    done: list[str] = []
    for proposal in proposals:
        topic = topics[proposal.topic]
        entries = [e for e in topic.entries if e.id in proposal.ids]
        if len(entries) != len(proposal.ids):
            continue  # already handled by an earlier proposal
        ids = {e.id for e in entries}
        if proposal.kind == "merge":
            entries.sort(key=lambda e: e.created)
            text = "\n".join(dict.fromkeys(e.text for e in entries))
            # dated as the newest of its parts: it is no older than the newest fact it holds,
            # and "older than N days" must not archive a fact saved last week
            created = max((e.created for e in entries), key=time_key) or now_iso()
            new_id = unique_id(created, text, {e.id for t in topics.values() for e in t.entries})
            summary = format_entry(entries[-1].type, merged_summary(entries), topic.name).summary
            new = Entry(new_id, entries[-1].type, created, summary, text, meta={"merged_from": ",".join(sorted(ids))})
            new.notes.append("Merged from: " + ", ".join(f'{e.id} "{e.summary}" ({e.date})' for e in entries))
            for entry in entries:
                entry.meta["merged_by"] = new_id
            carry_over(md, entries, new, topic.name)  # Kioku's own only if every part was
            _archive_entries(md, topic.name, entries, "merged", f"merged into {new_id}")
            _remove_from(topic, doc, entries)
            topic.entries.append(new)
            doc.entries.append(index_entry_for(new, topic.name))
            shown = summary if md.scope != "project" else screened_summary(md.base, topic.name, summary, text, new_id)
            done.append(f"merged {len(entries)} entries of {topic.name} into {new_id}: {shown}")
        else:
            _archive_entries(md, topic.name, entries, "archived", proposal.reason)
            _remove_from(topic, doc, entries)
            done.append(f"archived {proposal.topic}: {proposal.summaries[0]}")
        md.write_topic(topic)
    return done


def _screened(md: MemoryDir, topics: dict[str, TopicFile], proposals: list[Proposal]) -> list[Proposal]:
    """Proposals as the agent may read them: a project memory withheld from it
    (``kioku.memory.screen``) is named by a placeholder, not by its summary."""
    if md.scope != "project" or not proposals:
        return proposals
    by_id = {e.id: (name, e) for name, topic in topics.items() for e in topic.entries}
    for proposal in proposals:
        proposal.summaries = [screened_summary(md.base, by_id[i][0], by_id[i][1].summary, by_id[i][1].text, i)
                              if i in by_id else summary for i, summary in zip(proposal.ids, proposal.summaries)]
    return proposals


def _repair_index(md: MemoryDir, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[str]:
    """Make the index's entries match the topic files, keeping every line written by hand.

    Index lines pointing into a topic file that holds no such memory (edited or deleted by
    hand, or a cut file) are removed, after the file is copied to ``MEMORY.md.corrupt-<time>``;
    a repeated line is dropped and a wrong type corrected (nothing is lost by either). Entries
    missing from the index are added by the caller.
    """
    done: list[str] = []
    md.mark_hand(doc, topics)
    moved = _lines_of_moved_memories(md, doc, topics)
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


def organize(project_root: Path | None = None, apply: bool = False, repair: bool = False,
             older_than_days: int | None = None) -> OrganizeReport:
    report = OrganizeReport()
    for md in _dirs(project_root):
        folder = FolderReport(md.scope, str(md.path))
        report.folders.append(folder)
        if not md.path.is_dir():
            folder.status = "empty"
            continue
        folder.skipped = [f"{'archive/' if archive else ''}{path.name}: {why}" for archive in (False, True)
                          for path, why in md.ignored_files(archive)]
        for line in folder.skipped:
            report.notices.append(f"{md.scope} memory: not read as a topic file: {line}")
        had_index = os.path.lexists(md.index_path)
        if not (apply or repair):
            topics = md.load_topics()
            try:
                doc = md.load_index(topics, repair=False)
            except KiokuError as exc:
                folder.status = "unreadable"
                report.notices.append(str(exc))
                continue
            report.proposals.extend(_screened(md, topics, _plan(md, topics, doc, older_than_days)))
            report.notices.extend(f"{md.scope} memory: {line}; `kioku organize --repair` writes the new ids"
                                  for line in _repeated_id_lines(topics))
            stale = md.stale_lines(doc, topics)
            if stale:
                report.notices.append(
                    f"{md.scope} memory: {len(stale)} line{'s' if len(stale) != 1 else ''} of {md.index_path.name} "
                    "point to memories already archived or superseded (an interrupted write left them); "
                    "`kioku organize --apply` or `--repair` removes them")
                stale_ids = {id(e) for e in stale}
                doc.entries = [e for e in doc.entries if id(e) not in stale_ids]  # not counted as hand-written
        else:
            with md.lock():
                topics = md.load_topics()
                doc = md.load_index(topics, repair=True)
                stale = md.drop_stale_lines(doc, topics)
                if stale:
                    report.applied.append(
                        f"removed {len(stale)} line{'s' if len(stale) != 1 else ''} of already archived or "
                        f"superseded memories from {md.index_path.name} (an interrupted write left them)")
                md.mark_hand(doc, topics)
                if not had_index and topics:
                    report.applied.append(f"rebuilt {md.index_path.name} from the topic files (it was missing)")
                if repair:
                    report.applied.extend(_repeated_id_lines(topics))
                    for topic in topics.values():
                        if topic.broken or _written_ids(topic):
                            md.write_topic(topic)
                    report.applied.extend(_repair_index(md, doc, topics))
                proposals = _screened(md, topics, _plan(md, topics, doc, older_than_days)) if apply else []
                report.proposals.extend(proposals)
                report.applied.extend(_apply(md, topics, doc, proposals))
                added = 0
                for name, entry in md.unindexed(doc, topics):
                    # Kioku's entries come before hand-written lines (write_index moves those out)
                    if doc.entry_line_count() + 1 > MAX_LINES:
                        break
                    doc.entries.append(index_entry_for(entry, name))
                    added += 1
                if added and had_index:
                    report.applied.append(f"added {added} entr{'y' if added == 1 else 'ies'} missing from "
                                          f"{md.index_path.name}")
                md.write_index(doc)
        md.mark_hand(doc, topics)
        report.notices.extend(_missing_topic_notices(md, doc, topics))
        folder.index_lines = doc.line_count()
        # entry lines pointing into a topic file without that memory: its entry was edited or
        # removed by hand after the line was written; --repair drops them (and indexes the entry anew)
        folder.out_of_date = sum(1 for e in doc.entries if e.hand and e.topic in topics)
        folder.hand_written = doc.hand_written() - folder.out_of_date
        folder.indexed = sum(1 for e in doc.entries if not e.hand)
        folder.unindexed = len(md.unindexed(doc, topics))
        folder.topics = {name: len(t.active()) for name, t in sorted(topics.items())}
        own_lines = doc.entry_line_count()
        # "full" only when Kioku's own lines reach the limit: entries missing from an index that
        # still has room (a hand edit or a cut file dropped their lines) are "unindexed", which
        # --repair fixes; hand-written lines give way to Kioku's entries, so they never make it full.
        folder.status = ("missing" if not had_index and topics and not (apply or repair)
                         else "full" if own_lines >= MAX_LINES
                         else "unindexed" if folder.unindexed
                         else "warn" if own_lines >= WARN_LINES else "ok")
        report.notices.extend(md.notices)
    return report


def _written_ids(topic: TopicFile) -> list[tuple[str, str]]:
    """The new ids ``load_topics`` gave entries of ``topic`` that have an id line to write them
    in (an entry without one, written by hand, has an id made from its text on every read)."""
    return [(old, new) for old, new in topic.renumbered if not old.startswith("h")]


def _repeated_id_lines(topics: dict[str, TopicFile]) -> list[str]:
    """One line per topic file with entries whose id line repeated an earlier entry's (a block
    copied by hand keeps its id line); ``load_topics`` has given them new ids."""
    out = []
    for name, topic in sorted(topics.items()):
        pairs = _written_ids(topic)
        if pairs:
            out.append(f"{name}: {len(pairs)} entr{'y' if len(pairs) == 1 else 'ies'} repeated another entry's id "
                       "and got a new one (" + ", ".join(f"{old} → {new}" for old, new in pairs[:5])
                       + (", …" if len(pairs) > 5 else "") + ")")
    return out


def _missing_topic_notices(md: MemoryDir, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[str]:
    """One line per topic file that index entries point to but that is not there (deleted or
    renamed): their lines are kept and recalled as notes, and the topic's full texts are gone
    from search, so the user should know. Lines whose memory is now in another file (the file
    was renamed) are named apart: ``--repair`` points them there."""
    moved_lines = {id(line): name for line, name in _lines_of_moved_memories(md, doc, topics)}
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


def _lines_of_moved_memories(md: MemoryDir, doc: IndexDoc,
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


def _archived_with_id(md: MemoryDir, line: IndexEntry, id: str) -> bool:
    """Whether the index line ``line`` belonged to the archived memory ``id`` (or an id prefix)."""
    archived = md.load_topics(archive=True).get(line.topic)
    return archived is not None and any(
        (e.id == id or (len(id) >= 4 and e.id.startswith(id))) and index_entry_for(e, line.topic).summary == line.summary
        for e in archived.entries)


def _is_katakana(c: str) -> bool:
    return "ァ" <= c <= "ヺ" or c == "ー"


def _contains_words(haystack: str, needle: str) -> bool:
    """``needle`` in ``haystack`` as whole words at its Latin ends ("npm" is not in "pnpm"), and
    not from the middle of a katakana word ("テスト" is not in "コンテスト", a contest; it is in
    "テストケース", a test case). Kanji and kana runs otherwise need no boundary."""
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = haystack[start - 1] if start else " "
        after = haystack[end] if end < len(haystack) else " "
        if not (needle[0].isascii() and needle[0].isalnum() and before.isascii() and before.isalnum()) and \
                not (needle[-1].isascii() and needle[-1].isalnum() and after.isascii() and after.isalnum()) and \
                not (_is_katakana(needle[0]) and _is_katakana(before)):
            return True
        start = haystack.find(needle, start + 1)
    return False


def _matches(entry: Entry, query: str) -> bool:
    return _text_matches(query, entry.text, entry.summary)


def _text_matches(query: str, text: str, summary: str = "") -> bool:
    """Whether ``query`` names a memory of this text: its words in order, or 75 % of them."""
    needle = normalize(query)
    if needle and _contains_words(normalize(f"{summary} {text}" if summary else text), needle):
        return True
    if needle and all(_is_katakana(c) for c in needle):
        return False  # one katakana word: its pieces would be found inside other words ("コンテスト")
    wanted = token_set(query)
    return bool(wanted) and len(wanted & token_set(text)) / len(wanted) >= 0.75


def _hand_note_matching(query: str, project_root: Path | None, scope: str | None = None) -> str | None:
    """``path:line`` of a note written by hand in a MEMORY.md that ``query`` names, or None."""
    from kioku.memory.index import index_notes, read_index_text

    for md in _dirs(project_root):
        if scope and md.scope != scope:
            continue
        try:
            text = read_index_text(md.index_path)
        except KiokuError:
            continue
        for number, _type, note, _topic, entry in index_notes((text or "").splitlines()):
            if not entry and _text_matches(query, note):
                try:
                    shown = md.index_path.relative_to(Path.cwd())
                except ValueError:
                    shown = md.index_path
                return f"{shown}:{number}"
    return None


def forget(query: str | None = None, id: str | None = None, project_root: Path | None = None,
           scope: str | None = None) -> ForgetResult:
    """Archive the one memory ``query`` (words) or ``id`` names, in the user or project memory
    folder or, with ``scope``, only in that one."""
    if not (query and query.strip()) and not id:
        raise KiokuError("say what to forget: a query or --id ID")
    candidates: list[tuple[MemoryDir, str, Entry]] = []
    cleaned: list[tuple[MemoryDir, IndexEntry]] = []
    for md in _dirs(project_root):
        if scope and md.scope != scope:
            continue
        if not md.path.is_dir():
            continue
        topics = md.load_topics()
        if os.path.lexists(md.index_path):
            # a forget or organize killed before its index write left the line of a memory it
            # had already archived: remove it now, so that retrying the forget finishes the job
            try:
                stale = md.stale_lines(md.load_index(topics, repair=False), topics)
            except KiokuError:
                stale = []  # an unreadable index is repaired by the forget's own write
            if stale:
                with md.lock():
                    topics = md.load_topics()
                    doc = md.load_index(topics)
                    cleaned += [(md, e) for e in md.drop_stale_lines(doc, topics)]
                    md.write_index(doc)
        for name, entry in md.active_entries(topics):
            if (id and (entry.id == id or (len(id) >= 4 and entry.id.startswith(id)))) or (
                not id and _matches(entry, query or "")):
                candidates.append((md, name, entry))
    if not candidates:
        finished = [(md, e) for md, e in cleaned if (query and normalize(query) in normalize(e.summary))
                    or (id and _archived_with_id(md, e, id))]
        if finished:
            md, line = finished[0]
            return ForgetResult("", line.summary, md.scope, str(md.path / line.topic),
                                str(md.archive_path / line.topic))
        hand = _hand_note_matching(query or "", project_root, scope) if not id else None
        if hand:
            raise KiokuError(f"{query!r} matches a note written by hand in {hand}, not a memory Kioku saved; "
                             "edit that file to remove it; nothing was changed")
        hint = "" if id else f"; find it with `kioku search {query}` and forget it by its id (`--id ID`)"
        raise KiokuError(f"no memory matches {id or query!r}{hint}; nothing was changed")
    if len(candidates) > 1:
        listed = "; ".join(f"{e.id} ({md.scope} memory: {_shown(md, name, e)[:50]})" for md, name, e in candidates[:8])
        if len({md.scope for md, _, _ in candidates}) > 1 and len({e.id for _, _, e in candidates}) == 1:
            # one id in both folders: a block copied from one to the other
            raise KiokuError(f"{len(candidates)} memories match {id or query!r}: {listed}; choose the folder "
                             "with `--scope user` or `--scope project`; nothing was changed")
        raise KiokuError(f"{len(candidates)} memories match {id or query!r}: {listed}; "
                         "choose one with `kioku forget --id ID`; nothing was changed")
    md, name, entry = candidates[0]
    with md.lock():
        topics = md.load_topics()
        doc = md.load_index(topics)
        topic = topics.get(name)
        current = [e for e in (topic.entries if topic else []) if e.id == entry.id and e.status == "active"]
        if not topic or not current:
            raise KiokuError("that memory changed while forgetting it; nothing was changed, try again")
        md.mark_hand(doc, topics)
        summaries = {index_entry_for(e, name).summary for e in current}
        # its line from before the topic file was renamed goes with it (recall would keep showing it)
        renamed = [line for line, home in _lines_of_moved_memories(md, doc, topics)
                   if home == name and line.summary in summaries]
        archive = _archive_entries(md, name, current, "archived", "forgotten on request")
        _remove_from(topic, doc, current)
        doc.entries = [e for e in doc.entries if not any(e is line for line in renamed)]
        md.write_topic(topic)
        md.write_index(doc)
    return ForgetResult(entry.id, _shown(md, name, entry), md.scope, str(md.path / name), str(archive))


def _shown(md: MemoryDir, name: str, entry: Entry) -> str:
    return entry.summary if md.scope != "project" else screened_summary(md.base, name, entry.summary, entry.text,
                                                                         entry.id)
