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
