"""ChromaDB in a child process that can be killed (the parent side; the child is ``chroma_server``).

Why a child process: a Chroma call can block for ever. On a disk with a few hundred KiB free,
after an ``upsert`` failed with "database or disk is full", the next ``upsert``, ``get`` or
``query`` of the same client never returned, and during a stuck ``upsert`` the call held the
GIL, so no thread of the process could even notice the time (docs/security.md has the
measurements). So every Chroma call is sent over a pipe to one child process per Kioku process
(started on first use, serving every store location), and the caller waits at most
:func:`call_timeout` seconds for the answer. On time-out the child is killed (its Chroma state
dies with it: what was being written stays pending in the store's journal) and
:class:`ChromaTimeout` is raised; for :data:`COOLDOWN_S` seconds after that, calls fail at once
instead of waiting again, then a new child is started.

Protocol: frames of a 4-byte big-endian length and a pickle, on two pipes the child inherits
(never its stdout, which it points at stderr so nothing Chroma prints can reach the protocol or
the parent's output). A request is ``(op, args)``; an answer ``("ok", value)`` or ``("err",
exception type name, message, not_found)``, re-raised in the parent as a :class:`ChromaError`
subclass of the same name. Values are plain dicts, lists, tuples and numpy arrays. The child
exits when the pipe closes (its parent ended) and, on Linux, is killed with its parent.

The parent-side objects mirror the chromadb API the store uses (:class:`Client`,
:class:`Collection`), so the apply, recovery and reachability code reads as if it held real
Chroma objects. Embeddings are always computed by Kioku and passed explicitly. This module never
imports chromadb (``kioku.lessons.store.chroma_server`` does, in the child).
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

DEFAULT_CALL_TIMEOUT_S = 30.0
START_TIMEOUT_S = 120.0  # importing chromadb on a cold, busy machine takes seconds
COOLDOWN_S = 60.0
HEADER = struct.Struct(">I")


def call_timeout() -> float:
    """Seconds one Chroma call may take (``KIOKU_STORE_TIMEOUT``, default 30)."""
    try:
        value = float(os.environ.get("KIOKU_STORE_TIMEOUT", "") or DEFAULT_CALL_TIMEOUT_S)
    except ValueError:
        return DEFAULT_CALL_TIMEOUT_S
    return value if value > 0 else DEFAULT_CALL_TIMEOUT_S


class ChromaError(Exception):
    """An exception raised by chromadb in the child; the subclass carries the original name."""

    not_found = False


class ChromaTimeout(ChromaError):
    """Chroma did not answer in time; the child process was killed."""


class ChromaCrashed(ChromaError):
    """The child process died while answering (killed from outside, or out of memory)."""


_ERROR_TYPES: dict[tuple[str, bool], type] = {}


def _error(name: str, message: str, not_found: bool) -> ChromaError:
    """The child's exception as a :class:`ChromaError` of the same name (and, for a built-in
    exception such as ``ImportError`` or ``ValueError``, an instance of that too)."""
    key = (name, not_found)
    cls = _ERROR_TYPES.get(key)
    if cls is None:
        import builtins

        builtin = getattr(builtins, name, None)
        bases: tuple[type, ...] = (ChromaError,)
        if isinstance(builtin, type) and issubclass(builtin, Exception) and builtin is not Exception:
            bases = (ChromaError, builtin)
        try:
            cls = type(name if name.isidentifier() else "ChromaError", bases, {"not_found": not_found})
        except TypeError:  # a built-in whose layout cannot be combined
            cls = type(name if name.isidentifier() else "ChromaError", (ChromaError,), {"not_found": not_found})
        _ERROR_TYPES[key] = cls
    return cls(message)


# --- the parent side ---------------------------------------------------------------------


def _wait(fd: int, event: int, deadline: float | None) -> bool:
    """Whether ``fd`` is ready for ``event`` before ``deadline`` (poll: any fd number works)."""
    poller = select.poll()
    poller.register(fd, event | select.POLLHUP | select.POLLERR)
    left = None if deadline is None else max(0.0, deadline - time.monotonic())
    return bool(poller.poll(None if left is None else int(left * 1000) + 1))


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        if time.monotonic() >= deadline:
            raise TimeoutError
        if _wait(fd, select.POLLOUT, deadline):
            view = view[os.write(fd, view[: 1 << 16]):]


def read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    while size:
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError
        if not _wait(fd, select.POLLIN, deadline):
            continue
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


_SPAWNER: tuple[int, "queue.Queue[tuple[Any, dict, threading.Event]]"] | None = None
_SPAWNER_LOCK = threading.Lock()


def _in_spawner_thread(start: Any) -> Any:
    """Run ``start`` in one thread that lives as long as this process. Linux kills the child when
    the thread that started it ends (PR_SET_PDEATHSIG follows the thread, not the process), and a
    web server's request threads end after each request."""
    global _SPAWNER
    import queue

    with _SPAWNER_LOCK:
        if _SPAWNER is None or _SPAWNER[0] != os.getpid():
            jobs: queue.Queue[tuple[Any, dict, threading.Event]] = queue.Queue()

            def loop() -> None:
                while True:
                    fn, box, done = jobs.get()
                    try:
                        box["value"] = fn()
                    except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                        box["error"] = exc
                    done.set()

            threading.Thread(target=loop, name="kioku-chroma-spawner", daemon=True).start()
            _SPAWNER = (os.getpid(), jobs)
        jobs = _SPAWNER[1]
    box: dict = {}
    done = threading.Event()
    jobs.put((start, box, done))
    done.wait()
    if "error" in box:
        raise box["error"]
    return box["value"]


