"""Atomic, private, locked file writes (standard library only).

Every write Kioku makes goes through here: a temporary file in the same folder,
fsync, ``os.replace``; folders 0700 and files 0600 because memories are personal.
``exclusive_lock`` serialises writers across processes (several Claude Code
sessions run at once) with ``fcntl.flock`` on a sidecar lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on every hook that writes
    from typing import Iterator

DIR_MODE = 0o700
FILE_MODE = 0o600


class LockTimeout(TimeoutError):
    """Another process held the lock for longer than we were willing to wait."""


def ensure_private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o777 != DIR_MODE:
            path.chmod(DIR_MODE)
    return path


def atomic_write_bytes(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Private write: the parent folder is made 0700 (memory and state folders)."""
    ensure_private_dir(path.parent)
    replace_file_bytes(path, data, mode)


def replace_file_bytes(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Temp file + fsync + rename with ``mode``, leaving an existing parent folder's mode alone.

    For files in folders Kioku does not own (a user's settings.json, ``.claude/agents``), whose
    permissions are the user's business; a missing parent is still created private.
    """
    if not path.parent.exists():
        ensure_private_dir(path.parent)
    # O_EXCL on a random name instead of tempfile.mkstemp: tempfile drags shutil and
    # random into every hook process, which costs more than the write itself
    tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, mode: int = FILE_MODE) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def append_line_durable(path: Path, line: str) -> None:
    """Append one line and fsync it (journals). Caller holds the lock."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def exclusive_lock(lock_path: Path, timeout: float = 30.0, shared: bool = False) -> Iterator[None]:
    """Hold an flock on ``lock_path`` (created 0600) for the duration of the block."""
    ensure_private_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    kind = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    deadline = time.monotonic() + timeout
    delay = 0.002
    try:
        while True:
            try:
                fcntl.flock(fd, kind | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(f"timed out after {timeout:.0f}s waiting for lock {lock_path.name}")
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)  # closing releases the flock


@contextlib.contextmanager
def try_lock(lock_path: Path) -> Iterator[bool]:
    """Non-blocking exclusive lock; yields whether it was obtained."""
    ensure_private_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            got = True
        except BlockingIOError:
            got = False
        yield got
    finally:
        os.close(fd)


def prune_old_files(folder: Path, suffixes: tuple[str, ...], max_age_days: float) -> int:
    """Delete files in ``folder`` ending in ``suffixes`` untouched for ``max_age_days``."""
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for item in entries:
        try:
            if item.name.endswith(suffixes) and item.stat().st_mtime < cutoff:
                os.unlink(item.path)
                removed += 1
        except OSError:
            continue
    return removed
