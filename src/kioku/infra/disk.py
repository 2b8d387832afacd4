"""Free space: telling a full disk from damage, and failing fast before a write cannot fit
(standard library only).

Why: Chroma on a disk that fills up fails with "database or disk is full" and may then block for
ever in its next call, and a journal line that cannot be written must be refused before anything
claims it was saved. So writers ask :func:`ensure_room` first and turn ``ENOSPC`` into
:class:`~kioku.infra.errors.DiskFull`: one line naming the folder, saying that nothing was lost
and what became of the request.

- :func:`chroma_reserve`: the room Chroma must have before Kioku applies a write to it
  (``KIOKU_MIN_FREE_MB``, default 64 MiB); below it, writes stay in the store's journal and are
  applied at the next sync once there is room.
- :data:`JOURNAL_RESERVE`: the room left beside a journal line (the line itself comes on top).
"""

from __future__ import annotations

import errno
import os

DEFAULT_MIN_FREE_MB = 64.0
JOURNAL_RESERVE = 256 * 1024
FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
# How SQLite (Python's sqlite3 and Chroma's own) and Chroma's Rust layer say the disk is full.
FULL_MESSAGES = ("database or disk is full", "no space left on device", "disk quota exceeded", "(code: 13)")


def chroma_reserve() -> int:
    try:
        mb = float(os.environ.get("KIOKU_MIN_FREE_MB", "") or DEFAULT_MIN_FREE_MB)
    except ValueError:
        mb = DEFAULT_MIN_FREE_MB
    return int(max(0.0, mb) * 1024 * 1024)


def _existing(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def free_bytes(path: str | os.PathLike[str]) -> int | None:
    """Bytes an unprivileged writer may still use on the file system holding ``path`` (or its
    nearest existing parent); None when that cannot be told."""
    try:
        st = os.statvfs(_existing(os.fspath(path)))
    except (OSError, AttributeError):
        return None
    return st.f_bavail * st.f_frsize


def is_full(path: str | os.PathLike[str], need: int | None = None) -> bool:
    """Whether the disk holding ``path`` has less than ``need`` bytes (default :func:`chroma_reserve`) free."""
    free = free_bytes(path)
    return free is not None and free < (chroma_reserve() if need is None else need)


def is_full_error(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says the disk is full."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in FULL_ERRNOS:
            return True
        text = str(exc).lower()
        if any(marker in text for marker in FULL_MESSAGES):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def full_message(folder: str | os.PathLike[str], outcome: str) -> str:
    return f"the disk holding {os.fspath(folder)} is full; nothing was lost: {outcome}"


def disk_full(folder: str | os.PathLike[str], outcome: str):  # -> DiskFull
    from kioku.infra.errors import DiskFull

    return DiskFull(full_message(folder, outcome), folder=os.fspath(folder))


def ensure_room(folder: str | os.PathLike[str], need: int, outcome: str) -> None:
    """Raise :class:`~kioku.infra.errors.DiskFull` (``outcome`` says what became of the request)
    when the disk holding ``folder`` has less than ``need`` bytes free."""
    if is_full(folder, need):
        raise disk_full(folder, outcome)
