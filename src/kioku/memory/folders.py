"""Which memory folders a project uses (below the kioku.memory.api facade).

Type ``user`` memories live in the user-wide folder (``paths.user_memory_dir()``), followed
across projects; every other type lives in the project's ``.agents/memory``. Both are
recalled and searched. save, search and organize resolve folders here, so none of them has
to import the facade that imports them.

When the project root is the home folder (Kioku run from ``~``, which is not a project), the
project's ``.agents/memory`` *is* the user-wide folder: a project-scoped memory saved there
would be recalled in every project as if it were about the user. ``target_dir`` therefore
refuses every type but ``user`` there (``HomeIsNotAProject``, one line, nothing written).
"""

from __future__ import annotations

from pathlib import Path

from kioku.infra import paths
from kioku.infra.errors import UsageError
from kioku.memory.store import MemoryDir


class HomeIsNotAProject(UsageError):
    """A project-scoped memory was to be saved while the project root is the home folder."""


def memory_dirs(project_root: Path | None = None) -> list[MemoryDir]:
    """[user, project] folders (one if the project *is* the home folder)."""
    user = MemoryDir(paths.user_memory_dir(), "user")
    project = MemoryDir(paths.project_memory_dir(project_root), "project")
    if project.path.resolve() == user.path.resolve():
        return [project]
    return [user, project]


def target_dir(type_: str, project_root: Path | None = None) -> MemoryDir:
    """The folder a memory of ``type_`` is saved in; HomeIsNotAProject for a project-scoped
    type when the project root is the home folder."""
    user = MemoryDir(paths.user_memory_dir(), "user")
    if type_ == "user":
        return user
    project = MemoryDir(paths.project_memory_dir(project_root), "project")
    if not project.base.is_dir():
        # a session whose folder was deleted or moved: never create it again for one note
        raise UsageError(f"not saved: the project folder {project.base} does not exist (deleted or moved?); "
                         "nothing was created")
    base = project.base.resolve()
    if base.parent == base:
        raise UsageError(f"not saved: the project folder here is the file system's root ({base}), which is no "
                         "project; run kioku from inside a project folder, or use --type user if the note is "
                         "about you")
    if base == user.base.resolve():
        raise HomeIsNotAProject(
            f"not saved: a {type_} memory belongs to a project, but the project folder here is your home "
            "folder, whose .agents/memory is the user-wide memory recalled in every project; run kioku "
            "from inside a project folder, or use --type user if the note is about you")
    return project
