"""Persistent sentence vectors keyed by content hash, so a memory is embedded once.

Contract::

    store = VectorStore(db_path)            # SQLite file, created 0600 in a 0700 folder
    store.embed(texts) -> np.ndarray (n, 384)   # stored vectors reused, missing ones embedded and stored
    store.count() -> int; store.close()
    default_store() -> VectorStore          # <kioku home>/state/memory-vectors.sqlite3, one per process

Why: ``kioku search`` used to embed every memory on every call (seconds at a few hundred
memories). The key is blake2b(model name + text), so the store never goes stale: a memory
saved, merged, forgotten or edited by hand has new text, hence a new key, and is embedded
once the next time it is searched; nothing has to be told about the change. Vectors nobody
asked for in :data:`KEEP_DAYS` days are deleted (at most one write per key and day records
use), so the file follows what the memory folders hold.

The store is derived data: if the file cannot be read (corrupt, locked for too long, read-only
folder), :meth:`embed` still returns correct vectors by embedding in memory, and a corrupt
file is moved aside (``.corrupt``) and rebuilt on the next call. A process keeps the vectors
it has read in memory, so repeated searches in one process read nothing from disk.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from kioku.infra.fsutil import ensure_private_dir
from kioku.infra import clock

if TYPE_CHECKING:
    import numpy as np

KEEP_DAYS = 60
_CHUNK = 500  # keys per SELECT (SQLite's default variable limit is 999 on old builds)
_SCHEMA = ("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL, "
           "used_day INTEGER NOT NULL) WITHOUT ROWID")


class VectorStore:
    def __init__(self, db_path: Path | str, model: str | None = None,
                 embed: Callable[[Sequence[str]], "np.ndarray"] | None = None) -> None:
        from kioku.retrieval.embedder import DIMENSION, MODEL_NAME

        self.db_path = Path(db_path)
        self.model = model or MODEL_NAME
        self.dimension = DIMENSION
        self._embed = embed
        self._memo: dict[bytes, "np.ndarray"] = {}
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pruned_day = 0

    def key(self, text: str) -> bytes:
        return hashlib.blake2b(f"{self.model}\n{text}".encode("utf-8"), digest_size=16).digest()

    # -- connection ------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            ensure_private_dir(self.db_path.parent)
            if not self.db_path.exists():
                os.close(os.open(self.db_path, os.O_CREAT | os.O_RDWR, 0o600))
            conn = sqlite3.connect(str(self.db_path), timeout=5.0, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA busy_timeout = 5000")
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                except sqlite3.OperationalError:
                    pass  # no shared memory on this file system: the rollback journal still works
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute(_SCHEMA)
            except Exception:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _set_aside(self) -> None:
        """Move a corrupt database out of the way; the next call starts a fresh one."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            path = Path(str(self.db_path) + suffix)
            try:
                if suffix:
                    path.unlink(missing_ok=True)
                elif path.exists():
                    path.replace(path.with_name(path.name + ".corrupt"))
            except OSError:
                pass

    # -- reads and writes ------------------------------------------------------------
    def _read(self, keys: list[bytes]) -> dict[bytes, bytes]:
        conn = self._connect()
        found: dict[bytes, bytes] = {}
        for start in range(0, len(keys), _CHUNK):
            part = keys[start:start + _CHUNK]
            marks = ",".join("?" * len(part))
            found.update(conn.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part).fetchall())
        return found

    def _write(self, rows: list[tuple[bytes, bytes]], used: list[bytes]) -> None:
        conn = self._connect()
        today = clock.epoch_day()
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR REPLACE INTO vectors (key, vec, used_day) VALUES (?, ?, ?)",
                             [(k, v, today) for k, v in rows])
            for start in range(0, len(used), _CHUNK):
                part = used[start:start + _CHUNK]
                marks = ",".join("?" * len(part))
                conn.execute(f"UPDATE vectors SET used_day = ? WHERE used_day < ? AND key IN ({marks})",
                             [today, today, *part])
            if self._pruned_day != today:
                conn.execute("DELETE FROM vectors WHERE used_day < ?", (today - KEEP_DAYS,))
                self._pruned_day = today

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """(n, dimension) float32 vectors for ``texts``, in order."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        keys = [self.key(t) for t in texts]
        with self._lock:
            wanted = list(dict.fromkeys(k for k in keys if k not in self._memo))
            stored: dict[bytes, bytes] = {}
            if wanted:
                try:
                    stored = self._read(wanted)
                except sqlite3.DatabaseError as exc:
                    if not isinstance(exc, sqlite3.OperationalError):
                        self._set_aside()  # not a database any more: rebuild from scratch
                    stored = {}
            for k, blob in stored.items():
                vec = np.frombuffer(blob, dtype=np.float32)
                if vec.shape == (self.dimension,):
                    self._memo[k] = vec
            missing = [k for k in wanted if k not in self._memo]
            if missing:
                first = {k: i for i, k in reversed(list(enumerate(keys)))}
                vectors = np.asarray(self._embedder()([texts[first[k]] for k in missing]), dtype=np.float32)
                for k, vec in zip(missing, vectors):
                    self._memo[k] = vec
            if missing or stored:
                try:
                    self._write([(k, self._memo[k].tobytes()) for k in missing], list(stored))
                except sqlite3.Error:
                    pass  # derived data: the vectors are still correct, only not kept
            return np.stack([self._memo[k] for k in keys])

    def _embedder(self) -> Callable[[Sequence[str]], "np.ndarray"]:
        if self._embed is None:
            from kioku.retrieval.embedder import get_embedder

            self._embed = get_embedder().embed
        return self._embed

    def count(self) -> int:
        with self._lock:
            return int(self._connect().execute("SELECT COUNT(*) FROM vectors").fetchone()[0])


_default: VectorStore | None = None
_default_path: Path | None = None
_default_lock = threading.Lock()


def default_path() -> Path:
    from kioku.infra import paths

    return paths.state_dir() / "memory-vectors.sqlite3"


def default_store() -> VectorStore:
    """The process's store at :func:`default_path` (re-opened when KIOKU_HOME changes)."""
    global _default, _default_path
    path = default_path()
    with _default_lock:
        if _default is None or _default_path != path:
            if _default is not None:
                _default.close()
            _default, _default_path = VectorStore(path), path
        return _default
