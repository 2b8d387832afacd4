"""Keeping memory tidy: ``kioku organize`` (report, propose, ``--apply``).

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

``kioku forget`` lives in :mod:`kioku.memory.forget`, the archive moves in :mod:`kioku.memory.archive`,
the index repair in :mod:`kioku.memory.repair`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kioku.infra.errors import KiokuError
from kioku.memory.archive import archive_entries, remove_from
from kioku.memory.contradict import assess, relation, stated_values
from kioku.memory.guard import MAX_CHARS
from kioku.memory.index import MAX_LINES, WARN_LINES, IndexDoc, format_entry
from kioku.memory.repair import missing_topic_notices, repair_index, repeated_id_lines, written_ids
from kioku.memory.screen import screened_summary
from kioku.memory.store import MemoryDir, index_entry_for
from kioku.infra.clock import current_date, now_iso
from kioku.memory.textutil import jaccard, parse_date, time_key, token_set
from kioku.memory.topics import Entry, TopicFile, unique_id
from kioku.memory.trusted import carry_over
from kioku.memory.wanted import want_enrichment


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
            archive_entries(md, topic.name, entries, "merged", f"merged into {new_id}")
            remove_from(topic, doc, entries)
            topic.entries.append(new)
            doc.entries.append(index_entry_for(new, topic.name))
            shown = summary if md.scope != "project" else screened_summary(md.base, topic.name, summary, text, new_id)
            done.append(f"merged {len(entries)} entries of {topic.name} into {new_id}: {shown}")
            want_enrichment(md, new_id)  # a new memory: the worker writes its search enrichment
        else:
            archive_entries(md, topic.name, entries, "archived", proposal.reason)
            remove_from(topic, doc, entries)
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
                                  for line in repeated_id_lines(topics))
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
                    report.applied.extend(repeated_id_lines(topics))
                    for topic in topics.values():
                        if topic.broken or written_ids(topic):
                            md.write_topic(topic)
                    report.applied.extend(repair_index(md, doc, topics))
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
        report.notices.extend(missing_topic_notices(md, doc, topics))
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
