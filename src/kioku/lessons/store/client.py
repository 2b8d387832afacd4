"""The agent-memory store client: reads, and writes through the journal.

Per agent three collections (``KINDS``, named by ``kioku.lessons.store.names``) in cosine space.
Chroma runs in a child process killed when a call does not answer in time (``chroma_process``);
embeddings are always computed here. Each write is journaled, then applied to Chroma and the
keyword index under the store's lock; a write is acknowledged once journaled and a failed apply
stays pending for the next sync. Contract, durability and server mode: docs/architecture.md
("The store client").
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from kioku.infra import disk, fsutil
from kioku.infra.errors import DiskFull
from kioku.infra.fsutil import LockTimeout
from kioku.lessons.store import apply as store_apply, journal_lines
from kioku.lessons.store import chroma_process, connection, lexical, migration, reachability, recovery
from kioku.lessons.store.connection import Conn
from kioku.lessons.store.apply import is_not_found
from kioku.lessons.store.errors import StoreTimeout, StoreUnavailable
from kioku.lessons.store.journal import Journal
from kioku.lessons.store.meta import clean_metadata, strip_placeholder
from kioku.lessons.store.names import KINDS, collection_name
from kioku.lessons.store.record import Record, records_of_query

__all__ = ["KINDS", "Record", "AgentStore", "StoreUnavailable", "StoreTimeout", "collection_name", "open_store"]

log = logging.getLogger("kioku.lessons.store")


def _timeout(store: "AgentStore", exc: BaseException) -> StoreTimeout:
    return StoreTimeout(f"the agent-memory store in {store.chroma_dir} did not answer ({exc}); nothing was "
                        "lost: journaled writes are applied at the next sync")


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
        self._late_agents: set[str] = set()
        self.last_warning: str | None = None
        self.last_write_repeated = False  # the last write's idempotency key was already journaled
        # called with the store and the agents whose lessons changed without the hooks' digests
        # being told (None: all of them), after a rebuild from the journal or when pending writes
        # were applied late; the opener sets it (kioku.lessons.scopes rebuilds the digests)
        self.digests_stale: Callable[[AgentStore, set[str] | None], None] | None = None
        chroma_process.process().start_soon()  # chromadb loads in its process while this one goes on

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

    def _conn(self, *, fresh_check: bool = True) -> Conn:
        """The shared client, reopened if other processes applied writes since we looked."""
        return connection.connect(self, fresh_check=fresh_check)

    def _drop_conn(self) -> None:
        connection.disconnect(self)

    def _collection(self, conn: Conn, name: str, *, create: dict | None = None) -> chroma_process.Collection | None:
        """Collection ``name``; None when missing and ``create`` is None."""
        # Server mode: no cache, since other machines may drop and recreate collections
        # without our journal knowing (one HTTP round trip, a few ms).
        col = None if self.server else conn.cols.get(name)
        if col is not None:
            return col
        if create is not None:
            col = conn.client.get_or_create_collection(name, create)
        else:
            try:
                col = conn.client.get_collection(name)
            except Exception as exc:  # noqa: BLE001
                if is_not_found(exc):
                    return None
                raise
        conn.cols[name] = col
        return col

    def _lexical(self) -> Any:
        return lexical.index_of(self, store_checked=recovery.was_checked(self))

    def _warn(self, message: str, *, quiet: bool = False) -> None:
        """Log a warning once per state (a write and then a read see the same one); ``quiet`` for
        a full disk, which the command reports in its own words (``last_warning`` keeps it)."""
        if message != self.last_warning:
            log.log(logging.INFO if quiet else logging.WARNING, "kioku: %s", message)
        self.last_warning = message

    def _ensure_room_for_chroma(self, outcome: str) -> None:
        """DiskFull before Chroma is written on a disk without :func:`disk.chroma_reserve` free
        (a full disk makes Chroma fail and then block); a server's disk is its own business."""
        if not self.server:
            disk.ensure_room(self.chroma_dir, disk.chroma_reserve(), outcome)

    # --- the journal and its apply step ---------------------------------------------------
    def _apply(self, conn: Conn, entry: dict, embeddings: Any = None) -> None:
        """Apply one journal entry to Chroma and the lexical index (store_apply); idempotent."""
        store_apply.apply_entry(self, conn, entry, embeddings)

    def _sync_locked(self) -> int:
        """Apply every pending entry in order, then move collections that still carry an
        earlier naming; caller holds the lock. Raises on failure."""
        applied = self.journal.applied_seq()
        done = 0
        touched: set[str] = set()
        if self.journal.last_seq() > applied:
            self._ensure_room_for_chroma(f"{self.journal.pending_count()} write(s) stay in the journal "
                                         f"({self.journal.dir}) and are applied at the next sync once there is room")
            conn = self._conn()
            for entry in self.journal.entries(after=applied):
                self._apply(conn, entry)
                self.journal.set_applied(int(entry["seq"]))
                conn.seen_seq = int(entry["seq"])
                touched.update(n for n in [entry.get("collection"), *(p[1] for p in entry.get("pairs", []))] if n)
                self._late_agents.update(recovery.lesson_agents(entry))
                done += 1
        if touched and not self.server:
            recovery.mend_after_crash(self, touched)
        migration.migrate_names_locked(self)
        lexical.rebuild_if_stale(self)
        return done

    def _after_late_apply(self) -> None:
        """Writes applied after their own command ended never told the hooks' digests: rebuild
        the digests of their agents (outside the lock; the rebuild reads the store)."""
        agents, self._late_agents = self._late_agents, set()
        if agents:
            recovery.rebuild_digests(self, agents)

    def _rotate(self) -> None:
        """Bound the journal: archive the applied active file, fold old archives. Under the lock."""
        try:
            if self.journal.rotate() is not None:
                self.journal.compact()
        except OSError as exc:  # a full disk: the journal stays as it is and is rotated later
            log.info("kioku: journal not rotated: %s", exc)

    def _write(self, entry: dict, embeddings: Any = None) -> int:
        """Journal ``entry`` (acknowledged once fsynced), then apply it under the lock. An entry
        whose ``request`` key the journal already holds for the same records returns that entry's seq
        without writing (:attr:`last_write_repeated`)."""
        recovery.ensure_store(self)
        self.last_write_repeated = False
        try:
            with self.journal.lock():
                if self.journal.pending_count() or not self._synced:
                    try:
                        self._sync_locked()
                    except Exception as exc:  # noqa: BLE001 - journal first, apply later
                        self._warn(_not_applied("store not updated yet", exc), quiet=isinstance(exc, DiskFull))
                    self._synced = True
                repeated = (self.journal.find_request(entry["request"], entry.get("ids") or [])
                            if entry.get("request") else None)
                if repeated is not None:
                    self.last_write_repeated = True
                    return repeated
                seq = self.journal.append(entry)
                if self.journal.applied_seq() != seq - 1:
                    return seq  # older entries still pending: keep the order, apply later
                try:
                    self._ensure_room_for_chroma("the write is kept in the agent-memory journal and applied at "
                                                 "the next sync once there is room")
                    conn = self._conn()
                    self._apply(conn, entry, embeddings)
                    self.journal.set_applied(seq)
                    conn.seen_seq = seq
                except Exception as exc:  # noqa: BLE001
                    self._warn(_not_applied("write journaled but not applied", exc), quiet=isinstance(exc, DiskFull))
                    if not isinstance(exc, DiskFull):  # a client whose call failed may be in a bad state
                        self._drop_conn()
                    return seq
                self._rotate()
                return seq
        except LockTimeout as exc:
            raise StoreUnavailable(f"agent-memory store is busy ({exc}); nothing was written") from exc
        finally:
            self._after_late_apply()

    # --- public API: writes ---------------------------------------------------------------
    def upsert(self, agent: str, kind: str, records: list[Record], *, request_key: str | None = None) -> None:
        """Write ``records`` (whole documents and metadata). ``request_key``: the request's
        idempotency key (see the module docstring)."""
        if not records:
            return
        by_id: dict[str, Record] = {}
        for rec in records:  # a duplicate id inside one batch: the last one wins
            if not isinstance(rec.id, str) or not rec.id:
                raise ValueError("record ids must be non-empty strings")
            by_id[rec.id] = rec
        recs = list(by_id.values())
        # secrets out before the vectors are made, so they are the redacted text's (the journal
        # redacts what it writes as well, journal_lines.without_secrets)
        docs = journal_lines.redacted_documents([r.document if isinstance(r.document, str) else str(r.document)
                                                 for r in recs])
        metas = journal_lines.redacted_metadatas([clean_metadata(r.metadata) for r in recs])
        embeddings = self._embed(docs)  # outside the lock: the slow part
        entry = {"op": "upsert", "collection": self.name(agent, kind), "agent": agent, "kind": kind,
                 "project_id": self.project_id, "ids": [r.id for r in recs], "documents": docs, "metadatas": metas}
        self._write({**entry, "request": request_key} if request_key else entry, embeddings)

    def update_metadata(self, agent: str, kind: str, ids: list[str], metadatas: list[dict], *,
                        request_key: str | None = None) -> None:
        if len(ids) != len(metadatas):
            raise ValueError("ids and metadatas must have the same length")
        pairs = [(i, clean_metadata(m, placeholder=False)) for i, m in zip(ids, metadatas)]
        pairs = [(i, m) for i, m in pairs if m]
        if not pairs:
            return
        entry = {"op": "update", "collection": self.name(agent, kind), "agent": agent, "kind": kind,
                 "ids": [i for i, _ in pairs], "metadatas": [m for _, m in pairs]}
        self._write({**entry, "request": request_key} if request_key else entry)

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
        """Apply pending journal entries; returns how many. Raises DiskFull when the disk holding
        the store is full, StoreUnavailable on any other failure."""
        recovery.ensure_store(self)
        try:
            with self.journal.lock():
                try:
                    done = self._sync_locked()
                except DiskFull:
                    raise
                except Exception as exc:  # noqa: BLE001
                    self._drop_conn()
                    raise StoreUnavailable(
                        f"cannot apply {self.journal.pending_count()} journaled agent-memory write(s): "
                        f"{type(exc).__name__}: {exc}") from exc
                self._synced = True
                self._rotate()
                return done
        except LockTimeout as exc:
            raise StoreUnavailable(f"agent-memory store is busy ({exc})") from exc
        finally:
            self._after_late_apply()

    def pending(self) -> int:
        return self.journal.pending_count()

    def reindex_unreachable(self, agent: str | None = None) -> dict[str, reachability.Reachability]:
        """See ``kioku.lessons.store.migration.reindex_unreachable``."""
        return migration.reindex_unreachable(self, agent)

    # --- recovery (kioku.lessons.store.recovery) --------------------------------------------
    def recover(self, problem: str = "rebuilt on request") -> tuple[int, Path | None]:
        return recovery.recover(self, problem)

    def rebuild(self, reset: bool = False) -> int:
        return recovery.rebuild(self, reset)

    def check(self) -> bool:
        """Run the first-use check now (a missing, unreadable or stale store is rebuilt from its
        journal, as any first use would); returns whether the store holds anything. For callers
        that then hold the readers' lock, which that rebuild would wait on."""
        return self._exists()

    def records_beyond_journal(self) -> dict[str, int]:
        return recovery.records_beyond_journal(self)

    def journal_from_store(self) -> int:
        return recovery.journal_from_store(self)

    def ids_unknown_to_journal(self) -> int:
        return recovery.ids_unknown_to_journal(self)

    # --- public API: reads ----------------------------------------------------------------
    def _exists(self) -> bool:
        recovery.ensure_store(self)
        return self.server or (self.chroma_dir / "chroma.sqlite3").exists() or self.journal.pending_count() > 0

    def _sync_if_pending(self) -> None:
        if not self._synced and self._exists() and (self.journal.pending_count() or migration.names_need_check(self)):
            # read-your-writes after a crash or a broken store; never wait for a writer
            with fsutil.try_lock(self.journal.lock_path) as got:
                if got:
                    try:
                        self._sync_locked()
                    except Exception as exc:  # noqa: BLE001
                        if self.journal.pending_count():
                            self._warn(_not_applied("pending writes not applied yet", exc),
                                       quiet=isinstance(exc, DiskFull))
                        else:  # only the naming check failed; the read reports a broken store itself
                            log.debug("kioku: collection names not checked: %s", exc)
            self._synced = True
            self._after_late_apply()

    def _read(self, fn: Callable[[Conn], Any]) -> Any:
        """Run ``fn(conn)`` under a shared lock, retrying once on a fresh client.

        Why the shared lock: a reader that (re)loads the HNSW index while a writer is flushing it
        can fail with "Error finding id". Writers hold the exclusive lock only while applying, so
        readers wait at most one apply; if the lock is not obtained within READ_LOCK_WAIT seconds
        (``kioku.lessons.store.connection``)
        the read goes ahead unlocked (and is retried once on a reopened client if it fails). A
        call that does not answer in time raises :class:`StoreTimeout` (no retry).
        """
        self._sync_if_pending()
        for attempt in (0, 1):
            with connection.reader_lock(self, attempt):
                try:
                    conn = self._conn()
                    return fn(conn)
                except chroma_process.ChromaTimeout as exc:
                    raise _timeout(self, exc) from exc
                except Exception as exc:  # noqa: BLE001
                    if attempt or is_not_found(exc):
                        raise
                    self._drop_conn()
        raise AssertionError("unreachable")

    def collection_counts(self) -> dict[str, int]:
        """Records per Kioku collection as Chroma holds them (doctor compares with the journal)."""
        if not self._exists():
            return {}

        def run(conn: Conn) -> dict[str, int]:
            counts = {}
            for listed in conn.client.list_collections():
                if listed.name.startswith("agent_"):
                    found = self._collection(conn, listed.name)
                    counts[listed.name] = 0 if found is None else found.count()
            return counts

        return self._read(run)

    def query(self, agent: str, kind: str, text: str, n_results: int = 10,
              where: dict | None = None) -> list[Record]:
        if not self._exists() or n_results <= 0:
            return []
        vector = None

        def run(conn: Conn) -> list[Record]:
            nonlocal vector
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return []
            if vector is None:
                vector = self._embed([text])
            got = col.query(query_embeddings=vector, n_results=int(n_results), where=where or None,
                            include=["documents", "metadatas", "distances"])
            return records_of_query(got)

        return self._read(run)

    def query_vector(self, agent: str, kind: str, vector: Any, n_results: int = 10) -> list[Record]:
        """Nearest neighbours of a precomputed vector (benchmarks, self-checks)."""
        if not self._exists() or n_results <= 0:
            return []

        def run(conn: Conn) -> list[Record]:
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return []
            import numpy as np

            vec = np.asarray(vector, dtype=np.float32).reshape(1, -1)
            return records_of_query(col.query(query_embeddings=vec, n_results=int(n_results),
                                      include=["documents", "metadatas", "distances"]))

        return self._read(run)

    def get(self, agent: str, kind: str, ids: list[str] | None = None, where: dict | None = None,
            limit: int | None = None) -> list[Record]:
        if not self._exists() or (ids is not None and not ids):
            return []

        def run(conn: Conn) -> list[Record]:
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

        def run(conn: Conn) -> dict[str, Any]:
            col = self._collection(conn, self.name(agent, kind))
            if col is None:
                return {}
            got = col.get(ids=list(ids), include=["embeddings"])
            return {i: np.asarray(v, dtype=np.float32) for i, v in zip(got["ids"], got["embeddings"])}

        return self._read(run)

    def count(self, agent: str, kind: str) -> int:
        if not self._exists():
            return 0

        def run(conn: Conn) -> int:
            col = self._collection(conn, self.name(agent, kind))
            return 0 if col is None else col.count()

        return self._read(run)

    def agents(self) -> list[str]:
        if not self._exists():
            return []

        def run(conn: Conn) -> list[str]:
            found: set[str] = set()
            for col in conn.client.list_collections():
                meta = col.metadata or {}
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


def _not_applied(what: str, exc: BaseException) -> str:
    if isinstance(exc, DiskFull):
        return str(exc)
    if disk.is_full_error(exc):
        return f"agent-memory {what}: the disk is full ({type(exc).__name__}); it will be applied by `kioku store sync`"
    return f"agent-memory {what} ({type(exc).__name__}: {exc}); it will be applied by `kioku store sync`"


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
