"""Atomic, private, locked file writes (standard library only).

Every write Kioku makes goes through here: a temporary file in the same folder,
fsync, ``os.replace``; folders 0700 and files 0600 because memories are personal.
``exclusive_lock`` serialises writers across processes (several Claude Code
sessions run at once) with ``fcntl.flock`` on a sidecar lock file.

Paths may be ``str`` or ``Path``: the hooks' every-prompt modules pass strings, so that
neither ``pathlib`` nor ``contextlib`` (each a few milliseconds of imports) is loaded there.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and pathlib cost milliseconds on every hook that writes
    from pathlib import Path
    from typing import Union

    AnyPath = Union[str, os.PathLike[str]]

DIR_MODE = 0o700
FILE_MODE = 0o600
FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)  # errno is built into the interpreter: no import cost


class LockTimeout(TimeoutError):
    """Another process held the lock for longer than we were willing to wait."""


# The longest any lock is waited for in this process, None for no cap. Hooks set it (see
# ``kioku.hooks.dispatch.run``): a session must not stall behind a process that holds a lock.
MAX_LOCK_WAIT: float | None = None


class NotRegularFile(OSError):
    """The path is a FIFO, a device, a socket or a folder: reading it could block or never end."""


def read_regular(path: AnyPath, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of the regular file ``path`` (one more than allowed, so a caller
    can tell a file that is too large). A symbolic link is not followed (``OSError``), a folder
    raises ``IsADirectoryError``, and anything else but a regular file raises
    :class:`NotRegularFile` without a blocking read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", os.fspath(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _parent(path: AnyPath) -> str:
    return os.path.dirname(os.fspath(path)) or "."


def ensure_private_dir(path: AnyPath) -> AnyPath:
    """Create ``path`` (and its parents) 0700 if missing, tighten it to 0700; returns ``path``."""
    os.makedirs(path, mode=DIR_MODE, exist_ok=True)
    try:
        # A symlinked folder is not ours to tighten: chmod would change the link's target.
        info = os.lstat(path)
        if not stat.S_ISLNK(info.st_mode) and info.st_mode & 0o777 != DIR_MODE:
            os.chmod(path, DIR_MODE)
    except OSError:
        pass
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
    from kioku.infra.errors import SymlinkRefused

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
        try:
            if not path.is_symlink():
                path.unlink()
                removed += 1
        except OSError:
            pass
    return removed


def atomic_write_bytes(path: AnyPath, data: bytes, mode: int = FILE_MODE) -> None:
    """Private write: the parent folder is made 0700 (memory and state folders)."""
    ensure_private_dir(_parent(path))
    replace_file_bytes(path, data, mode)


def replace_file_bytes(path: AnyPath, data: bytes, mode: int = FILE_MODE) -> None:
    """Temp file + fsync + rename with ``mode``, leaving an existing parent folder's mode alone.

    For files in folders Kioku does not own (a user's settings.json, ``.claude/agents``), whose
    permissions are the user's business; a missing parent is still created private.
    """
    parent = _parent(path)
    if not os.path.exists(parent):
        ensure_private_dir(parent)
    # O_EXCL on a random name instead of tempfile.mkstemp: tempfile drags shutil and
    # random into every hook process, which costs more than the write itself
    tmp = os.path.join(parent, f".{os.path.basename(os.fspath(path))}.{os.urandom(6).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except OSError as exc:
        _raise_if_full(exc, path)
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            _raise_if_full(exc, path)
        raise
    _fsync_dir(parent)


def _raise_if_full(exc: OSError, path: AnyPath) -> None:
    """A write that failed because the disk is full becomes ``DiskFull``: one line that names the
    folder and says the file was left as it was (writes are atomic, so nothing was lost)."""
    if exc.errno not in FULL_ERRNOS or type(exc).__name__ == "DiskFull":
        return
    from kioku.infra.errors import DiskFull

    folder = _parent(path)
    name = os.path.basename(os.fspath(path))
    outcome = f"{name} was left as it was" if os.path.exists(path) else f"{name} was not written"
    raise DiskFull(f"the disk holding {folder} is full; nothing was lost: {outcome}; free some space and try again",
                   folder=folder) from exc


def atomic_write_text(path: AnyPath, text: str, mode: int = FILE_MODE) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def append_line_durable(path: AnyPath, line: str) -> None:
    """Append one line and fsync it (journals). Caller holds the lock."""
    ensure_private_dir(_parent(path))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        _raise_if_full(exc, path)
        raise


def _fsync_dir(path: AnyPath) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class exclusive_lock:  # noqa: N801 - used like the function it replaces: ``with exclusive_lock(p):``
    """Hold an flock on ``lock_path`` (created 0600) for the duration of a ``with`` block.

    A class rather than a ``contextlib`` generator: ``contextlib`` and its imports cost the
    every-prompt hook a few milliseconds.
    """

    __slots__ = ("path", "timeout", "shared", "fd")

    def __init__(self, lock_path: AnyPath, timeout: float = 30.0, shared: bool = False) -> None:
        self.path, self.timeout, self.shared, self.fd = lock_path, timeout, shared, -1

    def __enter__(self) -> None:
        ensure_private_dir(_parent(self.path))
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        kind = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        if MAX_LOCK_WAIT is not None and self.timeout > MAX_LOCK_WAIT:
            self.timeout = MAX_LOCK_WAIT
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        try:
            while True:
                try:
                    fcntl.flock(fd, kind | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        name = os.path.basename(os.fspath(self.path))
                        raise LockTimeout(f"timed out after {self.timeout:.0f}s waiting for lock {name}") from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc: object) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)  # closing releases the flock


class try_lock:  # noqa: N801 - used like a function: ``with try_lock(p) as got:``
    """Non-blocking exclusive lock; ``with`` gives whether it was obtained."""

    __slots__ = ("path", "fd")

    def __init__(self, lock_path: AnyPath) -> None:
        self.path, self.fd = lock_path, -1

    def __enter__(self) -> bool:
        ensure_private_dir(_parent(self.path))
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except BaseException:
            self.__exit__()
            raise
        return True

    def __exit__(self, *exc: object) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)


def prune_old_files(folder: AnyPath, suffixes: tuple[str, ...], max_age_days: float) -> int:
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


def fsync_dir(path: AnyPath) -> None:
    """Make a rename or a new file in ``path`` durable (errors ignored: not every file system can)."""
    _fsync_dir(path)


def move_folder(src: AnyPath, dst: AnyPath) -> None:
    """Move the folder ``src`` to ``dst`` atomically: one rename, or, across file systems, a complete
    fsynced copy renamed into place before ``src`` is removed (a crash leaves both, never none).
    The caller holds a lock that keeps other movers out."""
    src, dst = os.fspath(src), os.fspath(dst)
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        import shutil  # only a move across file systems needs it

        staging = os.path.join(os.path.dirname(dst), f".{os.path.basename(dst)}.migrating")
        shutil.rmtree(staging, ignore_errors=True)  # a copy left by a killed move is incomplete
        shutil.copytree(src, staging)
        for folder, _dirs, files in os.walk(staging):
            for name in files:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            _fsync_dir(folder)
        os.rename(staging, dst)
        _fsync_dir(os.path.dirname(dst))
        shutil.rmtree(src)
    _fsync_dir(os.path.dirname(src))
    _fsync_dir(os.path.dirname(dst))