class ChromaProcess:
    """The child that runs every Chroma call of this process (one per process, see :func:`process`)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._send = -1
        self._recv = -1
        self._owner = os.getpid()
        self._down_until = 0.0
        self._down_reason = ""
        self._ready = False
        self.generation = 0  # counts child processes: a new child has no clients open

    def _spawn(self) -> None:
        """Start the child without waiting for it (it imports chromadb, which takes a while)."""
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            proc = _in_spawner_thread(lambda: subprocess.Popen(
                [sys.executable, "-m", "kioku.lessons.store.chroma_server", str(to_child_r), str(from_child_w)],
                pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, env=env, start_new_session=True))
        except BaseException:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            raise
        os.close(to_child_r)
        os.close(from_child_w)
        os.set_blocking(to_child_w, False)
        self._proc, self._send, self._recv = proc, to_child_w, from_child_r
        self._ready = False
        self.generation += 1

    def _await_ready(self) -> None:
        try:
            status = self._answer(time.monotonic() + START_TIMEOUT_S)
        except (TimeoutError, EOFError, OSError) as exc:
            self._kill()
            raise ChromaCrashed(f"the Chroma process did not start ({type(exc).__name__})") from None
        if status[0] != "ok":
            self._kill()
            raise _error(status[1], status[2], status[3])
        self._ready = True

    def start_soon(self) -> None:
        """Start the child now, so that it imports chromadb while this process does other work."""
        with self._lock:
            if self._owner == os.getpid() and not self.alive() and time.monotonic() >= self._down_until:
                self._kill()
                try:
                    self._spawn()
                except OSError:
                    pass  # the first call tries again and reports

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        for fd in (self._send, self._recv):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._send = self._recv = -1
        if proc is not None and proc.poll() is None:
            try:
                proc.kill()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass

    def _answer(self, deadline: float) -> tuple:
        size = HEADER.unpack(read_exact(self._recv, HEADER.size, deadline))[0]
        return pickle.loads(read_exact(self._recv, size, deadline))

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and self._owner == os.getpid()

    def call(self, op: str, *args: Any, timeout: float | None = None) -> Any:
        """Run ``op`` in the child; its result, or the child's exception re-raised here."""
        with self._lock:
            if self._owner != os.getpid():  # a forked copy: the pipes belong to the parent
                self._proc, self._send, self._recv = None, -1, -1
                self._owner = os.getpid()
            now = time.monotonic()
            if now < self._down_until:
                raise ChromaTimeout(f"{self._down_reason}; Chroma is not asked again for "
                                    f"{self._down_until - now:.0f} s")
            if not self.alive():
                self._kill()
                self._spawn()
            if not self._ready:
                self._await_ready()
            limit = call_timeout() if timeout is None else timeout
            deadline = time.monotonic() + limit
            payload = pickle.dumps((op, args), protocol=pickle.HIGHEST_PROTOCOL)
            try:
                _write_all(self._send, HEADER.pack(len(payload)) + payload, deadline)
                status = self._answer(deadline)
            except TimeoutError:
                self._kill()
                self._down_reason = f"Chroma did not answer a {op!r} call within {limit:g} s and was stopped"
                self._down_until = time.monotonic() + COOLDOWN_S
                raise ChromaTimeout(self._down_reason) from None
            except (EOFError, OSError) as exc:
                self._kill()
                raise ChromaCrashed(f"the Chroma process ended during a {op!r} call "
                                    f"({type(exc).__name__})") from None
        if status[0] == "ok":
            return status[1]
        raise _error(status[1], status[2], status[3])

    def stop(self) -> None:
        with self._lock:
            self._kill()

    def reset(self) -> None:
        """Stop the child and forget a time-out (tests, and a caller that freed the disk)."""
        with self._lock:
            self._kill()
            self._down_until = 0.0


