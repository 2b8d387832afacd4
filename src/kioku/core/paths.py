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
    known = _origin_url_from_config(root / ".git")
    if known is not UNSURE:
        return known  # type: ignore[return-value]
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


UNSURE = object()  # the config file alone cannot say what ``git config --get`` would
MAX_GIT_CONFIG_BYTES = 1 << 20


def _origin_url_from_config(git_dir: Path) -> object:
    """``remote.origin.url`` as ``git config --get`` gives it, read from ``.git/config`` itself.

    Lesson selection asks for the project's identity on every prompt, and starting ``git``
    costs about 10 ms there. Plain files are read here: the last ``url`` of ``[remote
    "origin"]`` (git's "last value wins"), or None when the section has none. Anything this
    reader does not fully understand returns :data:`UNSURE` and the caller asks ``git``: a
    ``.git`` file (worktrees, submodules), ``include``/``includeIf``, quotes, escapes or
    line continuations, a comment character inside the value, or a file that is unreadable,
    not a regular file (a FIFO must not block a hook) or over 1 MiB.
    """
    import stat

    config = git_dir / "config"
    try:
        info = config.stat()  # a ``.git`` file (worktree, submodule) fails here: not a folder
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_GIT_CONFIG_BYTES:
            return UNSURE  # a FIFO would block the hook; git runs under a timeout
        with open(config, "rb") as handle:
            text = handle.read(MAX_GIT_CONFIG_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return UNSURE
    in_origin = False
    url: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.endswith("\\"):
            return UNSURE  # a continued line: the next one is not what it looks like
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            end = line.find("]")
            header = line[1:end].strip() if end > 0 else ""
            if not header or line[end + 1:].strip()[:1] not in ("", "#", ";"):
                return UNSURE  # a key on the header's line
            name, *rest = header.split(None, 1)
            name = name.lower()
            sub = rest[0].strip() if rest else ""
            if name.startswith("include") or name == "remote.origin" or (name == "remote" and "\\" in sub):
                return UNSURE
            in_origin = name == "remote" and sub == '"origin"'
            continue
        if not in_origin:
            continue
        key, eq, value = line.partition("=")
        if key.strip().lower() != "url":
            continue
        value = value.strip()
        if not eq or not value or any(c in value for c in '"\\#;'):
            return UNSURE
        url = value
    return url
