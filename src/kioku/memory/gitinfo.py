"""What git knows about a project's memory files: its folders, HEAD, origin, and who wrote each line
(standard library only).

The folders and HEAD are read from the files under ``.git`` (worktrees included), so that asking
costs no process; ``git`` itself runs only for ``blame`` (and for HEAD where the refs are in a
format these readers do not know). A project that is no git repository, or a machine without
``git``, gets None everywhere: no provenance, never an error.
"""

from __future__ import annotations

import os

GIT_TIMEOUT = 5.0
UNCOMMITTED = "0" * 40
MAX_REF_BYTES = 64 * 1024
MAX_PACKED_REFS_BYTES = 8 * 1024 * 1024


def _read(path: str, limit: int = MAX_REF_BYTES) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None


def git_dirs(root: str) -> tuple[str, str] | None:
    """(git folder, common folder) of the repository at ``root``: ``.git`` itself, or for a
    worktree the folder its ``.git`` file names and the main repository's folder."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git, dot_git
    text = _read(dot_git)
    if text is None or not text.startswith("gitdir:"):
        return None
    git_dir = os.path.normpath(os.path.join(root, text[len("gitdir:"):].strip()))
    common = _read(os.path.join(git_dir, "commondir"))
    common_dir = os.path.normpath(os.path.join(git_dir, common.strip())) if common else git_dir
    return (git_dir, common_dir) if os.path.isdir(git_dir) else None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def head_commit(root: str) -> str | None:
    """The commit HEAD points at, read from the ref files (``git rev-parse HEAD`` where they are
    in another format); None outside a repository or before the first commit."""
    dirs = git_dirs(root)
    if dirs is None:
        return None
    git_dir, common_dir = dirs
    head = (_read(os.path.join(git_dir, "HEAD")) or "").strip()
    if _is_sha(head):
        return head
    if not head.startswith("ref:"):
        return _rev_parse(root)
    ref = head[4:].strip()
    if ".." in ref.split("/"):
        return None
    for folder in (git_dir, common_dir):
        value = (_read(os.path.join(folder, ref)) or "").strip()
        if _is_sha(value):
            return value
    packed = _read(os.path.join(common_dir, "packed-refs"), MAX_PACKED_REFS_BYTES)
    if packed is not None:
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name == ref and _is_sha(sha):
                return sha
    if os.path.exists(os.path.join(common_dir, "reftable")):
        return _rev_parse(root)
    return None  # an unborn branch: nothing is committed yet


def _git(root: str, *args: str) -> str | None:
    import subprocess  # a few ms of imports: only when git really has to run

    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, timeout=GIT_TIMEOUT, env=env,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="replace")


def _rev_parse(root: str) -> str | None:
    out = (_git(root, "rev-parse", "--verify", "-q", "HEAD") or "").strip()
    return out if _is_sha(out) else None


def origin_url(root: str) -> str | None:
    """``remote.origin.url`` from the repository's config file (worktrees read the main one's)."""
    from kioku.infra.pathstr import UNSURE, origin_url_from_config

    dirs = git_dirs(root)
    if dirs is None:
        return None
    found = origin_url_from_config(dirs[1])
    if found is UNSURE:
        out = (_git(root, "config", "--get", "remote.origin.url") or "").strip()
        return out or None
    return found  # type: ignore[return-value]


class LineAuthor:
    """Who last changed one line: the commit, its author and the author's time (epoch seconds)."""

    __slots__ = ("commit", "author", "email", "time")

    def __init__(self, commit: str, author: str, email: str, time: int) -> None:
        self.commit, self.author, self.email, self.time = commit, author, email, time

    @property
    def committed(self) -> bool:
        return self.commit not in ("", UNCOMMITTED)


def blame(root: str, path: str) -> list[LineAuthor] | None:
    """Who changed each line of ``path`` last (index 0 = line 1), None when git cannot say (no
    repository, the file is not tracked, git missing or too slow). Lines not committed yet have
    the all-zero commit."""
    out = _git(root, "blame", "--porcelain", "--no-textconv", "--", path)
    if out is None:
        return None
    return parse_porcelain(out)


def parse_porcelain(out: str) -> list[LineAuthor]:
    """``git blame --porcelain`` output, one :class:`LineAuthor` per line of the file."""
    commits: dict[str, dict[str, str]] = {}
    lines: dict[int, str] = {}
    current: dict[str, str] | None = None
    commit = ""
    final = 0
    for raw in out.split("\n"):
        if raw.startswith("\t"):
            lines[final] = commit
            current = None
            continue
        head, _, rest = raw.partition(" ")
        if current is None:
            if not _is_sha(head):
                continue
            parts = rest.split()
            commit = head
            final = int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else final + 1
            current = commits.setdefault(commit, {})
        elif head in ("author", "author-mail", "author-time"):
            current[head] = rest
    out_lines: list[LineAuthor] = []
    made: dict[str, LineAuthor] = {}
    for number in range(1, (max(lines) if lines else 0) + 1):
        sha = lines.get(number, "")
        if sha not in made:
            info = commits.get(sha, {})
            stamp = info.get("author-time", "0")
            made[sha] = LineAuthor(sha, info.get("author", ""), info.get("author-mail", "").strip("<>"),
                                   int(stamp) if stamp.isdigit() else 0)
        out_lines.append(made[sha])
    return out_lines