_PROCESS: ChromaProcess | None = None
_PROCESS_LOCK = threading.Lock()


def process() -> ChromaProcess:
    global _PROCESS
    with _PROCESS_LOCK:
        if _PROCESS is None:
            _PROCESS = ChromaProcess()
        return _PROCESS


class CollectionInfo:
    """A collection as ``list_collections`` names it."""

    __slots__ = ("name", "metadata")

    def __init__(self, name: str, metadata: dict | None) -> None:
        self.name, self.metadata = name, metadata


class Collection:
    """A Chroma collection reached through the child process (the chromadb methods Kioku uses)."""

    def __init__(self, client: "Client", name: str, metadata: dict | None) -> None:
        self.client, self.name, self.metadata = client, name, metadata

    def _call(self, method: str, **kwargs: Any) -> Any:
        return self.client.call("col", self.name, method, kwargs)

    def get(self, **kwargs: Any) -> dict:
        return self._call("get", **kwargs)

    def query(self, **kwargs: Any) -> dict:
        return self._call("query", **kwargs)

    def upsert(self, **kwargs: Any) -> None:
        self._call("upsert", **kwargs)

    def update(self, **kwargs: Any) -> None:
        self._call("update", **kwargs)

    def delete(self, **kwargs: Any) -> None:
        self._call("delete", **kwargs)

    def count(self) -> int:
        return int(self._call("count"))


class Client:
    """One chromadb client (a local folder or a server) open in the child process."""

    def __init__(self, key: tuple, generation: int) -> None:
        self.key, self.generation = key, generation

    def call(self, op: str, *args: Any) -> Any:
        proc = process()
        if proc.generation != self.generation or not proc.alive():
            raise ChromaCrashed("the Chroma process was restarted; the client is reopened")
        return proc.call(op, self.key, *args)

    def list_collections(self) -> list[CollectionInfo]:
        return [CollectionInfo(name, meta) for name, meta in self.call("list")]

    def get_collection(self, name: str) -> Collection:
        return Collection(self, name, self.call("get_collection", name))

    def get_or_create_collection(self, name: str, metadata: dict) -> Collection:
        return Collection(self, name, self.call("get_or_create", name, metadata))

    def delete_collection(self, name: str) -> None:
        self.call("delete_collection", name)

    def close(self) -> None:
        proc = process()
        if proc.alive() and proc.generation == self.generation:
            proc.call("close", self.key)


def open_client(path: Path | None = None, *, host: str | None = None, port: int | None = None) -> Client:
    """Open a client in the child: a server (``host``/``port``) or the local store in ``path``."""
    key = ("http", host, port) if host else ("path", str(path))
    proc = process()
    proc.call("open", key)
    return Client(key, proc.generation)


def forget_path(path: Path) -> None:
    """Drop what the child caches for a store folder (after its files were moved aside)."""
    proc = process()
    if proc.alive():
        proc.call("forget", str(path))
