"""The one place that decides where things live.

- ``KIOKU_HOME`` overrides Kioku's own state folder (default ``<claude dir>/kioku``).
- ``CLAUDE_CONFIG_DIR`` replaces ``~/.claude`` wherever Claude Code's folder is meant.
- ``KIOKU_USER_HOME`` overrides the folder that holds user-wide ``.agents/memory``
  (default: the home folder); tests point it at a temporary directory.
- The project root is the git root above the working directory, else the directory.

Standard library only: hooks import this on their fast path.
"""

from __future__ import annotations

import os
from pathlib import Path

MEMORY_SUBDIR = Path(".agents") / "memory"


def user_home() -> Path:
    override = os.environ.get("KIOKU_USER_HOME")
    return Path(override).expanduser() if override else Path.home()


def claude_dir() -> Path:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else user_home() / ".claude"


def kioku_home() -> Path:
    override = os.environ.get("KIOKU_HOME")
    return Path(override).expanduser() if override else claude_dir() / "kioku"


def find_project_root(start: Path | str | None = None) -> Path:
    """Git root above ``start`` (default: cwd), else ``start`` itself; never raises."""
    here = Path(start or os.getcwd()).expanduser().resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def project_memory_dir(project_root: Path | None = None) -> Path:
    return (project_root or find_project_root()) / MEMORY_SUBDIR


def user_memory_dir() -> Path:
    return user_home() / MEMORY_SUBDIR


def global_chroma_dir() -> Path:
    return claude_dir() / "chroma_data"


def project_chroma_dir(project_root: Path | None = None) -> Path:
    return (project_root or find_project_root()) / ".claude" / "chroma_data"


def logs_dir() -> Path:
    return kioku_home() / "logs"


def state_dir() -> Path:
    """Per-machine runtime state (session records, job queue); never committed."""
    return kioku_home() / "state"


def project_identity(project_root: Path | None = None) -> str:
    """Stable short id for a project: its git remote URL if any, else its resolved root path.

    Two clones of one repository share memories; two unrelated folders with the same
    name do not (a complaint about peers that key on the folder name).
    """
    from kioku.core.sha import sha256  # lazily: hooks that never need the identity skip it

    root = (project_root or find_project_root()).resolve()
    key = _git_remote(root) or str(root)
    return sha256(key.encode("utf-8")).hexdigest()[:12]


def _git_remote(root: Path) -> str | None:
    if not (root / ".git").exists():
        return None
    import subprocess  # lazily: costs several ms on the hooks' fast path

    try:
        out = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True, text=True, timeout=2, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    url = out.stdout.strip()
    return url or None
