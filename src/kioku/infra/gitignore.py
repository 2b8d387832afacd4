"""Kioku's own ``.gitignore`` in the data folders it makes inside a project (standard library only).

The agent-memory store of a project (``<project>/.claude/chroma_data``), its journal beside it and
the folders a repair sets aside hold lesson and evaluation text and per-machine binaries; a
``git add -A`` must not commit them. So each such folder gets a ``.gitignore`` that ignores
everything in it (itself included) when Kioku creates the folder, and a folder an earlier version
made gets one the first time the store is used (the journal state records it, so a file the user
deletes on purpose stays deleted). The project's own ``.gitignore`` is never touched, and the
Markdown memory in ``.agents/memory``, which is meant to be shared, keeps its own narrower file
(``kioku.memory.store``).
"""

from __future__ import annotations

import os

from kioku.infra import fsutil

NAME = ".gitignore"
DATA_TEXT = ("# Written by Kioku: its data in this folder (the agent-memory store, its journal, digests) is\n"
             "# per machine and holds lesson and evaluation text: not meant to be committed.\n"
             "*\n")


def ignore_folder(folder: str | os.PathLike[str]) -> bool:
    """Write ``<folder>/.gitignore`` ignoring everything in the folder, unless one is there (a
    link in its place is left alone); returns whether it was written."""
    path = os.path.join(os.fspath(folder), NAME)
    if os.path.lexists(path):
        return False
    fsutil.atomic_write_text(path, DATA_TEXT)
    return True


def make_data_folder(folder: str | os.PathLike[str]) -> None:
    """Create ``folder`` (0700) if it is missing, with its ``.gitignore``."""
    if os.path.isdir(folder):
        return
    fsutil.ensure_private_dir(folder)
    try:
        ignore_folder(folder)
    except OSError:
        pass  # a full disk: the folder works without it, and the next use writes it
