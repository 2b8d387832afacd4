"""The child side of ``kioku.lessons.store.chroma_process``: the one module that imports chromadb.

Run as ``python -m kioku.lessons.store.chroma_server RECV_FD SEND_FD`` by the parent process: it
imports chromadb (inside functions: importing this module costs nothing), registers Kioku's
embedding function (``kioku_minilm``, cosine; Chroma's downloading default embedding function is
never reached), answers one request at a time on the pipes (``chroma_process`` describes the
protocol) and exits when its parent closes them or ends (on Linux the kernel kills it then).
Everything printed goes to stderr, never into the protocol or the parent's stdout.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
import time
from typing import Any

from kioku.lessons.store.chroma_process import HEADER, read_exact

EF_NAME = "kioku_minilm"

_EF_CLASS: Any = None
_IMPORT_LOCK = threading.Lock()


def load_chromadb() -> Any:
    """Import chromadb and register Kioku's embedding function (once per process). The child
    calls it; tests that inspect a store with raw chromadb call it too."""
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


def _open_persistent(chromadb: Any, path: str, timeout: float = 20.0) -> Any:
    """PersistentClient(path), retrying while another process holds SQLite's write lock.

    Opening runs Chroma's migrations, which take SQLite's write lock: two processes
    opening a new store at once fail with "database is locked". Default Settings: every client
    opened on one path in a process must use identical settings.
    """
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        try:
            return chromadb.PersistentClient(path=path)
        except Exception as exc:  # noqa: BLE001
            _forget_system(path)  # the failed System stays cached under the path: the next open would get it
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def _forget_system(path: str) -> None:
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient._identifier_to_system.pop(path, None)


class _Server:
    """The child's state: open clients and collections by store key."""

    def __init__(self) -> None:
        self.chromadb = load_chromadb()
        self.clients: dict[tuple, Any] = {}
        self.cols: dict[tuple, Any] = {}

    def client(self, key: tuple) -> Any:
        client = self.clients.get(key)
        if client is None:
            raise RuntimeError(f"no Chroma client open for {key!r}")
        return client

    def col(self, key: tuple, name: str) -> Any:
        col = self.cols.get((key, name))
        if col is None:
            col = self.client(key).get_collection(name, embedding_function=_EF_CLASS())
            if key[0] == "path":  # a server's collections may be dropped by other machines
                self.cols[(key, name)] = col
        return col

    def handle(self, op: str, args: tuple) -> Any:
        if op == "ping":
            return "pong"
        if op == "forget":
            _forget_system(args[0])
            return None
        key = args[0]
        if op == "open":
            self.close(key)
            if key[0] == "http":
                self.clients[key] = self.chromadb.HttpClient(host=key[1], port=key[2])
            else:
                self.clients[key] = _open_persistent(self.chromadb, key[1])
            return None
        if op == "close":
            self.close(key)
            return None
        client = self.client(key)
        if op == "list":
            return [(c.name, dict(c.metadata or {})) for c in client.list_collections()]
        if op == "get_collection":
            col = self.col(key, args[1])
            return dict(col.metadata or {})
        if op == "get_or_create":
            col = client.get_or_create_collection(args[1], metadata=args[2], configuration={"hnsw": {"space": "cosine"}},
                                                  embedding_function=_EF_CLASS())
            if key[0] == "path":
                self.cols[(key, args[1])] = col
            return dict(col.metadata or {})
        if op == "delete_collection":
            self.cols.pop((key, args[1]), None)
            client.delete_collection(args[1])
            return None
        if op == "col":
            _name, method, kwargs = args[1], args[2], args[3]
            try:
                result = getattr(self.col(key, _name), method)(**kwargs)
            except Exception:
                self.cols.pop((key, _name), None)  # a dropped or broken collection is fetched again
                raise
            return dict(result) if isinstance(result, dict) else result
        raise ValueError(f"unknown Chroma process call {op!r}")

    def close(self, key: tuple) -> None:
        for col_key in [k for k in self.cols if k[0] == key]:
            self.cols.pop(col_key, None)
        client = self.clients.pop(key, None)
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - a dead client must not block reopening
                pass


def _is_not_found(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in {"NotFoundError", "InvalidCollectionException"} or (
        isinstance(exc, ValueError) and "does not exist" in str(exc))


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when its parent ends (PR_SET_PDEATHSIG); elsewhere
    the closed pipe ends the loop, once a stuck call returns."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _send_frame(fd: int, value: tuple) -> None:
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an answer that cannot be pickled is an error answer
        data = pickle.dumps(("err", type(exc).__name__, str(exc)[:2000], False))
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def serve(recv: int, send: int) -> None:
    """The child's loop: answer requests until the parent closes the pipe."""
    os.dup2(2, 1)  # anything printed goes to stderr, never into a protocol or the parent's stdout
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:
        os._exit(0)
    try:
        server = _Server()
        status: tuple = ("ok", None)
    except Exception as exc:  # noqa: BLE001 - chromadb missing or broken: say so once
        server, status = None, ("err", type(exc).__name__, str(exc)[:2000], False)
    try:
        _send_frame(send, status)
    except OSError:
        os._exit(0)  # the parent ended without needing Chroma
    if server is None:
        os._exit(0)
    while True:
        try:
            size = HEADER.unpack(read_exact(recv, HEADER.size, None))[0]
            op, args = pickle.loads(read_exact(recv, size, None))
        except (EOFError, OSError):
            os._exit(0)  # the parent is gone; chromadb's exit handlers are not waited for
        try:
            answer: tuple = ("ok", server.handle(op, args))
        except Exception as exc:  # noqa: BLE001 - every Chroma failure goes back to the caller
            answer = ("err", type(exc).__name__, str(exc)[:2000], _is_not_found(exc))
        try:
            _send_frame(send, answer)
        except OSError:
            os._exit(0)


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
