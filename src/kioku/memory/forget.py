"""``kioku forget``: archive exactly one memory, by id or by a query that matches only it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kioku.infra.errors import KiokuError
from kioku.memory.archive import archive_entries, remove_from
from kioku.memory.folders import memory_dirs
from kioku.memory.index import IndexEntry
from kioku.memory.repair import archived_with_id, lines_of_moved_memories
from kioku.memory.screen import screened_summary
from kioku.memory.store import MemoryDir, index_entry_for
from kioku.memory.textutil import normalize, token_set
from kioku.memory.topics import Entry


@dataclass
class ForgetResult:
    id: str
    summary: str
    scope: str
    topic_file: str
    archive_file: str


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

    for md in memory_dirs(project_root):
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
    for md in memory_dirs(project_root):
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
                    or (id and archived_with_id(md, e, id))]
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
        renamed = [line for line, home in lines_of_moved_memories(md, doc, topics)
                   if home == name and line.summary in summaries]
        archive = archive_entries(md, name, current, "archived", "forgotten on request")
        remove_from(topic, doc, current)
        doc.entries = [e for e in doc.entries if not any(e is line for line in renamed)]
        md.write_topic(topic)
        md.write_index(doc)
    return ForgetResult(entry.id, _shown(md, name, entry), md.scope, str(md.path / name), str(archive))


def _shown(md: MemoryDir, name: str, entry: Entry) -> str:
    return entry.summary if md.scope != "project" else screened_summary(md.base, name, entry.summary, entry.text,
                                                                         entry.id)
