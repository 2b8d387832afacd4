"""Loaded by a test's Kioku process: the folder ``KIOKU_TEST_UNWRITABLE`` refuses what a folder
without write permission refuses (new entries, renames, removals), for root as well.

The real calls fail with the real error (EACCES), so the code under test meets what
``chmod 0500`` gives an ordinary user, whoever runs the suite.
"""

from __future__ import annotations

import builtins
import errno
import io
import os

_FOLDER = os.path.realpath(os.environ.get("KIOKU_TEST_UNWRITABLE", "")) if os.environ.get(
    "KIOKU_TEST_UNWRITABLE") else ""


def _inside(path: object) -> bool:
    try:
        target = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
    except TypeError:
        return False  # a file descriptor
    return os.path.dirname(os.path.realpath(target)) == _FOLDER


def _deny(path: object) -> PermissionError:
    return PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(os.fspath(path)))  # type: ignore[arg-type]


def _guard_new(open_):
    def guarded(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and _inside(path) and not os.path.lexists(path):
            raise _deny(path)
        return open_(path, flags, *args, **kwargs)
    return guarded


def _guard_open(open_):
    def guarded(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+") and _inside(file) and not os.path.lexists(file):
            raise _deny(file)
        return open_(file, mode, *args, **kwargs)
    return guarded


def _guard_paths(call, *positions: int):
    def guarded(*args, **kwargs):
        for n in positions:
            if n < len(args) and _inside(args[n]):
                raise _deny(args[n])
        return call(*args, **kwargs)
    return guarded


if _FOLDER:
    os.open = _guard_new(os.open)
    builtins.open = io.open = _guard_open(io.open)
    for name in ("replace", "rename", "link", "symlink"):
        setattr(os, name, _guard_paths(getattr(os, name), 0, 1))
    for name in ("unlink", "remove", "mkdir", "rmdir"):
        setattr(os, name, _guard_paths(getattr(os, name), 0))
