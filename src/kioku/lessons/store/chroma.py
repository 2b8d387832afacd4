"""Agent-memory store: the only module that talks to ChromaDB.

Contract: per agent three collections (``KINDS``), named by
``collection_name`` (``kioku.lessons.store.names``), created with metadata (agent, purpose,
kind, scope, project_id, created_at) and cosine space, so ``relevance = 1 - distance``.
A missing collection gives empty results, never an error.

Embeddings: always computed by Kioku (``kioku.retrieval.embedder``: offline
all-MiniLM-L6-v2) and passed to Chroma explicitly (``embeddings=`` / ``query_embeddings=``).
Collections are created with a registered Kioku embedding function
(``kioku_minilm``, cosine by default), so Chroma's downloading default embedding function
is never reached, and any process that imports this module can reopen the collections.

Metadata: ``kioku.lessons.store.meta.clean_metadata`` (None values dropped, empty dict gets a
placeholder that reads hide, empty lists become "", ...). Conventions of the data on top:
untested ``success_rate = -1.0`` with ``tested = False``; never used ``last_used = ""``.
``upsert`` and ``update_metadata`` merge metadata key by key (Chroma semantics): keys
absent from the new dict keep their old value.

Durability and concurrency (``kioku.lessons.store.journal``): each write is appended to a
write-ahead journal (fsync; kept beside the Chroma folder in ``<chroma_dir>.kioku-journal``, so
deleting the Chroma folder loses nothing) under ``<chroma_dir>/.kioku-write.lock``, then applied to
Chroma and to the lexical index (``kioku.retrieval.fts.LexicalIndex`` at
``<chroma_dir>/kioku_lexical.sqlite3``) under the same lock, then the applied sequence number
is recorded. So only one process ever writes the embedded store at a time, and a write
is acknowledged once journaled: if Chroma is locked/broken the write stays pending (a
warning is logged and ``store.last_warning`` set) and ``sync()`` applies it later; the first
write of every AgentStore and ``kioku sync`` call it. An embedded Chroma client caches
the HNSW index in memory and never sees other processes' vectors (chroma.md section 5);
writing through such a stale client is what loses vectors (measured: 4 writers x 800
docs under the lock but without reopening lost 950 of 3200; raw chromadb lost 156-349;
with the reopen 0). So a process reopens its client whenever the journal's applied
sequence moved since it last looked: under the lock before every apply, and before reads.
A reader that (re)loads the index takes the lock shared (a reader loading the index while
a writer flushed it failed with "Error finding id"), waiting at most ``READ_LOCK_WAIT``,
and retries once on a fresh client.

Journal bounds: the active journal is archived (gzip) once applied and > 4 MiB, and more
than 8 archives are folded into one snapshot of the live records (``journal.compact``);
``rebuild(reset=False)`` replays snapshot + archives + journal into fresh collections.

Server mode: with a host/port (``open_store`` reads ``kioku.infra.config``: ``[chroma]``
host/port or ``KIOKU_CHROMA_HOST``/``KIOKU_CHROMA_PORT``) the store uses
``chromadb.HttpClient``; the journal still lives beside the local chroma_dir.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from kioku.lessons.store import journal as store_journal, reachability, apply as store_apply
from kioku.lessons.store.journal import Journal
from kioku.lessons.store.apply import is_not_found as _is_not_found
from kioku.lessons.store.meta import clean_metadata, strip_placeholder
from kioku.lessons.store.names import KINDS, NAMING_VERSION, collection_name
from kioku.infra import fsutil
from kioku.infra.errors import KiokuError

__all__ = ["KINDS", "Record", "AgentStore", "StoreUnavailable", "collection_name", "open_store"]

log = logging.getLogger("kioku.lessons.store")
EF_NAME = "kioku_minilm"


class StoreUnavailable(KiokuError):
    """Chroma could not be reached or written; journaled writes stay pending."""


@dataclass
class Record:
    id: str
    document: str
    metadata: dict = field(default_factory=dict)
    distance: float | None = None

    @property
    def relevance(self) -> float | None:
        return None if self.distance is None else 1.0 - self.distance


# --- chromadb, loaded lazily (import costs ~0.6 s) ------------------------------------

_EF_CLASS: Any = None
_IMPORT_LOCK = threading.Lock()


def _chromadb() -> Any:
    """Import chromadb and register Kioku's embedding function (once per process)."""
    global _EF_CLASS
    with _IMPORT_LOCK:
        import chromadb
        from chromadb.api.types import EmbeddingFunction
        from chromadb.utils.embedding_functions import register_embedding_function

        if _EF_CLASS is None:

            class KiokuMiniLM(EmbeddingFunction):  # type: ignore[type-arg]
                """Offline all-MiniLM-L6-v2 (kioku.retrieval.embedder); never downloads."""

                def __init__(self) -> None:
                    pass

                def __call__(self, input):  # noqa: A002 - chroma's signature
                    from kioku.retrieval.embedder import get_embedder

                    return list(get_embedder().embed(list(input)))

                @staticmethod
                def name() -> str:
                    return EF_NAME

                def default_space(self):
                    return "cosine"

                def supported_spaces(self):
                    return ["cosine"]

                @staticmethod
                def build_from_config(config):
                    return KiokuMiniLM()

                def get_config(self):
                    return {}

            register_embedding_function(KiokuMiniLM)
            _EF_CLASS = KiokuMiniLM
        return chromadb


