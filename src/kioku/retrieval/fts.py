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

Each collection gets its own FTS5 table so BM25 statistics (document frequencies, average
length) are per collection, like the Chroma collection it mirrors. A registry table maps
collection names to table numbers, and one map table maps (collection, id) to rowids.
Writes run in ``BEGIN IMMEDIATE`` transactions (atomic, serialised across processes);
WAL mode lets readers proceed during writes. The file is created 0600 in a 0700 folder.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Sequence

from kioku.core.fsutil import ensure_private_dir
from kioku.retrieval.text import tokenize

_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (tid INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    rid INTEGER PRIMARY KEY AUTOINCREMENT,
    tid INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    UNIQUE (tid, doc_id)
);
"""


MAX_QUERY_TERMS = 128  # a pasted task description should not turn into a 2,000-term OR


def fts_query(text: str) -> str:
    """FTS5 MATCH expression: the distinct tokens of ``text`` quoted and OR-ed ('' if none)."""
    seen: dict[str, None] = {}
    for token in tokenize(text):
        seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


class LexicalIndex:
    def __init__(self, db_path: Path | str) -> None:
        self.db_path = Path(db_path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    # -- connection -------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            ensure_private_dir(self.db_path.parent)
            if not self.db_path.exists():
                fd = os.open(self.db_path, os.O_CREAT | os.O_RDWR, 0o600)
                os.close(fd)
            conn = sqlite3.connect(str(self.db_path), timeout=30.0, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 30000")
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:
                pass  # e.g. a file system without shared memory: rollback journal still works
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(_SCHEMA)
            self._conn = conn
        return self._conn

    def close(self) -> None:
        with self._lock:
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
        match = fts_query(query)
        if not match or k <= 0:
            return []
        with self._lock:
            conn = self._connect()
            tid = self._tid(conn, collection, create=False)
            if tid is None:
                return []
            try:
                rows = self._match(conn, tid, match, k)
            except sqlite3.OperationalError as exc:
                if "no such table" not in str(exc):
                    raise
                return []  # dropped by another process between the lookup and the query
        return [(doc_id, -float(score)) for doc_id, score in rows]

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
