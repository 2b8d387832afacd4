"""Where things live, as ``Path`` objects: the resolver of :mod:`kioku.infra.pathstr`, wrapped.

- ``KIOKU_HOME`` overrides Kioku's own state folder (default ``<claude dir>/kioku``).
- ``CLAUDE_CONFIG_DIR`` replaces ``~/.claude`` wherever Claude Code's folder is meant.
- ``KIOKU_USER_HOME`` overrides the folder that holds user-wide ``.agents/memory``
  (default: the home folder); tests point it at a temporary directory.
- The project root is the git root above the working directory, else the directory.

The decisions are made once, in ``kioku.infra.pathstr`` (plain strings, no ``pathlib``, for the
hooks' every-prompt modules); this module gives the same answers as ``Path`` for everything else.
"""

from __future__ import annotations

from pathlib import Path

from kioku.infra import pathstr

MEMORY_SUBDIR = Path(pathstr.MEMORY_SUBDIR)


def user_home() -> Path:
    return Path(pathstr.user_home())


def claude_dir() -> Path:
    return Path(pathstr.claude_dir())


def kioku_home() -> Path:
    return Path(pathstr.kioku_home())


def find_project_root(start: Path | str | None = None) -> Path:
    """Git root above ``start`` (default: cwd), else ``start`` itself; never raises."""
    return Path(pathstr.find_project_root(start))


def project_memory_dir(project_root: Path | None = None) -> Path:
    return (project_root or find_project_root()) / MEMORY_SUBDIR


def user_memory_dir() -> Path:
    return user_home() / MEMORY_SUBDIR


def global_chroma_dir() -> Path:
    return Path(pathstr.global_chroma_dir())


def project_chroma_dir(project_root: Path | None = None) -> Path:
    return Path(pathstr.project_chroma_dir(project_root))


def logs_dir() -> Path:
    return Path(pathstr.logs_dir())


def state_dir() -> Path:
    """Per-machine runtime state (session records, job queue); never committed."""
    return Path(pathstr.state_dir())


def project_identity(project_root: Path | None = None) -> str:
    """Stable short id for a project: its git remote URL if any, else its resolved root path
    (:func:`kioku.infra.pathstr.project_identity`)."""
    return pathstr.project_identity(project_root)