class _Conn:
    """One chromadb client per store location per process, shared by AgentStores."""

    def __init__(self, client: Any, seen_seq: int) -> None:
        self.client = client
        self.seen_seq = seen_seq
        self.cols: dict[str, Any] = {}


_CONNS: dict[tuple, _Conn] = {}
_CONNS_LOCK = threading.RLock()
_CHECKED: set[str] = set()  # local stores whose health was checked in this process


def _open_persistent(chromadb: Any, path: Path, timeout: float = 20.0) -> Any:
    """PersistentClient(path), retrying while another process holds SQLite's write lock.

    Opening runs Chroma's migrations, which take SQLite's write lock: two processes
    opening a new store at once fail with "database is locked" (seen in the tests).
    Default Settings: telemetry is a no-op in chromadb 1.5, and every client opened on
    one path in a process must use identical settings.
    """
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        try:
            return chromadb.PersistentClient(path=str(path))
        except Exception as exc:  # noqa: BLE001
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            # the failed System stays cached under the path; drop it so the retry starts anew
            from chromadb.api.shared_system_client import SharedSystemClient

            SharedSystemClient._identifier_to_system.pop(str(path), None)
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


READ_LOCK_WAIT = 5.0


def _records(got: dict) -> list[Record]:
    if not got.get("ids") or not got["ids"][0]:
        return []
    return [Record(i, d or "", strip_placeholder(m), float(dist)) for i, d, m, dist in
            zip(got["ids"][0], got["documents"][0], got["metadatas"][0], got["distances"][0])]


@contextlib.contextmanager
def try_shared(lock_path: Path, wait: float) -> Iterator[bool]:
    """Shared flock for readers; yields whether it was obtained within ``wait`` seconds.

    Polls every 2 ms (writers back off up to 50 ms in fsutil.exclusive_lock), so a waiting
    reader usually gets the lock at the next hand-over instead of starving behind a
    queue of writers.
    """
    fsutil.ensure_private_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, fsutil.FILE_MODE)
    try:
        deadline = time.monotonic() + wait
        got = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                got = True
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    log.warning("kioku: agent-memory store busy; reading without waiting for the writer")
                    break
                time.sleep(0.002)
        yield got
    finally:
        os.close(fd)


