"""Which memory folders a project uses (below the kioku.memory.api facade).

Type ``user`` memories live in the user-wide folder (``paths.user_memory_dir()``), followed
across projects; every other type lives in the project's ``.agents/memory``. Both are
recalled and searched. save, search and organize resolve folders here, so none of them has
to import the facade that imports them.
"""

from __future__ import annotations

from pathlib import Path

from kioku.core import paths
from kioku.memory.store import MemoryDir


def memory_dirs(project_root: Path | None = None) -> list[MemoryDir]:
    """[user, project] folders (one if the project *is* the home folder)."""
    user = MemoryDir(paths.user_memory_dir(), "user")
    project = MemoryDir(paths.project_memory_dir(project_root), "project")
    if project.path.resolve() == user.path.resolve():
        return [project]
    return [user, project]


def target_dir(type_: str, project_root: Path | None = None) -> MemoryDir:
    """The folder a memory of ``type_`` is saved in."""
    if type_ == "user":
        return MemoryDir(paths.user_memory_dir(), "user")
    return MemoryDir(paths.project_memory_dir(project_root), "project")
