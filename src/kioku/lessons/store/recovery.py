"""Recovery of the agent-memory store: first-use check, rebuild from the journal, crash mending.

- :func:`ensure_store` runs once per store folder per process, before the first read or write:
  if the journal says the store held data but Chroma's files (or the whole folder) are missing,
  cannot be opened, hold no Kioku collection at all, or are behind the journal (an older copy of
  the folder put back), the store is rebuilt from its journal (:func:`recover`) with one warning
  on stderr. A file where the folder belongs is moved aside first. A full disk is not damage:
  nothing is moved or rebuilt while the disk holding the store is full.
- :func:`recover` / :func:`rebuild` move Chroma's files aside (``<folder>.broken-<time>`` or
  ``.replaced-<time>``, never deleted) and replay archives + journal into fresh collections.
- :func:`mend_after_crash`: entries were pending (a process stopped between journaling and
  applying them); the collections they touched are checked for records that vector search no
  longer reaches, and those are indexed again (``kioku.lessons.store.migration.reindex_locked``).
- :func:`records_beyond_journal`, :func:`ids_unknown_to_journal`, :func:`journal_from_store`:
  the store against a journal that was itself damaged or deleted.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kioku.infra import clock, disk
from kioku.infra.gitignore import ignore_folder, make_data_folder
from kioku.infra.errors import KiokuError
from kioku.lessons.store import apply as store_apply
from kioku.lessons.store import chroma_process, migration, reachability
from kioku.lessons.store.journal import LEGACY_DIR_NAME

if TYPE_CHECKING:  # pragma: no cover
    from kioku.lessons.store.client import AgentStore

log = logging.getLogger("kioku.lessons.store")
_CHECKED: set[str] = set()  # local stores whose health was checked in this process
_ASIDE_COUNT = itertools.count()


def was_checked(store: "AgentStore") -> bool:
    return str(store.chroma_dir) in _CHECKED


def mark_checked(store: "AgentStore") -> None:
    _CHECKED.add(str(store.chroma_dir))


def forget_checks() -> None:
    """Check every store again on its next use (tests that swap homes in one process)."""
    _CHECKED.clear()


def aside_stamp() -> str:
    """The UTC time in a folder name set aside, with the process id and a per-process count so
    that two folders set aside in the same second never share a name ("20261201T170512Z-4242-0")."""
    return f"{clock.compact_z()}-{os.getpid()}-{next(_ASIDE_COUNT)}"


def ensure_store(store: "AgentStore") -> None:
    """The first-use check (module docstring)."""
    if store.server or was_checked(store):
        return
    move_aside_if_not_a_folder(store)  # raises (every time) for a link whose target is gone
    _ignore_folders_of_earlier_versions(store)
    if not store.journal.has_history():
        mark_checked(store)
        return
    if disk.is_full(store.chroma_dir):
        # a store that cannot be written looks broken to Chroma; checked again once there is room
        store.last_warning = disk.full_message(store.chroma_dir, "the agent-memory store is read as it is")
        return
    mark_checked(store)
    problem = _problem(store)
    if not problem:
        return
    try:
        store._embed(["probe"])  # replaying needs the model: without it, leave the files alone
        recover(store, problem)
    except Exception as exc:  # noqa: BLE001 - reads fall back to the lexical index instead
        store.last_warning = (f"the agent-memory store in {store.chroma_dir} is {problem} and could not be "
                              f"rebuilt now ({type(exc).__name__}); run `kioku store rebuild`")
        log.info("kioku: %s", store.last_warning)


def _ignore_folders_of_earlier_versions(store: "AgentStore") -> None:
    """Folders an earlier version made have no ``.gitignore``: write it once (the journal state
    remembers that it did, so a file removed on purpose is not written again)."""
    if not store.journal.dir.is_dir() or store.journal.state().get("gitignore_written"):
        return
    try:
        for folder in (store.chroma_dir, store.journal.dir):
            if folder.is_dir() and not folder.is_symlink():
                ignore_folder(folder)
        store.journal.set_state(gitignore_written=True)
    except OSError:
        pass  # a read-only or full disk: tried again on the next use


def _problem(store: "AgentStore") -> str | None:
    """What is wrong with a store whose journal holds history, None when nothing is."""
    if not (store.chroma_dir / "chroma.sqlite3").exists():
        return "missing"
    try:
        names = [c.name for c in store._conn().client.list_collections()]
    except Exception as exc:  # noqa: BLE001 - any failure to open is what we recover from
        if "locked" in str(exc) or disk.is_full_error(exc) or isinstance(exc, chroma_process.ChromaTimeout):
            return None  # another process is opening it, or the disk is full: not damage
        return f"unreadable ({type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''})"
    if not any(n.startswith("agent_") for n in names) and store.journal.live_counts():
        return "empty although its journal holds records"
    marker = store.journal.store_marker()
    if marker is None or marker >= store.journal.applied_seq():
        return None
    problem = "behind its journal (an older copy of the folder was put back?)"
    try:
        unknown = ids_unknown_to_journal(store)
    except Exception:  # noqa: BLE001 - cannot tell: rebuilding is the safe side
        unknown = 0
    if unknown:
        # it holds records the journal never wrote (its journal was moved or is an older copy):
        # a rebuild would drop them, so it is left alone. (Records the journal deleted since are
        # no reason: the rebuild is right to drop them.)
        store.last_warning = (f"the agent-memory store in {store.chroma_dir} is {problem}, but it holds "
                              f"{unknown} record(s) its journal never wrote, so it was not rebuilt; "
                              "run `kioku doctor`")
        log.warning("kioku: %s", store.last_warning)
        return None
    return problem


def move_aside_if_not_a_folder(store: "AgentStore") -> None:
    """A file (or a link to one) where the Chroma folder belongs is moved aside to
    ``<chroma_dir>.broken-<time>``, with one warning: the store's lock lives in the folder,
    so no write could be journaled, and the journal rebuilds the store in a new folder."""
    if store.given_dir.is_symlink() and not store.chroma_dir.is_dir():
        # the user's link (to another disk, say) whose target is missing: never moved and
        # never filled with a new, empty store under the mount point; the target may come back
        raise KiokuError(f"{store.given_dir} is a link to {os.readlink(store.given_dir)}, which is not a folder "
                         "(an unmounted volume?); make it reachable again or remove the link")
    try:
        mode = os.stat(store.chroma_dir).st_mode
    except FileNotFoundError:
        if not os.path.islink(store.chroma_dir):
            return
        mode = 0  # a dangling link
    except OSError:
        return
    if stat.S_ISDIR(mode):
        return
    aside = store.chroma_dir.with_name(f"{store.chroma_dir.name}.broken-{aside_stamp()}")
    try:
        os.rename(store.chroma_dir, aside)
    except FileNotFoundError:
        return  # another process moved it first
    message = (f"{store.chroma_dir} was not a folder; moved it to {aside}"
               + ("; the store is rebuilt from its journal" if store.journal.has_history() else ""))
    store.last_warning = message
    print(f"kioku: warning: {message}", file=sys.stderr)


def move_chroma_files_aside(store: "AgentStore", label: str = "broken") -> Path | None:
    """Move a store's Chroma files next to the folder, to ``<folder>.<label>-<time>`` (returned;
    None when there was nothing to move): "broken" for a corrupt store, "replaced" for a rebuild
    asked for; keep the lock, lexical index and digests (and an in-folder journal of an earlier
    version, which the next open moves out)."""
    aside = store.chroma_dir.with_name(f"{store.chroma_dir.name}.{label}-{aside_stamp()}")
    moved = False
    keep = {LEGACY_DIR_NAME, store.journal.lock_path.name, "kioku_lexical.sqlite3", "digests", ".gitignore"}
    for child in list(store.chroma_dir.iterdir()):
        if child.name not in keep and not child.name.startswith("kioku_lexical"):
            if not moved:
                make_data_folder(aside)
            child.rename(aside / child.name)
            moved = True
    return aside if moved else None


def replay_all(store: "AgentStore", conn: Any) -> int:
    """Drop every collection the journal names, replay archives + journal (lock held)."""
    disk.ensure_room(store.chroma_dir, disk.chroma_reserve(), "the store was not rebuilt")
    entries = list(store.journal.all_entries())
    names: set[str] = set()
    for e in entries:
        names.update(n for n in ([e.get("collection")] + list(e.get("collections", [])) +
                                 [p[1] for p in e.get("pairs", [])]) if n)
    lex = store._lexical()
    for name in names:
        store_apply.drop_collection(conn, lex, name)
    for e in entries:
        store_apply.apply_entry(store, conn, e)
    last = int(entries[-1]["seq"]) if entries else store.journal.applied_seq()
    store.journal.set_applied(max(last, store.journal.applied_seq()))
    conn.seen_seq = store.journal.applied_seq()
    return len(entries)


def recover(store: "AgentStore", problem: str = "rebuilt on request") -> tuple[int, Path | None]:
    """Move Chroma's files aside and replay the whole journal into a new store.

    Returns (entries replayed, folder the old files were moved to or None). Prints one
    warning line to stderr unless ``problem`` is an explicit request."""
    disk.ensure_room(store.chroma_dir, disk.chroma_reserve(), "the store was not rebuilt")
    store._drop_conn()
    chroma_process.forget_path(store.chroma_dir)
    with store.journal.lock(timeout=300):
        if problem == "missing" and (store.chroma_dir / "chroma.sqlite3").exists():
            mark_checked(store)
            return 0, None  # another process rebuilt it while we waited for the lock
        aside = move_chroma_files_aside(store, "replaced" if problem == "rebuilt on request" else "broken")
        chroma_process.forget_path(store.chroma_dir)
        replayed = replay_all(store, store._conn())
    mark_checked(store)
    store._synced = True
    rebuild_digests(store)
    if problem != "rebuilt on request":
        kept = f"; the damaged files were moved to {aside}" if aside else ""
        message = (f"the agent-memory store in {store.chroma_dir} was {problem}; rebuilt it from its "
                   f"journal ({replayed} entries){kept}")
        store.last_warning = message  # one warning: printed here, not logged a second time
        print(f"kioku: warning: {message}", file=sys.stderr)
    return replayed, aside


def rebuild_digests(store: "AgentStore", agents: set[str] | None = None) -> None:
    """Run the store's :attr:`~kioku.lessons.store.client.AgentStore.digests_stale` callback (the
    owner rebuilds the hooks' digests of ``agents``, all when None); a failure leaves them to the
    next refresh."""
    if store.digests_stale is None:
        return
    try:
        store.digests_stale(store, agents)
    except Exception as exc:  # noqa: BLE001 - the store itself is fine; digests are derived
        log.info("kioku: digests not rebuilt: %s", exc)


def lesson_agents(entry: dict) -> set[str]:
    """The agents whose lessons (improvements collection) a journal entry changes."""
    op = entry.get("op")
    if op in ("upsert", "update", "delete") and entry.get("kind") == "improvements" and entry.get("agent"):
        return {str(entry["agent"])}
    if op == "drop" and entry.get("agent"):
        return {str(entry["agent"])}
    if op == "copy" and entry.get("dst_agent"):
        return {str(entry["dst_agent"])}
    return set()


def rebuild(store: "AgentStore", reset: bool = False) -> int:
    """Drop every collection named in the journal and replay archives + journal.

    ``reset=True`` first moves Chroma's own files (a corrupt store) aside into
    ``<chroma_dir>.broken-<time>`` next to the folder, then replays into a new store.
    """
    with store.journal.lock(timeout=300):
        if reset and not store.server:
            store._drop_conn()
            move_chroma_files_aside(store)
            chroma_process.forget_path(store.chroma_dir)
        return replay_all(store, store._conn())


def mend_after_crash(store: "AgentStore", names: set[str]) -> None:
    """Entries were pending: a process stopped between journaling and applying them (or Chroma
    was unavailable then). A process killed while Chroma was writing can also leave records that
    vector search no longer reaches, so the collections those entries touched are checked and
    mended; a failure is logged, never raised."""
    try:
        mended = migration.reindex_locked(store, names)
    except Exception as exc:  # noqa: BLE001 - the check is a repair, not part of the write
        log.info("kioku: vector index not checked after pending writes: %s", exc)
        return
    _checked, count, lost = reachability.totals(mended)
    if count:
        store._warn(f"{count} agent-memory record(s) that vector search could not reach were indexed again")
    if lost:
        store._warn(f"{lost} agent-memory record(s) still cannot be reached by vector search; "
                    "`kioku store rebuild` replays the journal into new collections")


def ids_unknown_to_journal(store: "AgentStore") -> int:
    """How many records the store holds under ids its journal never wrote."""
    written = store.journal.written_ids()
    conn = store._conn()
    unknown = 0
    for listed in conn.client.list_collections():
        found = store._collection(conn, listed.name) if listed.name.startswith("agent_") else None
        if found is not None:
            ids = found.get(include=[])["ids"]
            unknown += len(set(ids) - written.get(listed.name, set()))
    return unknown


def records_beyond_journal(store: "AgentStore") -> dict[str, int]:
    """Collections holding more records than replaying the journal gives, with how many more:
    what a rebuild from the journal would lose (its journal was damaged or deleted).

    Counted under the write lock, after applying what is pending: a write landing between reading
    the journal and reading the store (or a journaled delete not applied yet) would otherwise
    look like a record the journal lacks, and ``kioku store rebuild`` would refuse and advise writing
    the journal anew from the store."""
    if store.server:
        expected, counts = store.journal.live_counts(), store.collection_counts()
    else:
        if not store.check():  # the first-use check (it may rebuild, under the lock) runs before we take it
            return {}
        with store.journal.lock():
            try:
                store._sync_locked()
            except Exception:  # noqa: BLE001 - a broken store is counted (or fails) below
                pass
            with contextlib.suppress(Exception):
                store._conn()  # current for the applied sequence: the read below needs no reader lock
            expected, counts = store.journal.live_counts(), store.collection_counts()
    return {name: n - expected.get(name, 0) for name, n in counts.items() if n > expected.get(name, 0)}


def journal_from_store(store: "AgentStore") -> int:
    """Write the journal anew from what the store holds (see ``Journal.write_snapshot``); for a
    journal that was damaged or deleted. Returns the number of records written."""
    store.sync()
    with store.journal.lock(timeout=300):
        conn = store._conn()
        collections: dict[str, dict] = {}
        for listed in conn.client.list_collections():
            col = store._collection(conn, listed.name) if listed.name.startswith("agent_") else None
            if col is None:
                continue
            meta = col.metadata or {}
            records: dict[str, tuple[str, dict]] = {}
            offset = 0
            while True:
                got = col.get(include=["documents", "metadatas"], limit=store_apply.PAGE, offset=offset)
                if not got["ids"]:
                    break
                for rid, doc, m in zip(got["ids"], got["documents"], got["metadatas"]):
                    records[rid] = (doc, dict(m or {}))
                offset += len(got["ids"])
            collections[listed.name] = {"agent": meta.get("agent"), "kind": meta.get("kind"),
                                        "project_id": meta.get("project_id") or None, "records": records}
        store.journal.write_snapshot(collections)
        conn.seen_seq = store.journal.applied_seq()
    return sum(len(c["records"]) for c in collections.values())
