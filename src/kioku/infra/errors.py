"""Exceptions that the CLI turns into one clear line and a non-zero exit."""

from __future__ import annotations


class KiokuError(Exception):
    """A user-facing failure: the message is shown as is, nothing was written."""

    exit_code = 1


class UsageError(KiokuError):
    exit_code = 2


class SecretRejected(KiokuError):
    """The text looks like it contains a credential, so it is not stored."""

    exit_code = 3


class SymlinkRefused(KiokuError):
    """A memory file or folder is a symbolic link: Kioku never follows one (it could read a
    file outside the project into a session, or write memories into a folder elsewhere)."""


class DiskFull(KiokuError, OSError):
    """The disk holding ``folder`` is full: the message says that nothing was lost and what became
    of the request. An ``OSError`` too (``errno`` ENOSPC), so code that handles a failed write
    handles this one."""

    def __init__(self, message: str, folder: str = "") -> None:
        super().__init__(message)
        import errno

        self.errno = errno.ENOSPC
        self.folder = folder

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the disk is full"
