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
        # A symlinked folder is not ours to tighten: chmod would change the link's target.
        if not path.is_symlink() and path.stat().st_mode & 0o777 != DIR_MODE:
            path.chmod(DIR_MODE)
    return path


def first_symlink(base: Path, path: Path) -> Path | None:
    """The first of ``path`` and its ancestors below ``base`` that is a symbolic link, or None.

    ``base`` itself and the folders above it are not checked: a home folder or a checkout
    reached through a link is normal; a link inside the memory layout is not."""
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        parts = (path.name,)
        base = path.parent
    current = base
    for part in parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


def refuse_symlink(base: Path, path: Path, what: str = "memory") -> None:
    """Raise ``SymlinkRefused`` (one line naming the link) if ``first_symlink`` finds one."""
    link = first_symlink(base, path)
    if link is None:
        return
    from kioku.core.errors import SymlinkRefused

    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    raise SymlinkRefused(f"refusing to use {link}: it is a symbolic link (to {target}); Kioku never "
                         f"follows links for {what} files or folders; nothing was written")


TMP_SUFFIX = ".tmp"


def orphan_temp_files(folder: Path) -> list[Path]:
    """Temporary files ``replace_file_bytes`` left in ``folder`` when a process died mid-write
    (``.<name>.<12 hex>.tmp``)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if name.startswith(".") and name.endswith(TMP_SUFFIX):
            stem = name[1:-len(TMP_SUFFIX)]
            _, _, token = stem.rpartition(".")
            if len(token) == 12 and all(c in "0123456789abcdef" for c in token):
                found.append(folder / name)
    return sorted(found)


def remove_orphan_temp_files(folder: Path) -> int:
    """Delete ``orphan_temp_files(folder)``. Call it only while holding the folder's write
    lock, when no other writer can have a temporary file in flight."""
    removed = 0
    for path in orphan_temp_files(folder):
        with contextlib.suppress(OSError):
            if not path.is_symlink():
                path.unlink()
                removed += 1
    return removed


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
