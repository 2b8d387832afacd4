"""``kioku search``: find memories across every memory file, one result per memory.

``search(query, project_root=None, limit=10, archive=False, dense="auto") -> list[SearchHit]``
``search_or_nearest(...) -> (hits, nearest)``: with no hit, the nearest memories below the cut-off
``memory_index(project_root=None, archive=False, dense="auto") -> (list[Memory], HybridIndex)``

What is searched: the current entries of every topic file (a ``## heading`` with its text is
one memory; its date and type come from the entry; superseded entries only with
``archive=True``, marked ``[superseded]``), loose hand-written lines before a topic
file's first heading (one memory each) and MEMORY.md lines, in the user-wide and the project
folder (and with ``archive=True`` their ``archive/`` folders). A MEMORY.md line that points
at a topic entry (same topic file, same summary) is the same memory as that entry: the hit
is the entry's ``file:line`` and carries the index line as ``context``. An index line whose
entry cannot be found (edited by hand, topic file gone) is a memory of its own.

Ranking is ``kioku.retrieval.hybrid.HybridIndex`` (BM25 over the Kioku tokenizer, which
handles Japanese with character bigrams, fused with MiniLM similarity when the model is
installed), and only memories passing its relevance cut-off are returned, so a question
about something never remembered gets nothing. Memory vectors come from
``kioku.retrieval.vectors`` (embedded once per distinct text, kept under Kioku's state
folder). Within one process the parsed files and the built index are reused until a file's
size or modification time changes. A query the tokenizer reduces to nothing (only
stopwords, one kana) falls back to a case-insensitive substring scan.

A project memory Kioku did not write on this machine (``kioku.memory.screen``) is shown with its
provenance (``SearchHit.origin``, also appended to ``text``); one that asks the agent to act is
replaced by a line saying it was withheld (``SearchHit.withheld``), as in recall.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kioku.memory.index import INDEX_NAME, MAX_INDEX_BYTES, index_notes, redacted_index_lines, same_summary
from kioku.memory.topics import MAX_TOPIC_BYTES, fresh_id, parse_topic

_META = re.compile(r"^\s*<!--\s*kioku:.*-->\s*$")
DISPLAY_CHARS = 240


@dataclass
class SearchHit:
    file: str
    line: int
    text: str
    score: float
    scope: str = "project"
    semantic: bool = False  # matched by meaning only (no shared words above the cut-off)
    context: str = ""  # the memory's MEMORY.md line, when it has one
    context_file: str = ""
    context_line: int = 0
    origin: str = ""  # a project memory not written on this machine: who committed it ("" if git knows none)
    withheld: bool = False  # not written here and asks the agent to act: ``text`` says so instead
    date: str = ""  # the day the memory was saved (a topic entry's; "" for other lines)
    type: str = ""
    id: str = ""  # a topic entry's id, for ``kioku forget --id``

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Memory:
    """One searchable memory (key = its ``(file, line)``)."""

    key: tuple[str, int]
    text: str  # what is searched
    display: str  # what is shown
    scope: str
    type: str = ""
    topic: str = ""
    date: str = ""
    summary: str = ""  # a topic entry's summary (to match its index line)
    context: tuple[str, int, str] | None = None  # (index file, line, index line)
    current: bool = True  # False for history: a superseded, merged or archived entry
    entry_id: str = ""  # a topic entry's id ("" for other lines)
    created: str = ""  # ... and its full creation time (a repeated id's replacement is made from it)


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _read(path: Path, limit: int) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return None


def _topic_memories(path: Path, scope: str) -> list[Memory]:
    data = _read(path, MAX_TOPIC_BYTES + 1)
    if data is None:
        return []
    # a file over the limit is searched (its first 4 MB) but is not one Kioku's other commands
    # read: its entries take no part in giving repeated ids new ones, as in MemoryDir.load_topics
    oversize = len(data) > MAX_TOPIC_BYTES
    topic = parse_topic(path, data[:MAX_TOPIC_BYTES])
    name = path.name[:-3] if path.name.endswith(".md") else path.name
    out: list[Memory] = []
    first_line = (len(topic.frontmatter) + 2) if topic.frontmatter is not None else 1
    for offset, line in enumerate(topic.preamble):
        text = line.strip()
        if text and not line.startswith("# ") and not _META.match(line):
            out.append(Memory((str(path), first_line + offset), text, text[:DISPLAY_CHARS], scope, topic=name))
    for entry in topic.entries:
        body = [b for b in entry.text.splitlines() if b.strip()]
        display = entry.summary + (" — " + body[0].strip() if body and body[0].strip() != entry.summary else "")
        # the id, so that `kioku forget --id` can name it; an entry of a file over the limit has
        # none to give (no command changes that file, and its id may be another memory's)
        display = display[:220] + (" [in a file over 4 MB: not changed by Kioku]" if oversize else f" [id {entry.id}]")
        current = entry.status == "active"
        if not current:
            display = f"[{entry.status}] {display}"
        out.append(Memory((str(path), entry.line), f"{entry.summary}\n{entry.text}", display[:DISPLAY_CHARS],
                          scope, entry.type, name, entry.created[:10], entry.summary, current=current,
                          entry_id="" if oversize else entry.id, created=entry.created))
    return out


def _index_lines(path: Path) -> list[tuple[int, str, str, str, str | None]]:
    """(line number, line, type, summary, topic file or None) of each MEMORY.md entry and of
    each note written there by hand (``index.index_notes``; no topic file)."""
    data = _read(path, MAX_INDEX_BYTES)
    if data is None:
        return []
    lines = redacted_index_lines(data.decode("utf-8", errors="replace").removeprefix("\ufeff").splitlines())
    return [(number, lines[number - 1].strip(), type_, text, topic)
            for number, type_, text, topic, _entry in index_notes(lines)]


_file_cache: dict[str, tuple[tuple[int, int], object]] = {}
_folder_cache: dict[str, tuple[tuple, list[Memory]]] = {}
_cache_lock = threading.Lock()


def _cached(path: Path, parse) -> tuple[tuple[int, int] | None, object]:
    sig = _signature(path)
    key = str(path)
    with _cache_lock:
        hit = _file_cache.get(key)
    if sig is not None and hit is not None and hit[0] == sig:
        return sig, hit[1]
    value = parse(path)
    if sig is not None:
        with _cache_lock:
            _file_cache[key] = (sig, value)
    return sig, value


def _markdown_files(folder: Path) -> list[tuple[str, tuple[int, int] | None]]:
    """(path, signature) of the folder's regular ``*.md`` files (no symlinks), by name.

    One ``scandir`` and one ``stat`` per file: a warm search checks every file on each call,
    and ``glob`` + ``is_file`` + ``is_symlink`` + sorting ``Path`` objects cost about 3 ms per
    query at 100 topic files.
    """
    found: list[tuple[str, tuple[int, int] | None]] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                try:
                    st = entry.stat(follow_symlinks=False)
                    found.append((entry.name, (st.st_mtime_ns, st.st_size)))
                except OSError:
                    found.append((entry.name, None))
    found.sort()
    base = str(folder)
    return [(os.path.join(base, name), sig) for name, sig in found]


def _folder_memories(folder: Path, scope: str, signature: list) -> list[Memory]:
    try:
        files = _markdown_files(folder)
    except OSError:
        return []
    folder_signature = tuple(files)
    signature.extend(folder_signature)
    key = f"{folder}\0{scope}"
    with _cache_lock:
        hit = _folder_cache.get(key)
    if hit is not None and hit[0] == folder_signature:
        return hit[1]  # type: ignore[return-value]
    memories = _merge_folder([Path(path) for path, _sig in files], scope)
    with _cache_lock:
        _folder_cache[key] = (folder_signature, memories)
    return memories


def _merge_folder(paths: list[Path], scope: str) -> list[Memory]:
    topics: dict[str, list[Memory]] = {}
    index_entries: list = []
    index_path: Path | None = None
    for path in paths:
        if path.name == INDEX_NAME:
            _sig, index_entries = _cached(path, _index_lines)
            index_path = path
        else:
            _sig, topics[path.name] = _cached(path, lambda p: _topic_memories(p, scope))
    topics = _distinct_ids_across_files(topics)
    memories = [m for items in topics.values() for m in items]
    if index_path is None:
        return memories
    merged: dict[tuple[str, int], Memory] = {}
    # an index line belongs to a current entry; a superseded one with the same summary (the same
    # text saved again later) never takes it, so current entries are looked at first
    current_first = {name: sorted(items, key=lambda m: not m.current) for name, items in topics.items()}
    unmatched: list[tuple[int, str, str, str, str | None]] = []
    for number, line, type_, summary, topic_file in index_entries:
        target = None
        for m in current_first.get(topic_file or "", []):
            if m.summary and m.key not in merged and same_summary(summary, m.summary):
                target = m
                break
        if target is not None:
            merged[target.key] = _with_context(target, index_path, number, line)
        else:
            unmatched.append((number, line, type_, summary, topic_file))
    # A line into a topic file none of whose memories it names, where exactly one current memory
    # of that file has no line and still shares most of its wording (half of their words): its
    # entry was edited by hand after the line was written (until `kioku organize --repair`
    # rewrites it). They are one memory: the entry as it is now, with the old line shown as its
    # context, not two results with the old wording first. A line and an entry that share less
    # (an entry deleted and another added, a line pasted twice) stay apart.
    # Likewise a line into a topic file that is not there, when exactly one memory of another
    # file has its wording and no line: the file was renamed.
    lines_into: dict[str | None, list] = {}
    wording: dict[str, int] = {}
    for item in unmatched:
        lines_into.setdefault(item[4], []).append(item)
        wording[item[3]] = wording.get(item[3], 0) + 1
    for number, line, type_, summary, topic_file in unmatched:
        if topic_file in topics:
            alone = [m for m in topics[topic_file] if m.current and m.summary and m.key not in merged]
            paired = len(alone) == 1 and len(lines_into[topic_file]) == 1 and _edited(summary, alone[0].summary)
        else:
            alone = [m for items in topics.values() for m in items
                     if m.current and m.key not in merged and m.summary and same_summary(summary, m.summary)]
            paired = topic_file is not None and len(alone) == 1 and wording[summary] == 1
        if paired:
            merged[alone[0].key] = _with_context(alone[0], index_path, number, line)
        else:
            memories.append(Memory((str(index_path), number), summary, line[:DISPLAY_CHARS], scope, type_,
                                   (topic_file or "")[:-3]))
    return [merged.get(m.key, m) for m in memories]


def _edited(line_summary: str, entry_summary: str) -> bool:
    """Whether an entry's summary may be an edit of an index line's (half their words shared)."""
    from kioku.memory.textutil import jaccard, token_set

    return jaccard(token_set(line_summary), token_set(entry_summary)) >= 0.5


def _with_context(m: Memory, index_path: Path, number: int, line: str) -> Memory:
    return replace(m, context=(str(index_path), number, line))


def _distinct_ids_across_files(topics: dict[str, list[Memory]]) -> dict[str, list[Memory]]:
    """An entry whose id an earlier file already has gets the new id ``MemoryDir.load_topics``
    gives it (``topics.distinct_ids``), so that ``kioku forget --id`` names it alone."""
    taken: set[str] = set()
    out: dict[str, list[Memory]] = {}
    for name, items in topics.items():
        fixed = items
        for i, m in enumerate(items):
            if not m.entry_id:
                continue
            if m.entry_id in taken:
                new = fresh_id(m.entry_id, m.created, m.text, taken)
                if fixed is items:
                    fixed = list(items)  # the cached list of the file stays as parsed
                fixed[i] = replace(m, entry_id=new, display=m.display.replace(f"[id {m.entry_id}]", f"[id {new}]"))
            taken.add(fixed[i].entry_id)
        out[name] = fixed
    return out


def collect(project_root: Path | None = None, archive: bool = False) -> tuple[list[Memory], tuple]:
    """Every searchable memory, and a signature of the files read (changes when any file does).
    History (superseded entries in topic files) is searched only with ``archive``, like the
    archive folders, and is shown marked with its status."""
    from kioku.memory.folders import memory_dirs

    memories: list[Memory] = []
    signature: list = []
    for md in memory_dirs(project_root):
        for folder in [md.path] + ([md.archive_path] if archive else []):
            if folder.is_dir():
                found = _folder_memories(folder, md.scope, signature)
                memories.extend(found if archive else [m for m in found if m.current])
    return memories, (archive, *signature)


_index_cache: dict[tuple, object] = {}


def _index(memories: list[Memory], signature: tuple, dense: bool | str):
    """The HybridIndex over ``memories``, reused while no file changed (one per dense mode)."""
    from kioku.retrieval.hybrid import HybridIndex, Unit, dense_available
    from kioku.retrieval.vectors import default_path

    use_dense = dense is True or (dense == "auto" and dense_available())
    key = (use_dense, str(default_path()))
    with _cache_lock:
        hit = _index_cache.get(key)
    if hit is not None and hit[0] == signature:
        return hit[1]
    units = [Unit(i, m.text, m.type, m.topic, m.date) for i, m in enumerate(memories)]
    embed = None
    if use_dense:
        from kioku.retrieval.vectors import default_store

        embed = default_store().embed
    index = HybridIndex(units, dense=dense if use_dense else False, embed=embed)
    with _cache_lock:
        _index_cache[key] = (signature, index)
    return index


def memory_index(project_root: Path | None = None, archive: bool = False, dense: bool | str = "auto"):
    """(memories, HybridIndex) exactly as :func:`search` ranks them (unit ids index ``memories``)."""
    memories, signature = collect(project_root, archive)
    return memories, _index(memories, signature, dense)


def _hit(m: Memory, score: float, semantic: bool = False, screen: _Screening | None = None) -> SearchHit:
    from kioku.text.secrets import redact

    context_file, context_line, context = m.context or ("", 0, "")
    # files edited by hand can hold what a save would have refused: nothing is shown unredacted
    hit = SearchHit(m.key[0], m.key[1], redact(m.display), round(float(score), 6), m.scope, semantic,
                    redact(context), context_file, context_line, date=m.date, type=m.type, id=m.entry_id)
    return screen.apply(m, hit) if screen is not None and m.scope == "project" else hit


class _Screening:
    """``kioku.memory.screen`` for one search: a project memory not written on this machine is
    shown with its provenance, or in its place a line saying it was withheld."""

    def __init__(self, project_root: Path | None) -> None:
        from kioku.infra.paths import find_project_root
        from kioku.memory.screen import ProjectScreen

        self.screen = ProjectScreen(project_root or find_project_root())

    def apply(self, m: Memory, hit: SearchHit) -> SearchHit:
        from kioku.memory.screen import placeholder

        screen = self.screen
        if screen.exempt:
            return hit
        file = os.path.relpath(os.path.realpath(m.key[0]), screen.folder)
        if m.entry_id:
            body = m.text[len(m.summary) + 1:] if m.text.startswith(m.summary + "\n") else m.text
            verdict = screen.for_memory(file, m.key[1], m.summary, body, m.entry_id)
            verdict.end = m.key[1] + 2 + body.count("\n")  # heading, comment line, text
        else:
            verdict = screen.for_note(file, m.key[1], m.text)
        if verdict.withheld:
            return replace(hit, text=placeholder(verdict), context="", withheld=True)
        label = screen.label(verdict) if verdict.foreign else ""
        return replace(hit, text=f"{hit.text} ({label})", origin=label) if label else hit


def search(query: str, project_root: Path | None = None, limit: int = 10, archive: bool = False,
           dense: bool | str = "auto") -> list[SearchHit]:
    """The memories that pass the relevance cut-off, best first (at most ``limit``)."""
    return search_or_nearest(query, project_root, limit, archive, dense, nearest=0)[0]


def search_or_nearest(query: str, project_root: Path | None = None, limit: int = 10, archive: bool = False,
                      dense: bool | str = "auto", nearest: int = 3) -> tuple[list[SearchHit], list[SearchHit]]:
    """(hits, nearest): the hits of :func:`search` and, only when there are none, the ``nearest``
    best-ranked memories below the cut-off, so a caller can show them apart as "no close match"
    (a question the cut-off got wrong still shows its memory; an unrelated one shows only
    memories marked as not matching)."""
    from kioku.retrieval.text import tokenize

    query = query.strip()
    if not query or limit <= 0:
        return [], []
    memories, signature = collect(project_root, archive)
    if not memories:
        return [], []
    screen = _Screening(project_root)
    try:
        if not tokenize(query):
            needle = query.lower()
            return [_hit(m, 1.0, screen=screen) for m in memories if needle in m.text.lower()][:limit], []
        index = _index(memories, signature, dense)
        hits: list[SearchHit] = []
        below: list[SearchHit] = []
        for scored in index.ranked(query, max(limit * 5, 50)):
            semantic = scored.coverage < index.config.min_coverage
            if scored.relevant:
                hits.append(_hit(memories[scored.id], scored.score, semantic, screen))
                if len(hits) >= limit:
                    break
            elif len(below) < nearest:
                below.append(_hit(memories[scored.id], scored.score, semantic, screen))
        return hits, ([] if hits else below)
    finally:
        screen.screen.save()
