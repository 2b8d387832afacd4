"""One memory folder on disk: its index, topic files, archive and lock (standard library only).

``MemoryDir(path, scope)`` is used by every write (remember, organize, forget) *inside*
``with md.lock():`` - an ``fcntl`` lock on ``<dir>/.lock`` - and every file goes out through
``kioku.infra.fsutil.atomic_write_text`` (temp file + fsync + rename, 0600; folders 0700).
Topic files are the source of truth and are written first; MEMORY.md is derived, so a crash
between the two writes leaves an index that ``rebuild_index`` (or the next write) repairs.

Symbolic links are never followed: if ``.agents``, the memory folder, its archive, MEMORY.md
or a topic file being written is a link, every read and write refuses with one line naming
the link (``SymlinkRefused``) and nothing is written. Temporary files a killed writer left
behind are deleted at the next write, under the lock.

Damaged files are never silently replaced: the original bytes are first copied next to the
file as ``<name>.corrupt-<UTC time>`` (0600), then the index is rebuilt from the topic files
or the topic file is rewritten with fresh frontmatter and its body kept (a broken
frontmatter block survives only in the copy). Only damaged files get such a copy.

The index limit: Kioku's own entries (index lines with a memory behind them) come before
lines written by hand. A write that would take MEMORY.md past ``MAX_LINES`` first moves
the hand-written lines, verbatim, to ``MEMORY.md.hand-written-<UTC time>`` (0600, beside the
index; written before the index, so a crash leaves them in both places, never in none) and
says so in a notice; should Kioku's entries alone still not fit, the lowest in
``TYPE_PRIORITY`` order (the oldest first within a type) lose their index line and stay in
their topic files. Dates are compared as times (``textutil.time_key``), not as strings.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kioku.infra import fsutil
from kioku.infra.errors import KiokuError
from kioku.memory.index import (
    INDEX_NAME,
    MAX_LINES,
    MOVED_PREFIX,
    TYPE_PRIORITY,
    IndexDoc,
    IndexEntry,
    IndexUnreadable,
    format_entry,
    parse_index,
    read_index_text,
)
from kioku.infra.clock import now_iso
from kioku.memory.textutil import time_key
from kioku.memory.topics import (
    Entry,
    TopicFile,
    TopicFileError,
    distinct_ids,
    parse_topic,
    read_topic,
    read_topic_bytes,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs the hook ~3 ms of start-up
    from typing import Callable

ARCHIVE_DIR = "archive"
LOCK_NAME = ".lock"
LOCK_TIMEOUT = 30.0
GITIGNORE_NAME = ".gitignore"
# The folder is meant to be committed; its lock file and a killed writer's temp files are not.
GITIGNORE_TEXT = (
    "# Written by Kioku: the memory files here are meant to be committed, its lock file,\n"
    "# unfinished temporary files and the copies a repair keeps of files it rewrote are not.\n"
    f"/{LOCK_NAME}\n"
    "/.*.tmp\n"
    f"/{ARCHIVE_DIR}/.*.tmp\n"
    "/*.corrupt-*\n"
    f"/{ARCHIVE_DIR}/*.corrupt-*\n"
)


def index_entry_for(entry: Entry, topic_name: str) -> IndexEntry:
    return format_entry(entry.type, entry.summary, topic_name)


class MemoryDir:
    def __init__(self, path: Path, scope: str) -> None:
        self.path = path
        self.scope = scope
        self.notices: list[str] = []  # one-line messages about repairs, for the CLI to show
        self.skipped: list[Path] = []  # topic files load_topics(skip=...) left unparsed
        self.skipped_data: dict[str, bytes] = {}  # their bytes, by file name (see mark_hand)

    @property
    def index_path(self) -> Path:
        return self.path / INDEX_NAME

    @property
    def archive_path(self) -> Path:
        return self.path / ARCHIVE_DIR

    @property
    def base(self) -> Path:
        """The folder that holds ``.agents/memory`` (project root or home): links below it
        are refused, links above it are the user's business."""
        return self.path.parent.parent

    def check_links(self, *files: Path) -> None:
        """SymlinkRefused if ``.agents``, the memory folder, its archive or one of ``files``
        is a symbolic link."""
        for path in (self.path, self.index_path, self.archive_path, *files):
            fsutil.refuse_symlink(self.base, path)

    def write_gitignore(self) -> None:
        """Add ``.gitignore`` (lock and temp files) to a folder that has none. Only a folder's
        first locked write calls it, so a user who deletes the file keeps it deleted."""
        path = self.path / GITIGNORE_NAME
        fsutil.refuse_symlink(self.base, path)
        if not os.path.lexists(path):
            fsutil.atomic_write_text(path, GITIGNORE_TEXT)

    def lock(self) -> FolderLock:
        """``with md.lock():`` holds the folder's lock (KiokuError when it stays busy)."""
        return FolderLock(self)

    # -- reading ---------------------------------------------------------------------------

    def topic_paths(self, archive: bool = False) -> list[Path]:
        folder = self.archive_path if archive else self.path
        self.check_links()
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.glob("*.md") if p.name != INDEX_NAME and p.is_file() and not p.is_symlink())

    def ignored_files(self, archive: bool = False) -> list[tuple[Path, str]]:
        """``*.md`` files ``topic_paths`` leaves out, with why: symbolic links (never followed)
        and anything that is not a regular file (a FIFO is never opened)."""
        folder = self.archive_path if archive else self.path
        self.check_links()
        if not folder.is_dir():
            return []
        out: list[tuple[Path, str]] = []
        for path in sorted(folder.glob("*.md")):
            if path.name == INDEX_NAME:
                continue
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                try:
                    target = os.readlink(path)
                except OSError:
                    target = "?"
                out.append((path, f"it is a symbolic link (to {target}); Kioku never follows links"))
            elif not stat.S_ISREG(mode):
                out.append((path, "it is not a regular file"))
        return out

    def load_topics(self, archive: bool = False, skip: Callable[[bytes], bool] | None = None,
                    keep: str = "") -> dict[str, TopicFile]:
        """Parsed topic files by name. ``skip(data)`` True leaves a file unparsed (listed in
        ``skipped``; the save path uses it for files that cannot hold a duplicate or a
        contradiction of the new memory); the file named ``keep`` is always parsed."""
        topics: dict[str, TopicFile] = {}
        for path in self.topic_paths(archive):
            self._load_one(topics, path, skip if path.name != keep else None)
        taken: set[str] = set()
        for topic in topics.values():  # an id repeated in a later file gets a new one there
            topic.renumbered += distinct_ids(topic.entries, taken)
        return topics

    def _load_one(self, topics: dict[str, TopicFile], path: Path, skip: Callable[[bytes], bool] | None) -> None:
        try:
            if skip is None:
                topics[path.name] = read_topic(path)
                return
            data = read_topic_bytes(path)
            if skip(data):
                self.skipped.append(path)
                self.skipped_data[path.name] = data
            else:
                topics[path.name] = parse_topic(path, data)
        except TopicFileError as exc:
            self.notices.append(f"skipped: {exc}")
        except OSError as exc:
            self.notices.append(f"skipped {path.name}: {exc.strerror or exc}")

    def _complete(self, topics: dict[str, TopicFile]) -> dict[str, TopicFile]:
        """Parse the files an earlier ``load_topics(skip=...)`` left out (index rebuilds need all)."""
        skipped, self.skipped = self.skipped, []
        self.skipped_data = {}
        for path in skipped:
            self._load_one(topics, path, None)
        return topics

    def load_index(self, topics: dict[str, TopicFile] | None = None, repair: bool = True) -> IndexDoc:
        """The parsed index. Unreadable or missing (with topic files present) → rebuilt."""
        self.check_links()
        try:
            text = read_index_text(self.index_path)
        except IndexUnreadable as exc:
            if not repair:
                raise KiokuError(f"{self.index_path}: {exc}; run `kioku organize --repair`") from None
            backup = self.backup(self.index_path)
            self.notices.append(f"{INDEX_NAME} was unreadable ({exc}); rebuilt from topic files, "
                                f"original kept as {backup.name}")
            return self.rebuild_index(self._complete(topics) if topics is not None else self.load_topics())
        if text is None or not text.strip():  # missing, or emptied: the topic files still hold every memory
            topics = self._complete(topics) if topics is not None else self.load_topics()
            return self.rebuild_index(topics) if topics else IndexDoc()
        doc = parse_index(text)
        if doc.line_count() >= MAX_LINES:
            # At the limit, only Kioku's own entries count against it (``entry_line_count``),
            # so which lines have a memory behind them matters.
            self.mark_hand(doc, topics if topics is not None else self.load_topics())
        return doc

    def mark_hand(self, doc: IndexDoc, topics: dict[str, TopicFile]) -> None:
        """Mark the entry-shaped index lines no active memory is behind as written by hand
        (``IndexEntry.hand``). Lines pointing to a topic file that exists but could not be
        read are left as Kioku's: what is behind them is unknown."""
        # A file the save path left unparsed: an entry's heading holds its summary, so a line
        # whose summary is in the file's bytes is Kioku's. One whose summary is not (it may be
        # a hand-written line, or a heading the summary rewrote, such as "→" as "->") has its
        # file parsed, so that only the full comparison calls a line hand-written.
        doubtful = {entry.topic for entry in doc.entries if entry.topic in self.skipped_data
                    and entry.summary.rstrip("…").encode("utf-8") not in self.skipped_data[entry.topic]}
        if doubtful:
            topics = dict(topics)
            for name in doubtful:
                self._load_one(topics, self.path / name, None)
        backed = {(name, index_entry_for(e, name).summary) for name, e in self.active_entries(topics)}
        for entry in doc.entries:
            if entry.topic in self.skipped_data and entry.topic not in doubtful:
                entry.hand = False  # its summary is in the file (the safe side: the line is kept)
                continue
            entry.hand = (entry.topic, entry.summary) not in backed and (
                entry.topic in topics or not os.path.lexists(self.path / entry.topic))
        doc.hand_marked = True

    def active_entries(self, topics: dict[str, TopicFile]) -> list[tuple[str, Entry]]:
        return [(name, e) for name, topic in topics.items() for e in topic.active()]

    # -- writing (caller holds the lock) --------------------------------------------------------

    def backup(self, path: Path) -> Path:
        stamp = now_iso(millis=True).replace(":", "").replace("-", "").replace(".", "")
        target = path.with_name(f"{path.name}.corrupt-{stamp}")
        self.check_links(path, target)
        if not stat.S_ISREG(os.lstat(path).st_mode):
            os.replace(path, target)  # a FIFO or a device is moved aside whole, never read
        else:
            fsutil.atomic_write_bytes(target, path.read_bytes())
        return target

    def write_topic(self, topic: TopicFile) -> None:
        if topic.broken and topic.path.exists():
            backup = self.backup(topic.path)
            self.notices.append(f"{topic.name} was damaged ({topic.broken}); repaired, original kept as {backup.name}")
            topic.broken = ""
        self.check_links(topic.path)
        fsutil.atomic_write_text(topic.path, topic.render())

    def write_index(self, doc: IndexDoc) -> None:
        """Write MEMORY.md, never past MAX_LINES lines.

        Hand-written lines are kept while they fit. If the index would pass the limit, they
        are moved out to ``MEMORY.md.hand-written-<time>`` first (never deleted) and the
        index keeps Kioku's entries; should those alone still not fit, the ones lowest in
        ``TYPE_PRIORITY`` order lose their line (they stay in their topic files, and
        ``kioku organize`` reports them as not indexed). ``doc`` is changed to what was written.
        """
        if doc.line_count() > MAX_LINES:
            before = doc.line_count()
            if not doc.hand_marked:  # the save path marked them when it loaded the full index
                self.mark_hand(doc, self._topics_quietly())
            moved = doc.hand_written()
            if moved:
                stamp = now_iso(millis=True)
                target = self.path / (MOVED_PREFIX + stamp.replace(":", "").replace("-", "").replace(".", ""))
                self.check_links(target)
                fsutil.atomic_write_text(target, doc.render_moved(stamp))
                doc.entries = [e for e in doc.entries if not e.hand]
                doc.extras, doc.other_sections = {}, []
            dropped = _fit(doc)
            said = f"{INDEX_NAME} would have had {before} lines (limit {MAX_LINES})"
            if moved:
                said += (f"; {moved} hand-written line{'s' if moved != 1 else ''} (not Kioku entries) moved to "
                         f"{target.name} beside it, Kioku's entries kept")
            if dropped:
                said += (f"; {dropped} of Kioku's entries left out of the index by priority (feedback first), "
                         "still saved in their topic files; run `kioku organize`")
            self.notices.append(said)
        self.check_links()
        fsutil.atomic_write_text(self.index_path, doc.render())

    def _topics_quietly(self) -> dict[str, TopicFile]:
        """Every topic file as it is on disk now, without repeating notices about skipped files."""
        notices, skipped = list(self.notices), list(self.skipped)
        try:
            return self.load_topics()
        finally:
            self.notices, self.skipped = notices, skipped

    def rebuild_index(self, topics: dict[str, TopicFile], keep: IndexDoc | None = None) -> IndexDoc:
        """Index of all active entries (oldest first) up to MAX_LINES; ``keep`` supplies the
        hand-written lines (extras and other sections; ``write_index`` moves them out should
        they no longer fit). Entries that do not fit are left out by ``TYPE_PRIORITY``."""
        doc = IndexDoc()
        entries = sorted(self.active_entries(topics), key=lambda item: time_key(item[1].created))
        doc.entries = [index_entry_for(entry, name) for name, entry in entries]
        _fit(doc)
        if keep is not None:
            doc.extras, doc.other_sections = keep.extras, keep.other_sections
        return doc

    def stale_lines(self, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[IndexEntry]:
        """Index lines of memories that were superseded, forgotten or archived: a forget,
        organize or save killed between writing the topic files and the index leaves them
        (they are Kioku's lines, not hand-written ones, and recall must not show them)."""
        backed = {(name, index_entry_for(e, name).summary) for name, e in self.active_entries(topics)}
        loose = [e for e in doc.entries if (e.topic, e.summary) not in backed]
        if not loose:
            return []
        gone = {(name, index_entry_for(e, name).summary)
                for name, topic in topics.items() for e in topic.entries if e.status != "active"}
        notices, skipped = list(self.notices), list(self.skipped)
        try:
            archived = self.load_topics(archive=True)
        finally:
            self.notices, self.skipped = notices, skipped
        gone |= {(name, index_entry_for(e, name).summary) for name, topic in archived.items() for e in topic.entries}
        return [e for e in loose if (e.topic, e.summary) in gone]

    def drop_stale_lines(self, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[IndexEntry]:
        """Remove :meth:`stale_lines` from ``doc`` (the caller writes it); returns them."""
        stale = self.stale_lines(doc, topics)
        if stale:
            dropped = {id(e) for e in stale}
            doc.entries = [e for e in doc.entries if id(e) not in dropped]
        return stale

    def unindexed(self, doc: IndexDoc, topics: dict[str, TopicFile]) -> list[tuple[str, Entry]]:
        present = {(e.topic, e.summary) for e in doc.entries}
        return [(name, e) for name, e in self.active_entries(topics)
                if (name, index_entry_for(e, name).summary) not in present]


def _fit(doc: IndexDoc) -> int:
    """Drop the entries that do not fit MAX_LINES (with ``doc``'s other lines): the lowest in
    ``TYPE_PRIORITY`` first, within a type the earliest in the index (older). Returns how many."""
    empty = IndexDoc()
    empty.extras, empty.other_sections = doc.extras, doc.other_sections
    room = MAX_LINES - empty.line_count()
    if len(doc.entries) <= room:
        return 0
    rank = {type_: n for n, type_ in enumerate(TYPE_PRIORITY)}
    order = sorted(range(len(doc.entries)),
                   key=lambda i: (rank.get(doc.entries[i].type, len(rank)), -i))
    kept = set(order[:max(room, 0)])
    dropped = len(doc.entries) - len(kept)
    doc.entries = [e for i, e in enumerate(doc.entries) if i in kept]
    return dropped


class FolderLock:
    """The memory folder's lock: links checked before and under it, leftover temp files removed.

    A class rather than a ``contextlib`` generator: ``contextlib`` is an import a save (a hook)
    would pay for nothing else.
    """

    __slots__ = ("md", "held")

    def __init__(self, md: MemoryDir) -> None:
        self.md = md
        self.held: fsutil.exclusive_lock | None = None

    def __enter__(self) -> None:
        md = self.md
        lock_path = md.path / LOCK_NAME
        md.check_links(lock_path)
        try:
            fsutil.ensure_private_dir(md.path)
        except (FileExistsError, NotADirectoryError):
            taken = next((p for p in (md.path, *md.path.parents) if p.exists() and not p.is_dir()), md.path)
            raise KiokuError(f"{taken} is a file where the memory folder should be: move it aside; "
                             "nothing was saved") from None
        first_use = not lock_path.exists()
        held = fsutil.exclusive_lock(lock_path, timeout=LOCK_TIMEOUT)
        try:
            held.__enter__()
        except fsutil.LockTimeout as exc:
            raise KiokuError(f"memory folder is busy ({exc}); try again") from None
        self.held = held
        try:
            md.check_links()  # again under the lock: nothing can swap a link in before it
            fsutil.remove_orphan_temp_files(md.path)  # left by a writer killed mid-write
            if md.archive_path.is_dir():
                fsutil.remove_orphan_temp_files(md.archive_path)  # a killed forget or organize
            if first_use:
                md.write_gitignore()
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, exc_type, exc, tb) -> bool:
        held, self.held = self.held, None
        if held is not None:
            held.__exit__(exc_type, exc, tb)
        if exc_type is not None and issubclass(exc_type, fsutil.LockTimeout):
            raise KiokuError(f"memory folder is busy ({exc}); try again") from None
        return False
