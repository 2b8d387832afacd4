"""Tracebacks appended to Kioku's private logs (``<home>/logs/<name>``), so an error shown in one line
keeps its details somewhere the user can find them (standard library only; imported only when needed)."""

from __future__ import annotations

import os
import traceback

from kioku.infra import clock, fsutil, paths

UNWRITABLE = "the log (could not be written)"


def append_traceback(name: str, header: str, exc: BaseException | None = None, *,
                     rotate_bytes: int | None = None) -> str:
    """Append ``exc``'s traceback (the one being handled when None) under a ``--- <UTC time> <header>``
    line to the log ``name``; returns the log's path, or :data:`UNWRITABLE`. With ``rotate_bytes`` a
    log grown past that size is moved to ``<name>.1`` first."""
    text = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    try:
        folder = fsutil.ensure_private_dir(paths.logs_dir())
        log = folder / name
        if rotate_bytes is not None and log.exists() and log.stat().st_size > rotate_bytes:
            os.replace(log, folder / f"{name}.1")
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(f"--- {clock.iso_z()} {header}\n{text}")
        return str(log)
    except OSError:
        return UNWRITABLE
