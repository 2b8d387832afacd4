"""Persistent lexical index on SQLite FTS5 (stdlib only).

Contract::

    idx = LexicalIndex(db_path)
    idx.upsert(collection, [(id, text), ...])    # replaces documents with the same id
    idx.delete(collection, [id, ...])
    idx.search(collection, query, k) -> [(id, score), ...]   # best first, higher = better
    idx.drop(collection)
    idx.copy(src_collection, dst_collection)     # upserts every src document into dst
    idx.count(collection) -> int; idx.collections() -> list[str]; idx.close()

Why FTS5: an on-disk inverted index, so a query touches only the postings of its terms,
never every document, and it works when Chroma or the embedding model is unavailable.

Text is pre-tokenized with ``kioku.retrieval.text.tokenize`` (lower-case stemmed English
words, Japanese character bigrams) and stored as space-separated tokens; FTS5's ``ascii``
tokenizer then splits on spaces only (non-ASCII bytes are token characters), so Japanese
bigrams survive intact. Queries are the same tokens OR-ed together and ranked by FTS5's
built-in BM25 (k1=1.2, b=0.75); the score returned is -bm25() so that higher is better.

Query pruning (why: an OR query makes FTS5 score every document containing any term, so a
task with a few common words ranked most of a 100k index, 82 ms p50 / 171 ms p95): each
distinct query token's document frequency is read from a temporary ``fts5vocab`` table
(one b-tree seek per token, no document scan), tokens absent from the collection are
dropped, and :func:`prune_terms` keeps the :data:`MAX_SEARCH_TERMS` rarest tokens, also
dropping tokens that occur in more than :data:`MAX_DF_RATIO` of the documents unless
that would leave fewer than :data:`MIN_SEARCH_TERMS`. Recall is kept: a token in > 20 % of
the documents has a BM25 IDF below ln 4 ~ 1.4 (a token in 10 of 100k documents: ~9), so it
barely moves the order, and every document matching a kept (rarer) token is still found; a
query made only of common tokens keeps its rarest ones. Measured on the 100k benchmark
(scripts/bench/agent_memory.py, whose vocabulary is coarse: every token is in >= 4 % of the
documents): 99.0 % of the pruned top-10 and 99.8 % of the top-50 are in the unpruned top
(ties counted); a 5 % cut-off kept only 61 % / 84 %, so it was rejected. Collections below
:data:`PRUNE_MIN_DOCS` documents are searched with every token (cheap, and document
frequencies in tiny collections are too noisy to call a token "common"). The document
count is cached per connection until SQLite's ``data_version`` (or our own write) says
the file changed (counting 100k rows costs ~9 ms).
"""

from __future__ import annotations

import _thread
import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # collections and pathlib stay off the every-prompt hook's path
    from collections.abc import Iterable, Sequence
    from pathlib import Path

try:  # the C module itself: the sqlite3 package adds datetime adapters (and ~2 ms of imports
    import _sqlite3 as sqlite3  # per hook process) that this index never uses
except ImportError:  # pragma: no cover - an interpreter without the private module name
    import sqlite3  # type: ignore[no-redef]

from kioku.infra.fsutil import ensure_private_dir
from kioku.retrieval.text import tokenize