class AgentStore:
    def __init__(self, chroma_dir: Path, project_id: str | None = None, *, host: str | None = None,
                 port: int | None = None, embedder: Any = None) -> None:
        self.given_dir = Path(chroma_dir).expanduser()  # as configured: may be the user's link
        self.chroma_dir = self.given_dir.resolve()
        self.project_id = project_id
        self.host = host
        self.port = int(port) if port else None
        self.server = bool(host)
        self.journal = Journal(self.chroma_dir)
        self._embedder = embedder
        self._synced = False
        self._lex: Any = None
        self._lex_checked = False
        self._names_current = False
        self.last_warning: str | None = None
        # called with the store after it was rebuilt from its journal (the opener sets it:
        # kioku.lessons.scopes rebuilds the hooks' digests there)
        self.after_recovery: Callable[[AgentStore], None] | None = None

    # --- helpers --------------------------------------------------------------------
    def name(self, agent: str, kind: str) -> str:
        return collection_name(agent, kind, self.project_id)

    def _embed(self, texts: list[str]) -> Any:
        if self._embedder is None:
            from kioku.retrieval.embedder import get_embedder

            self._embedder = get_embedder()
        return self._embedder.embed(texts)

    def _key(self) -> tuple:
        return ("http", self.host, self.port) if self.server else ("path", str(self.chroma_dir))

    def _conn(self, *, fresh_check: bool = True) -> _Conn:
        """The shared client, reopened if other processes applied writes since we looked."""
        with _CONNS_LOCK:
            key = self._key()
            conn = _CONNS.get(key)
            applied = self.journal.applied_seq()
            if conn is not None and (self.server or not fresh_check or conn.seen_seq == applied):
                return conn
            chromadb = _chromadb()
            if conn is not None:
                try:
                    conn.client.close()
                except Exception:  # noqa: BLE001 - a dead client must not block reopening
                    pass
                _CONNS.pop(key, None)
            if self.server:
                client = chromadb.HttpClient(host=self.host, port=self.port)
            else:
                fsutil.ensure_private_dir(self.chroma_dir)
                client = _open_persistent(chromadb, self.chroma_dir)
            conn = _Conn(client, applied)
            _CONNS[key] = conn
            return conn

    def _collection(self, conn: _Conn, name: str, *, create: dict | None = None) -> Any:
        """Collection ``name``; None when missing and ``create`` is None."""
        # Server mode: no cache, since other machines may drop and recreate collections
        # without our journal knowing (one HTTP round trip, a few ms).
        col = None if self.server else conn.cols.get(name)
        if col is not None:
            return col
        ef = _EF_CLASS()
        if create is not None:
            col = conn.client.get_or_create_collection(
                name, metadata=create, configuration={"hnsw": {"space": "cosine"}}, embedding_function=ef)
        else:
            try:
                col = conn.client.get_collection(name, embedding_function=ef)
            except Exception as exc:  # noqa: BLE001
                if _is_not_found(exc):
                    return None
                raise
        conn.cols[name] = col
        return col

    def _lexical(self) -> Any:
        # _lex is assigned before _lex_checked so a second thread never sees "checked" with
        # the index not yet set (retrieval runs the lexical search in a worker thread)
        if not self._lex_checked:
            try:
                from kioku.retrieval.fts import LexicalIndex
            except ImportError:
                self._lex = None
            else:
                self._lex = LexicalIndex(self.chroma_dir / "kioku_lexical.sqlite3")
            self._lex_checked = True
            self._refill_lexical_if_needed()
        return self._lex

    def _refill_lexical_if_needed(self) -> None:
        """A keyword index that was damaged is set aside and made anew when opened
        (``LexicalIndex``); it mirrors the store, so it is refilled from Chroma here, when the
        lock is free (a writer holding it refills it at the end of its sync instead)."""
        lex = self._lex
        if lex is None or self.server:
            return
        try:
            if not lex.needs_refill():
                return
        except Exception as exc:  # noqa: BLE001 - locked or unreadable: the next use tries again
            log.debug("kioku: keyword index not checked: %s", exc)
            return
        if lex.recreated:
            self._warn(f"the keyword index {lex.db_path} was damaged; it was set aside as "
                       f"{Path(lex.set_aside).name} and is rebuilt from the store")
        # only once the store was checked (``_ensure_store`` may rebuild it, taking the lock) and
        # holds something; otherwise a later sync refills it (the need is kept in the file)
        if str(self.chroma_dir) not in _CHECKED or not (self.chroma_dir / "chroma.sqlite3").exists():
            return
        with fsutil.try_lock(self.journal.lock_path) as got:
            if got:
                try:
                    store_apply.rebuild_lexical_if_stale(self)
                except Exception as exc:  # noqa: BLE001 - reads fall back to Chroma alone
                    log.info("kioku: keyword index not refilled yet: %s", exc)

    def _warn(self, message: str) -> None:
        self.last_warning = message
        log.warning("kioku: %s", message)

    # --- the journal and its apply step ---------------------------------------------------
    def _apply(self, conn: _Conn, entry: dict, embeddings: Any = None) -> None:
        """Apply one journal entry to Chroma and the lexical index (store_apply); idempotent."""
        store_apply.apply_entry(self, conn, entry, embeddings)

    def _sync_locked(self) -> int:
        """Apply every pending entry in order, then move collections that still carry an
        earlier naming; caller holds the lock. Raises on failure."""
        applied = self.journal.applied_seq()
        done = 0
        touched: set[str] = set()
        if self.journal.last_seq() > applied:
            conn = self._conn()
            for entry in self.journal.entries(after=applied):
                self._apply(conn, entry)
                self.journal.set_applied(int(entry["seq"]))
                conn.seen_seq = int(entry["seq"])
                touched.update(n for n in [entry.get("collection"), *(p[1] for p in entry.get("pairs", []))] if n)
                done += 1
        if touched and not self.server:
            self._mend_after_crash(touched)
        self._migrate_names_locked()
        self._maybe_rebuild_lexical()
        return done

    def _mend_after_crash(self, names: set[str]) -> None:
        """Entries were pending: a process stopped between journaling and applying them (or
        Chroma was unavailable then). A process killed while Chroma was writing can also leave
        records that vector search no longer reaches, so the collections those entries touched
        are checked and mended (``_reindex_locked``); a failure is logged, never raised."""
        try:
            mended = self._reindex_locked(names)
        except Exception as exc:  # noqa: BLE001 - the check is a repair, not part of the write
            log.info("kioku: vector index not checked after pending writes: %s", exc)
            return
        _checked, count, lost = reachability.totals(mended)
        if count:
            self._warn(f"{count} agent-memory record(s) that vector search could not reach were indexed again")
        if lost:
            self._warn(f"{lost} agent-memory record(s) still cannot be reached by vector search; "
                       "`kioku rebuild` replays the journal into new collections")

    def _names_need_check(self) -> bool:
        if not self._names_current:
            self._names_current = self.journal.state().get("collection_names") == NAMING_VERSION
        return not self._names_current

    def _migrate_names_locked(self) -> int:
        """Move every Kioku collection whose name differs from today's ``collection_name`` for
        the agent, kind and project in its metadata; caller holds the lock.

        Each move is two journal entries, a copy into the current name and then a drop of the
        old one, applied like any write: nothing is lost, and a crash between them leaves both
        collections, so the next open copies again (idempotent) and drops. Runs once per store
        (the journal state remembers the naming version). Returns how many collections moved.
        """
        if not self._names_need_check():
            return 0
        moved = 0
        if not self.server and not (self.chroma_dir / "chroma.sqlite3").exists():
            # nothing stored yet: every collection gets today's name
            self.journal.set_state(collection_names=NAMING_VERSION)
            self._names_current = True
            return 0
        conn = self._conn()
        for col in list(conn.client.list_collections()):
            meta = getattr(col, "metadata", None) or {}
            agent, kind = meta.get("agent"), meta.get("kind")
            if not meta.get("kioku") or not isinstance(agent, str) or not agent or kind not in KINDS:
                continue
            project_id = meta.get("project_id") or None
            want = collection_name(agent, kind, project_id)
            if col.name == want:
                continue
            for entry in ({"op": "copy", "dst_agent": agent, "project_id": project_id,
                           "pairs": [[col.name, want, kind]]},
                          {"op": "drop", "agent": agent, "collections": [col.name]}):
                seq = self.journal.append(entry)
                self._apply(conn, entry)
                self.journal.set_applied(seq)
                conn.seen_seq = seq
            moved += 1
        self.journal.set_state(collection_names=NAMING_VERSION)
        self._names_current = True
        return moved

    def _maybe_rebuild_lexical(self) -> None:
        store_apply.rebuild_lexical_if_stale(self)

    def _rotate(self) -> None:
        """Bound the journal: archive the applied active file, fold old archives. Under the lock."""
        if self.journal.rotate() is not None:
            self.journal.compact()

    def _write(self, entry: dict, embeddings: Any = None) -> int:
        """Journal ``entry`` (acknowledged once fsynced), then apply it under the lock."""
        from kioku.infra.fsutil import LockTimeout

        self._ensure_store()
        try:
            with self.journal.lock():
                pending_before = self.journal.pending_count()
                if pending_before or not self._synced:
                    try:
                        self._sync_locked()
                    except Exception as exc:  # noqa: BLE001 - journal first, apply later
                        self._warn(f"agent-memory store not updated yet ({type(exc).__name__}: {exc}); "
                                   "writes are journaled and will be applied by `kioku sync`")
                    self._synced = True
                seq = self.journal.append(entry)
                if self.journal.applied_seq() != seq - 1:
                    return seq  # older entries still pending: keep the order, apply later
                try:
                    conn = self._conn()
                    self._apply(conn, entry, embeddings)
                    self.journal.set_applied(seq)
                    conn.seen_seq = seq
                except Exception as exc:  # noqa: BLE001
                    self._warn(f"agent-memory write journaled but not applied ({type(exc).__name__}: {exc}); "
                               "it will be applied by `kioku sync`")
                    with _CONNS_LOCK:  # a failed client may be in a bad state: reopen next time
                        _CONNS.pop(self._key(), None)
                    return seq
                self._rotate()
                return seq
        except LockTimeout as exc:
            raise StoreUnavailable(f"agent-memory store is busy ({exc}); nothing was written") from exc

    # --- public API: writes ---------------------------------------------------------------
    def upsert(self, agent: str, kind: str, records: list[Record]) -> None:
        if not records:
            return
        by_id: dict[str, Record] = {}
        for rec in records:  # a duplicate id inside one batch: the last one wins
            if not isinstance(rec.id, str) or not rec.id:
                raise ValueError("record ids must be non-empty strings")
            by_id[rec.id] = rec
        recs = list(by_id.values())
        # secrets out before the vectors are made, so they are the redacted text's (the journal
        # redacts what it writes as well, store_journal.without_secrets)
        docs = store_journal.redacted_documents([r.document if isinstance(r.document, str) else str(r.document)
                                                 for r in recs])
        metas = store_journal.redacted_metadatas([clean_metadata(r.metadata) for r in recs])
        embeddings = self._embed(docs)  # outside the lock: the slow part
        self._write({"op": "upsert", "collection": self.name(agent, kind), "agent": agent, "kind": kind,
                     "project_id": self.project_id, "ids": [r.id for r in recs], "documents": docs,
                     "metadatas": metas}, embeddings)

    def update_metadata(self, agent: str, kind: str, ids: list[str], metadatas: list[dict]) -> None:
        if len(ids) != len(metadatas):
            raise ValueError("ids and metadatas must have the same length")
        pairs = [(i, clean_metadata(m, placeholder=False)) for i, m in zip(ids, metadatas)]
        pairs = [(i, m) for i, m in pairs if m]
        if not pairs:
            return
        self._write({"op": "update", "collection": self.name(agent, kind), "agent": agent, "kind": kind,
                     "ids": [i for i, _ in pairs], "metadatas": [m for _, m in pairs]})

    def delete(self, agent: str, kind: str, ids: list[str]) -> None:
        if ids:
            self._write({"op": "delete", "collection": self.name(agent, kind), "agent": agent,
                         "kind": kind, "ids": list(ids)})

    def drop_agent(self, agent: str) -> None:
        self._write({"op": "drop", "agent": agent, "collections": [self.name(agent, k) for k in KINDS]})

    def copy_agent(self, src_agent: str, dst_agent: str) -> None:
        self._write({"op": "copy", "dst_agent": dst_agent, "project_id": self.project_id,
                     "pairs": [[self.name(src_agent, k), self.name(dst_agent, k), k] for k in KINDS]})

    def sync(self) -> int:
        """Apply pending journal entries; returns how many. Raises StoreUnavailable on failure."""
        from kioku.infra.fsutil import LockTimeout

        self._ensure_store()
        try:
            with self.journal.lock():
                try:
                    done = self._sync_locked()
                except Exception as exc:  # noqa: BLE001
                    with _CONNS_LOCK:
                        _CONNS.pop(self._key(), None)
                    raise StoreUnavailable(
                        f"cannot apply {self.journal.pending_count()} journaled agent-memory write(s): "
                        f"{type(exc).__name__}: {exc}") from exc
                self._synced = True
                self._rotate()
                return done
        except LockTimeout as exc:
            raise StoreUnavailable(f"agent-memory store is busy ({exc})") from exc

    def pending(self) -> int:
        return self.journal.pending_count()

    def reindex_unreachable(self, agent: str | None = None) -> dict[str, reachability.Reachability]:
        """Check that vector search reaches every record of the Kioku collections (of ``agent``
        only, when given) and upsert the ones it does not reach again (see
        ``kioku.lessons.store.reachability``). Pending journal entries are applied first, under the write
        lock. A Chroma server keeps its own index and is not checked."""
        from kioku.infra.fsutil import LockTimeout

        if self.server or not self._exists():
            return {}
        wanted = {self.name(agent, k) for k in KINDS} if agent else None
        try:
            with self.journal.lock(timeout=120):
                self._sync_locked()
                return self._reindex_locked(wanted)
        except LockTimeout as exc:
            raise StoreUnavailable(f"agent-memory store is busy ({exc}); vector index not checked") from exc

    def _reindex_locked(self, wanted: set[str] | None) -> dict[str, reachability.Reachability]:
        """The check of ``reindex_unreachable`` on the collections in ``wanted`` (all Kioku
        collections when None); caller holds the lock. When a record was put back, a ``noop``
        journal entry moves the applied position on, so that other processes reopen their
        clients and load the mended index."""
        conn = self._conn()
        found: dict[str, reachability.Reachability] = {}
        for listed in conn.client.list_collections():
            name = getattr(listed, "name", str(listed))
            if not name.startswith("agent_") or (wanted is not None and name not in wanted):
                continue
            col = self._collection(conn, name)
            if col is not None:
                found[name] = reachability.check_collection(col, self._embed)
        mended = reachability.totals(found)[1]
        if mended:
            seq = self.journal.append({"op": "noop", "reindexed": mended})
            self.journal.set_applied(seq)
            conn.seen_seq = seq
        return found

    # --- public API: reads ----------------------------------------------------------------
    # --- recovery: a missing or unreadable store is rebuilt from the journal ---------------
    def _ensure_store(self) -> None:
        """On first use in a process: if the journal says this store held data but Chroma's
        files (or the whole Chroma folder) are missing, cannot be opened, or hold no Kioku
        collection at all, rebuild the store from the journal (``recover``), with one warning
        on stderr."""
        key = str(self.chroma_dir)
        if self.server or key in _CHECKED:
            return
        self._move_aside_if_not_a_folder()  # raises (every time) for a link whose target is gone
        _CHECKED.add(key)
        if not self.journal.has_history():
            return
        problem = None
        if not (self.chroma_dir / "chroma.sqlite3").exists():
            problem = "missing"
        else:
            try:
                names = [getattr(c, "name", str(c)) for c in self._conn().client.list_collections()]
                if not any(n.startswith("agent_") for n in names) and self.journal.live_counts():
                    problem = "empty although its journal holds records"
            except Exception as exc:  # noqa: BLE001 - any failure to open is what we recover from
                if "locked" in str(exc):
                    return  # another process is opening it: not damage
                problem = f"unreadable ({type(exc).__name__}: {str(exc).splitlines()[0][:120]})"
        if not problem:
            marker = self.journal.store_marker()
            if marker is not None and marker < self.journal.applied_seq():
                problem = "behind its journal (an older copy of the folder was put back?)"
                try:
                    unknown = self.ids_unknown_to_journal()
                except Exception:  # noqa: BLE001 - cannot tell: rebuilding is the safe side
                    unknown = 0
                if unknown:
                    # it holds records the journal never wrote (its journal was moved or is an
                    # older copy): a rebuild would drop them, so it is left alone. (Records the
                    # journal deleted since are no reason: the rebuild is right to drop them.)
                    self.last_warning = (
                        f"the agent-memory store in {self.chroma_dir} is {problem}, but it holds "
                        f"{unknown} record(s) its journal never wrote, so it was not rebuilt; "
                        "run `kioku doctor`")
                    log.warning("kioku: %s", self.last_warning)
                    return
        if not problem:
            return
        try:
            self._embed(["probe"])  # replaying needs the model: without it, leave the files alone
            self.recover(problem)
        except Exception as exc:  # noqa: BLE001 - reads fall back to the lexical index instead
            self.last_warning = (f"the agent-memory store in {self.chroma_dir} is {problem} and could not be "
                                 f"rebuilt now ({type(exc).__name__}); run `kioku rebuild`")
            log.info("kioku: %s", self.last_warning)

    def _move_aside_if_not_a_folder(self) -> None:
        """A file (or a link to one) where the Chroma folder belongs is moved aside to
        ``<chroma_dir>.broken-<time>``, with one warning: the store's lock lives in the folder,
        so no write could be journaled, and the journal rebuilds the store in a new folder."""
        import stat
        import sys

        if self.given_dir.is_symlink() and not self.chroma_dir.is_dir():
            # the user's link (to another disk, say) whose target is missing: never moved and
            # never filled with a new, empty store under the mount point; the target may come back
            from kioku.infra.errors import KiokuError

            raise KiokuError(f"{self.given_dir} is a link to {os.readlink(self.given_dir)}, which is not a folder "
                             "(an unmounted volume?); make it reachable again or remove the link")
        try:
            mode = os.stat(self.chroma_dir).st_mode
        except FileNotFoundError:
            if not os.path.islink(self.chroma_dir):
                return
            mode = 0  # a dangling link
        except OSError:
            return
        if stat.S_ISDIR(mode):
            return
        aside = self.chroma_dir.with_name(f"{self.chroma_dir.name}.broken-{store_apply.aside_stamp()}")
        try:
            os.rename(self.chroma_dir, aside)
        except FileNotFoundError:
            return  # another process moved it first
        message = (f"{self.chroma_dir} was not a folder; moved it to {aside}"
                   + ("; the store is rebuilt from its journal" if self.journal.has_history() else ""))
        self.last_warning = message
        print(f"kioku: warning: {message}", file=sys.stderr)

    def recover(self, problem: str = "rebuilt on request") -> tuple[int, Path | None]:
        """Move Chroma's files aside and replay the whole journal into a new store.

        Returns (entries replayed, folder the old files were moved to or None). Prints one
        warning line to stderr unless ``problem`` is an explicit request."""
        import sys

        from chromadb.api.shared_system_client import SharedSystemClient

        self._drop_conn()
        _chromadb()
        SharedSystemClient._identifier_to_system.pop(str(self.chroma_dir), None)
        with self.journal.lock(timeout=300):
            if problem == "missing" and (self.chroma_dir / "chroma.sqlite3").exists():
                _CHECKED.add(str(self.chroma_dir))
                return 0, None  # another process rebuilt it while we waited for the lock
            aside = store_apply.move_chroma_files_aside(
                self, "replaced" if problem == "rebuilt on request" else "broken")
            SharedSystemClient._identifier_to_system.pop(str(self.chroma_dir), None)
            replayed = store_apply.replay_all(self, self._conn())
        _CHECKED.add(str(self.chroma_dir))
        self._synced = True
        self._rebuild_digests()
        if problem != "rebuilt on request":
            kept = f"; the damaged files were moved to {aside}" if aside else ""
            message = (f"the agent-memory store in {self.chroma_dir} was {problem}; rebuilt it from its "
                       f"journal ({replayed} entries){kept}")
            self.last_warning = message  # one warning: printed here, not logged a second time
            print(f"kioku: warning: {message}", file=sys.stderr)
        return replayed, aside

    def _rebuild_digests(self) -> None:
        """Run :attr:`after_recovery` (the owner's digest rebuild: a deleted Chroma folder took the
        digests with it); a failure leaves them to the next refresh."""
        if self.after_recovery is None:
            return
        try:
            self.after_recovery(self)
        except Exception as exc:  # noqa: BLE001 - the store itself is rebuilt; digests are derived
            log.info("kioku: digests not rebuilt after recovery: %s", exc)

    def collection_counts(self) -> dict[str, int]:
        """Records per Kioku collection as Chroma holds them (doctor compares with the journal)."""
        if not self._exists():
            return {}

        def run(conn: _Conn) -> dict[str, int]:
            counts = {}
            for col in conn.client.list_collections():
                name = getattr(col, "name", str(col))
                if name.startswith("agent_"):
                    found = self._collection(conn, name)
                    counts[name] = 0 if found is None else int(found.count())
            return counts

        return self._read(run)

    def _exists(self) -> bool:
        self._ensure_store()
        return self.server or (self.chroma_dir / "chroma.sqlite3").exists() or self.journal.pending_count() > 0

    def _sync_if_pending(self) -> None:
        if not self._synced and self._exists() and (self.journal.pending_count() or self._names_need_check()):
            # read-your-writes after a crash or a broken store; never wait for a writer
            with fsutil.try_lock(self.journal.lock_path) as got:
                if got:
                    try:
                        self._sync_locked()
                    except Exception as exc:  # noqa: BLE001
                        if self.journal.pending_count():
                            self._warn(f"pending agent-memory writes not applied yet: {exc}")
                        else:  # only the naming check failed; the read reports a broken store itself
                            log.debug("kioku: collection names not checked: %s", exc)
            self._synced = True

    def _read(self, fn: Any) -> Any:
        """Run ``fn(conn)`` under a shared lock, retrying once on a fresh client.

        Why the shared lock: a reader that (re)loads the HNSW index while a writer is
        flushing it can fail with "Error finding id" (seen in the concurrency test with a
        long-lived reader). Writers hold the exclusive lock only while applying, so readers
        wait at most one apply; if the lock is not obtained within READ_LOCK_WAIT seconds the
        read goes ahead unlocked (and is retried once on a reopened client if it fails).
        """
        self._sync_if_pending()
        for attempt in (0, 1):
            with self._shared_lock(attempt):
                conn = self._conn()
                try:
                    return fn(conn)
                except Exception as exc:  # noqa: BLE001
                    if attempt or _is_not_found(exc):
                        raise
                    self._drop_conn()

    def _shared_lock(self, attempt: int) -> Any:
        """Only a client that is about to (re)load the index needs to exclude writers."""
        if self.server:
            return contextlib.nullcontext()
        with _CONNS_LOCK:
            conn = _CONNS.get(self._key())
            fresh = conn is not None and conn.seen_seq == self.journal.applied_seq()
        if fresh and not attempt:
            return contextlib.nullcontext()
        return try_shared(self.journal.lock_path, READ_LOCK_WAIT)

    def _drop_conn(self) -> None:
        with _CONNS_LOCK:
            conn = _CONNS.pop(self._key(), None)
            if conn is not None:
                try:
                    conn.client.close()
                except Exception:  # noqa: BLE001
                    pass

    def query(self, agent: str, kind: str, text: str, n_results: int = 10,
              where: dict | None = None) -> list[Record]:
        if not self._exists() or n_results <= 0:
            return []
        vector = None

        def run(conn: _Conn) -> list[Record]:
            nonlocal vector
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return []
            if vector is None:
                vector = self._embed([text])
            got = col.query(query_embeddings=vector, n_results=int(n_results), where=where or None,
                            include=["documents", "metadatas", "distances"])
            return _records(got)

        return self._read(run)

    def query_vector(self, agent: str, kind: str, vector: Any, n_results: int = 10) -> list[Record]:
        """Nearest neighbours of a precomputed vector (benchmarks, self-checks)."""
        if not self._exists() or n_results <= 0:
            return []

        def run(conn: _Conn) -> list[Record]:
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return []
            import numpy as np

            vec = np.asarray(vector, dtype=np.float32).reshape(1, -1)
            return _records(col.query(query_embeddings=vec, n_results=int(n_results),
                                      include=["documents", "metadatas", "distances"]))

        return self._read(run)

    def get(self, agent: str, kind: str, ids: list[str] | None = None, where: dict | None = None,
            limit: int | None = None) -> list[Record]:
        if not self._exists() or (ids is not None and not ids):
            return []

        def run(conn: _Conn) -> list[Record]:
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return []
            got = col.get(ids=list(ids) if ids is not None else None, where=where or None, limit=limit,
                          include=["documents", "metadatas"])
            return [Record(i, d or "", strip_placeholder(m)) for i, d, m in
                    zip(got["ids"], got["documents"], got["metadatas"])]

        recs = self._read(run)
        if ids is not None:  # Chroma returns storage order; callers expect theirs
            pos = {i: n for n, i in enumerate(ids)}
            recs.sort(key=lambda r: pos.get(r.id, len(pos)))
        return recs

    def embeddings(self, agent: str, kind: str, ids: list[str]) -> dict[str, Any]:
        """Stored vectors (unit-normalised float32 arrays) by id; missing ids are absent.

        Lets callers score candidates found another way (e.g. lexical hits) by cosine
        without re-embedding their documents.
        """
        if not ids or not self._exists():
            return {}
        import numpy as np

        def run(conn: _Conn) -> dict[str, Any]:
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return {}
            got = col.get(ids=list(ids), include=["embeddings"])
            return {i: np.asarray(v, dtype=np.float32) for i, v in zip(got["ids"], got["embeddings"])}

        return self._read(run)

    def count(self, agent: str, kind: str) -> int:
        if not self._exists():
            return 0

        def run(conn: _Conn) -> int:
            col = self._collection(conn, self.name(agent, kind))
            return 0 if col is None else int(col.count())

        return self._read(run)

    def agents(self) -> list[str]:
        if not self._exists():
            return []

        def run(conn: _Conn) -> list[str]:
            found: set[str] = set()
            for col in conn.client.list_collections():
                meta = getattr(col, "metadata", None) or {}
                if not meta.get("kioku") or not meta.get("agent"):
                    continue
                if (meta.get("project_id") or None) != self.project_id:
                    continue
                if col.name == self.name(meta["agent"], meta.get("kind", "improvements")):
                    found.add(meta["agent"])
            return sorted(found)

        return self._read(run)

    def lexical_search(self, agent: str, kind: str, query: str, k: int = 10) -> list[tuple[str, float]]:
        """BM25-style keyword search over the same records (works without Chroma or the model)."""
        lex = self._lexical()
        if lex is None:
            return []
        return list(lex.search(self.name(agent, kind), query, k))

    # --- maintenance ----------------------------------------------------------------------
    def rebuild(self, reset: bool = False) -> int:
        """Drop every collection named in the journal and replay archives + journal.

        ``reset=True`` first moves Chroma's own files (a corrupt store) aside into
        ``<chroma_dir>.broken-<time>`` next to the folder, then replays into a new store.
        """
        with self.journal.lock(timeout=300):
            if reset and not self.server:
                with _CONNS_LOCK:
                    old = _CONNS.pop(self._key(), None)
                    if old is not None:
                        try:
                            old.client.close()
                        except Exception:  # noqa: BLE001
                            pass
                store_apply.move_chroma_files_aside(self)
            return store_apply.replay_all(self, self._conn())


    def ids_unknown_to_journal(self) -> int:
        """How many records the store holds under ids its journal never wrote."""
        written = self.journal.written_ids()

        def run(conn: _Conn) -> int:
            unknown = 0
            for col in conn.client.list_collections():
                name = getattr(col, "name", str(col))
                found = self._collection(conn, name) if name.startswith("agent_") else None
                if found is not None:
                    ids = found.get(include=[])["ids"]
                    unknown += len(set(ids) - written.get(name, set()))
            return unknown

        return run(self._conn())

    def check(self) -> bool:
        """Run the first-use check now (a missing, unreadable or stale store is rebuilt from its
        journal, as any first use would); returns whether the store holds anything. For callers
        that then hold the readers' lock, which that rebuild would wait on."""
        return self._exists()

    def records_beyond_journal(self) -> dict[str, int]:
        """Collections holding more records than replaying the journal gives, with how many
        more: what a rebuild from the journal would lose (its journal was damaged or deleted).

        Counted under the write lock, after applying what is pending: a write landing between
        reading the journal and reading the store (or a journaled delete not applied yet)
        would otherwise look like a record the journal lacks, and ``kioku rebuild`` would
        refuse and advise writing the journal anew from the store."""
        if self.server:
            expected, counts = self.journal.live_counts(), self.collection_counts()
        else:
            if not self._exists():  # the first-use check (it may rebuild, under the lock) runs before we take it
                return {}
            with self.journal.lock():
                try:
                    self._sync_locked()
                except Exception:  # noqa: BLE001 - a broken store is counted (or fails) below
                    pass
                with contextlib.suppress(Exception):
                    self._conn()  # current for the applied sequence: the read below needs no reader lock
                expected, counts = self.journal.live_counts(), self.collection_counts()
        return {name: n - expected.get(name, 0) for name, n in counts.items() if n > expected.get(name, 0)}

    def journal_from_store(self) -> int:
        """Write the journal anew from what the store holds (see ``Journal.write_snapshot``);
        for a journal that was damaged or deleted. Returns the number of records written."""
        self.sync()
        with self.journal.lock(timeout=300):
            conn = self._conn()
            collections: dict[str, dict] = {}
            for listed in conn.client.list_collections():
                name = getattr(listed, "name", str(listed))
                col = self._collection(conn, name) if name.startswith("agent_") else None
                if col is None:
                    continue
                meta = col.metadata or {}
                records: dict[str, tuple[str, dict]] = {}
                offset = 0
                while True:
                    got = col.get(include=["documents", "metadatas"], limit=store_apply._PAGE, offset=offset)
                    if not got["ids"]:
                        break
                    for rid, doc, m in zip(got["ids"], got["documents"], got["metadatas"]):
                        records[rid] = (doc, dict(m or {}))
                    offset += len(got["ids"])
                collections[name] = {"agent": meta.get("agent"), "kind": meta.get("kind"),
                                     "project_id": meta.get("project_id") or None, "records": records}
            self.journal.write_snapshot(collections)
            conn.seen_seq = self.journal.applied_seq()
        return sum(len(c["records"]) for c in collections.values())


def open_store(scope: str, project_root: Path | None = None, *, embedder: Any = None) -> AgentStore:
    """The global (``~/.claude/chroma_data``) or project (``<root>/.claude/chroma_data``) store."""
    from kioku.infra import paths
    from kioku.infra.config import load_config

    root = Path(project_root) if project_root else paths.find_project_root()
    cfg = load_config(root)
    if scope == "global":
        return AgentStore(paths.global_chroma_dir(), None, host=cfg.chroma_host, port=cfg.chroma_port,
                          embedder=embedder)
    if scope == "project":
        return AgentStore(paths.project_chroma_dir(root), paths.project_identity(root),
                          host=cfg.chroma_host, port=cfg.chroma_port, embedder=embedder)
    raise ValueError(f"scope must be 'global' or 'project', not {scope!r}")
