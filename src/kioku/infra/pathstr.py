"""The path resolver, as plain strings (``os.path`` only); ``kioku.infra.paths`` wraps it in ``Path``.

Every location Kioku uses is decided here:

- ``KIOKU_HOME`` overrides Kioku's own state folder (default ``<claude dir>/kioku``).
- ``CLAUDE_CONFIG_DIR`` replaces ``~/.claude`` wherever Claude Code's folder is meant.
- ``KIOKU_USER_HOME`` overrides the folder that holds user-wide ``.agents/memory``
  (default: the home folder); tests point it at a temporary directory.
- The project root is the git root above the working directory, else the directory.

Why strings: ``pathlib`` loads ``re``, ``urllib.parse`` and ``ipaddress``, about half a Python
start-up, and the UserPromptSubmit hook runs on every prompt. The hooks' every-prompt modules
resolve their files through this module; everything else uses ``kioku.infra.paths``.
"""

from __future__ import annotations

import os

MEMORY_SUBDIR = os.path.join(".agents", "memory")


def user_home() -> str:
    override = os.environ.get("KIOKU_USER_HOME")
    return os.path.expanduser(override) if override else os.path.expanduser("~")


def claude_dir() -> str:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return os.path.expanduser(override) if override else os.path.join(user_home(), ".claude")


def kioku_home() -> str:
    override = os.environ.get("KIOKU_HOME")
    return os.path.expanduser(override) if override else os.path.join(claude_dir(), "kioku")


def find_project_root(start: str | os.PathLike[str] | None = None) -> str:
    """Git root above ``start`` (default: cwd), else ``start`` itself (resolved); never raises."""
    here = os.path.realpath(os.path.expanduser(os.fspath(start) if start else os.getcwd()))
    candidate = here
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return here
        candidate = parent


def global_chroma_dir() -> str:
    return os.path.join(claude_dir(), "chroma_data")


def project_chroma_dir(project_root: str | os.PathLike[str] | None = None) -> str:
    return os.path.join(os.fspath(project_root) if project_root else find_project_root(), ".claude", "chroma_data")


def logs_dir() -> str:
    return os.path.join(kioku_home(), "logs")


def state_dir() -> str:
    """Per-machine runtime state (session records, job queue); never committed."""
    return os.path.join(kioku_home(), "state")


def project_identity(project_root: str | os.PathLike[str] | None = None) -> str:
    """Stable short id for a project: its git remote URL if any, else its resolved root path.

    Two clones of one repository share memories; two unrelated folders with the same
    name do not (a complaint about peers that key on the folder name).
    """
    from kioku.infra.sha import sha256  # lazily: hooks that never need the identity skip it

    root = os.path.realpath(os.fspath(project_root) if project_root else find_project_root())
    key = _git_remote(root) or root
    return sha256(key.encode("utf-8")).hexdigest()[:12]


def _git_remote(root: str) -> str | None:
    git_dir = os.path.join(root, ".git")
    if not os.path.exists(git_dir):
        return None
    known = origin_url_from_config(git_dir)
    if known is not UNSURE:
        return known  # type: ignore[return-value]
    import subprocess  # lazily: costs several ms on the hooks' fast path

    try:
        out = subprocess.run(
            ["git", "-C", root, "config", "--get", "remote.origin.url"],
            capture_output=True, text=True, timeout=2, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    url = out.stdout.strip()
    return url or None


UNSURE = object()  # the config file alone cannot say what ``git config --get`` would
MAX_GIT_CONFIG_BYTES = 1 << 20


def origin_url_from_config(git_dir: str | os.PathLike[str]) -> object:
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

    config = os.path.join(git_dir, "config")
    try:
        info = os.stat(config)  # a ``.git`` file (worktree, submodule) fails here: not a folder
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
