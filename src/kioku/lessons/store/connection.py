"""The Chroma client of each store location, shared by the stores of one process, kept current.

An embedded Chroma client caches the HNSW index in memory and never sees other processes'
vectors, and writing through such a stale client loses vectors. So :func:`connect` reopens a
store's client whenever the journal's applied sequence moved since the client last looked (or its
Chroma process was restarted), and a reader that is about to (re)load the index takes the store's
lock shared (:func:`reader_lock`): a reader loading the index while a writer flushed it failed
with "Error finding id". Readers wait at most :data:`READ_LOCK_WAIT` seconds for a writer.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from kioku.infra import fsutil
from kioku.infra.gitignore import make_data_folder
from kioku.lessons.store import chroma_process

if TYPE_CHECKING:  # pragma: no cover
    from kioku.lessons.store.client import AgentStore

log = logging.getLogger("kioku.lessons.store")
READ_LOCK_WAIT = 5.0


class Conn:
    """One Chroma client per store location per process, shared by AgentStores."""

    def __init__(self, client: chroma_process.Client, seen_seq: int) -> None:
        self.client = client
        self.seen_seq = seen_seq
        self.cols: dict[str, chroma_process.Collection] = {}

    def usable(self) -> bool:
        proc = chroma_process.process()
        return proc.alive() and proc.generation == self.client.generation


_CONNS: dict[tuple, Conn] = {}
_CONNS_LOCK = threading.RLock()


def connect(store: "AgentStore", *, fresh_check: bool = True) -> Conn:
    """The shared client of ``store``'s location, reopened if other processes applied writes since
    it looked (``fresh_check``) or its Chroma process is not the one it was opened in."""
    with _CONNS_LOCK:
        key = store._key()
        conn = _CONNS.get(key)
        applied = store.journal.applied_seq()
        if conn is not None and conn.usable() and (store.server or not fresh_check or conn.seen_seq == applied):
            return conn
        if conn is not None:
            _CONNS.pop(key, None)
            with contextlib.suppress(Exception):  # a dead client must not block reopening
                conn.client.close()
        if store.server:
            client = chroma_process.open_client(host=store.host, port=store.port)
        else:
            make_data_folder(store.chroma_dir)
            client = chroma_process.open_client(store.chroma_dir)
        conn = Conn(client, applied)
        _CONNS[key] = conn
        return conn


def disconnect(store: "AgentStore") -> None:
    """Close ``store``'s client; the next :func:`connect` opens a new one."""
    with _CONNS_LOCK:
        conn = _CONNS.pop(store._key(), None)
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.client.close()


def reader_lock(store: "AgentStore", attempt: int) -> Any:
    """The readers' lock, for a client that is about to (re)load the index (or a retry); a
    current client reads without it."""
    if store.server:
        return contextlib.nullcontext()
    with _CONNS_LOCK:
        conn = _CONNS.get(store._key())
        fresh = conn is not None and conn.usable() and conn.seen_seq == store.journal.applied_seq()
    if fresh and not attempt:
        return contextlib.nullcontext()
    return try_shared(store.journal.lock_path, READ_LOCK_WAIT)


@contextlib.contextmanager
def try_shared(lock_path: Path, wait: float) -> Iterator[bool]:
    """Shared flock for readers; yields whether it was obtained within ``wait`` seconds.

    Polls every 2 ms (writers back off up to 50 ms in fsutil.exclusive_lock), so a waiting
    reader usually gets the lock at the next hand-over instead of starving behind a
    queue of writers.
    """
    make_data_folder(lock_path.parent)
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