_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (tid INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    rid INTEGER PRIMARY KEY AUTOINCREMENT,
    tid INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    UNIQUE (tid, doc_id)
);
CREATE TABLE IF NOT EXISTS kioku_meta (key TEXT PRIMARY KEY, value TEXT);
"""


MAX_QUERY_TERMS = 128  # a pasted task description should not turn into a 2,000-term OR
MAX_SEARCH_TERMS = 8  # rarest distinct tokens actually searched (see "Query pruning")
MIN_SEARCH_TERMS = 3  # common tokens are kept while fewer than this many rarer ones remain
MAX_DF_RATIO = 0.2  # a token in more than 20 % of the documents is "common"
PRUNE_MIN_DOCS = 1000


def query_tokens(text: str) -> list[str]:
    """Distinct tokens of ``text`` in order of first appearance (at most MAX_QUERY_TERMS)."""
    seen: dict[str, None] = {}
    for token in tokenize(text):
        seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


def match_expr(terms: Sequence[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_query(text: str) -> str:
    """FTS5 MATCH expression: the distinct tokens of ``text`` quoted and OR-ed ('' if none)."""
    return match_expr(query_tokens(text))


def prune_terms(dfs: dict[str, int], n_docs: int, max_terms: int = MAX_SEARCH_TERMS,
                min_terms: int = MIN_SEARCH_TERMS, max_df_ratio: float = MAX_DF_RATIO) -> list[str]:
    """The query tokens worth searching, rarest first, given each token's document frequency.

    Tokens with df 0 cannot match and are dropped; of the rest the ``max_terms`` rarest are
    kept (ties: query order), and among those the ones in more than ``max_df_ratio`` of
    ``n_docs`` documents are dropped while at least ``min_terms`` tokens remain.
    """
    order = {t: i for i, t in enumerate(dfs)}
    present = sorted((t for t, df in dfs.items() if df > 0), key=lambda t: (dfs[t], order[t]))
    kept = present[:max_terms]
    limit = max_df_ratio * max(n_docs, 1)
    rare = [t for t in kept if dfs[t] <= limit]
    return rare if len(rare) >= min_terms else kept[:max(min_terms, len(rare))]


class LexicalIndex:
    def __init__(self, db_path: Path | str) -> None:
        self.db_path = os.fspath(db_path)
        self._conn: sqlite3.Connection | None = None
        self._lock = _thread.RLock()  # the _thread primitive: importing threading costs the hooks ~1.5 ms
        self._n_docs: dict[int, int] = {}  # tid -> document count, valid for _n_docs_version
        self._n_docs_version: int | None = None
        self.recreated = False  # the file was not a database: set aside and made anew
        self.set_aside = ""  # where it went

    # -- connection -------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self._conn = self._open()
            except sqlite3.OperationalError:
                raise  # locked, busy, out of space: not damage
            except sqlite3.DatabaseError:
                # Not a database (garbage, a cut file): the index only mirrors the store, so the
                # file is set aside and a new one made; ``recreated`` tells the owner to refill it.
                self.set_aside = self._move_aside()
                self.recreated = True
                self._conn = self._open()
                self._conn.execute("INSERT OR REPLACE INTO kioku_meta VALUES ('needs_refill', '1')")
        return self._conn

    def needs_refill(self) -> bool:
        """Whether this index was made anew in place of a damaged one and not refilled yet
        (kept in the file, so a process that did not see the damage knows too)."""
        with self._lock:
            row = self._connect().execute("SELECT value FROM kioku_meta WHERE key = 'needs_refill'").fetchone()
        return row is not None

    def mark_refilled(self) -> None:
        with self._lock:
            self._connect().execute("DELETE FROM kioku_meta WHERE key = 'needs_refill'")

    def _open(self) -> sqlite3.Connection:
        ensure_private_dir(os.path.dirname(self.db_path) or ".")
        if not os.path.exists(self.db_path):
            fd = os.open(self.db_path, os.O_CREAT | os.O_RDWR, 0o600)
            os.close(fd)
        conn = sqlite3.connect(self.db_path, timeout=30.0, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:
                pass  # e.g. a file system without shared memory: rollback journal still works
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(_SCHEMA)
        except BaseException:
            conn.close()
            raise
        return conn

    def _move_aside(self) -> str:
        """Rename the damaged file (and its WAL and shared-memory files) to ``<name>.broken-<time>``."""
        from kioku.infra import clock

        aside = f"{self.db_path}.broken-{clock.compact_z()}-{os.getpid()}"
        for suffix in ("", "-wal", "-shm"):
            try:
                os.replace(self.db_path + suffix, aside + suffix)
            except FileNotFoundError:
                pass
        return aside

    def close(self) -> None:
        with self._lock:
            self._n_docs.clear()
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "LexicalIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self):
        """Context manager for one IMMEDIATE transaction (commit on success, rollback on error)."""
        index = self

        class _Tx:
            def __enter__(self_inner) -> sqlite3.Connection:
                index._lock.acquire()
                conn = index._connect()
                conn.execute("BEGIN IMMEDIATE")
                self_inner.conn = conn
                return conn

            def __exit__(self_inner, exc_type, exc, tb) -> None:
                try:
                    index._n_docs.clear()  # our own commits do not change data_version
                    self_inner.conn.execute("ROLLBACK" if exc_type else "COMMIT")
                finally:
                    index._lock.release()

        return _Tx()

    @staticmethod
    def _tid(conn: sqlite3.Connection, collection: str, create: bool) -> int | None:
        row = conn.execute("SELECT tid FROM collections WHERE name = ?", (collection,)).fetchone()
        if row is not None:
            return int(row[0])
        if not create:
            return None
        cur = conn.execute("INSERT INTO collections (name) VALUES (?)", (collection,))
        tid = int(cur.lastrowid)
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS fts_{tid} USING fts5(body, tokenize='ascii')")
        return tid

    # -- writes -----------------------------------------------------------------------
    def upsert(self, collection: str, items: Iterable[tuple[str, str]]) -> None:
        items = list(items)
        if not items:
            return
        with self._write() as conn:
            tid = self._tid(conn, collection, create=True)
            self._upsert_bodies(conn, tid, [(str(i), " ".join(tokenize(t or ""))) for i, t in items])

    @staticmethod
    def _upsert_bodies(conn: sqlite3.Connection, tid: int, rows: Sequence[tuple[str, str]]) -> None:
        for doc_id, body in rows:
            row = conn.execute("SELECT rid FROM docs WHERE tid = ? AND doc_id = ?", (tid, doc_id)).fetchone()
            if row is None:
                rid = int(conn.execute("INSERT INTO docs (tid, doc_id) VALUES (?, ?)", (tid, doc_id)).lastrowid)
            else:
                rid = int(row[0])
                conn.execute(f"DELETE FROM fts_{tid} WHERE rowid = ?", (rid,))
            conn.execute(f"INSERT INTO fts_{tid} (rowid, body) VALUES (?, ?)", (rid, body))

    def delete(self, collection: str, ids: Iterable[str]) -> None:
        ids = [str(i) for i in ids]
        if not ids:
            return
        with self._write() as conn:
            tid = self._tid(conn, collection, create=False)
            if tid is None:
                return
            for doc_id in ids:
                row = conn.execute("SELECT rid FROM docs WHERE tid = ? AND doc_id = ?", (tid, doc_id)).fetchone()
                if row is not None:
                    conn.execute(f"DELETE FROM fts_{tid} WHERE rowid = ?", (row[0],))
                    conn.execute("DELETE FROM docs WHERE rid = ?", (row[0],))

    def drop(self, collection: str) -> None:
        with self._write() as conn:
            tid = self._tid(conn, collection, create=False)
            if tid is None:
                return
            conn.execute(f"DROP TABLE IF EXISTS fts_{tid}")
            conn.execute("DELETE FROM docs WHERE tid = ?", (tid,))
            conn.execute("DELETE FROM collections WHERE tid = ?", (tid,))

    def copy(self, src_collection: str, dst_collection: str) -> None:
        if src_collection == dst_collection:
            return
        with self._write() as conn:
            src = self._tid(conn, src_collection, create=False)
            if src is None:
                return
            rows = conn.execute(
                f"SELECT d.doc_id, f.body FROM docs d JOIN fts_{src} f ON f.rowid = d.rid WHERE d.tid = ?",
                (src,),
            ).fetchall()
            dst = self._tid(conn, dst_collection, create=True)
            self._upsert_bodies(conn, dst, rows)

    # -- reads ------------------------------------------------------------------------
    def search(self, collection: str, query: str, k: int = 10) -> list[tuple[str, float]]:
        terms = query_tokens(query)
        if not terms or k <= 0:
            return []
        with self._lock:
            conn = self._connect()
            tid = self._tid(conn, collection, create=False)
            if tid is None:
                return []
            try:
                terms = self._prune(conn, tid, terms)
                if not terms:
                    return []
                rows = self._match(conn, tid, match_expr(terms), k)
            except sqlite3.OperationalError as exc:
                if "no such" not in str(exc):  # "no such table" / "no such fts5 table"
                    raise
                return []  # dropped by another process between the lookup and the query
        return [(doc_id, -float(score)) for doc_id, score in rows]

    def document_tokens(self, collection: str, doc_ids: Sequence[str]) -> dict[str, set[str]]:
        """The distinct tokens of each of ``doc_ids`` (missing documents are left out)."""
        if not doc_ids:
            return {}
        with self._lock:
            conn = self._connect()
            tid = self._tid(conn, collection, create=False)
            if tid is None:
                return {}
            out: dict[str, set[str]] = {}
            for start in range(0, len(doc_ids), 500):  # SQLite's limit on bound parameters
                chunk = list(doc_ids[start:start + 500])
                marks = ",".join("?" * len(chunk))
                try:
                    rows = conn.execute(f"SELECT d.doc_id, f.body FROM docs d JOIN fts_{tid} f ON f.rowid = d.rid"
                                        f" WHERE d.tid = ? AND d.doc_id IN ({marks})", (tid, *chunk)).fetchall()
                except sqlite3.OperationalError as exc:
                    if "no such" not in str(exc):
                        raise
                    return {}  # dropped by another process between the lookup and the query
                for doc_id, body in rows:
                    out[doc_id] = set(body.split())
        return out

    def search_terms(self, collection: str, query: str) -> list[str]:
        """The tokens :meth:`search` would actually look up for ``query`` (after pruning)."""
        terms = query_tokens(query)
        with self._lock:
            conn = self._connect()
            tid = self._tid(conn, collection, create=False)
            return [] if tid is None or not terms else self._prune(conn, tid, terms)

    def _prune(self, conn: sqlite3.Connection, tid: int, terms: list[str]) -> list[str]:
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._n_docs_version:  # another connection committed since we counted
            self._n_docs.clear()
            self._n_docs_version = version
        n_docs = self._n_docs.get(tid)
        if n_docs is None:
            n_docs = int(conn.execute("SELECT COUNT(*) FROM docs WHERE tid = ?", (tid,)).fetchone()[0])
            self._n_docs[tid] = n_docs
        if n_docs < PRUNE_MIN_DOCS:
            return terms
        # temp schema: creating it writes nothing to the shared file (readers stay readers)
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_{tid} USING fts5vocab(main, fts_{tid}, 'row')")
        dfs: dict[str, int] = {}
        for term in terms:  # one seek each; `term IN (...)` would scan the whole vocabulary
            row = conn.execute(f"SELECT doc FROM temp.vocab_{tid} WHERE term = ?", (term,)).fetchone()
            dfs[term] = int(row[0]) if row else 0
        return prune_terms(dfs, n_docs)

    @staticmethod
    def _match(conn: sqlite3.Connection, tid: int, match: str, k: int) -> list[tuple[str, float]]:
        # Inner query first so FTS5 can use its ORDER BY rank LIMIT optimisation.
        return conn.execute(
            f"SELECT d.doc_id, m.score FROM (SELECT rowid AS rid, bm25(fts_{tid}) AS score"
            f" FROM fts_{tid} WHERE fts_{tid} MATCH ? ORDER BY rank LIMIT ?) m"
            f" JOIN docs d ON d.rid = m.rid ORDER BY m.score",
            (match, int(k)),
        ).fetchall()

    def count(self, collection: str) -> int:
        with self._lock:
            conn = self._connect()
            tid = self._tid(conn, collection, create=False)
            if tid is None:
                return 0
            return int(conn.execute("SELECT COUNT(*) FROM docs WHERE tid = ?", (tid,)).fetchone()[0])

    def collections(self) -> list[str]:
        with self._lock:
            conn = self._connect()
            return [r[0] for r in conn.execute("SELECT name FROM collections ORDER BY name")]
