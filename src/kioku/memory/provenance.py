"""Where a project memory came from: who last changed its lines in git (standard library only).

``Provenance(root, folder, cache).origin(file, line, end)`` gives the latest commit among a
memory's lines (``git blame`` of its file, ``kioku.memory.gitinfo``), and whether one of its lines
changed after it. Blame is kept in ``cache`` (``kioku.memory.screen``'s cache file) by the file's
modification time and size: a file whose lines are all committed keeps its blame across later
commits; one with uncommitted lines only while HEAD stays. A project outside git, or a machine
without ``git``, has no provenance.
"""

from __future__ import annotations

import os

AUTHOR_CHARS = 40


class Origin:
    """Where a memory came from: the latest commit among its lines, and whether a line changed after it."""

    __slots__ = ("commit", "author", "email", "time", "changed")

    def __init__(self, commit: str, author: str, email: str, time: int, changed: bool) -> None:
        self.commit, self.author, self.email, self.time, self.changed = commit, author, email, time, changed

    @property
    def date(self) -> str:
        from kioku.infra.clock import utc_day

        return utc_day(self.time) if self.time else ""

    def name(self, limit: int = AUTHOR_CHARS) -> str:
        """The author's name as any output may show it: defanged, cut, and not itself a request to act
        (a name is whatever the committer typed)."""
        return _inert(self.author, limit) or "unknown author"

    def label(self) -> str:
        """For the agent: "from git: Alice, 1a2b3c4" (no address)."""
        return f"from git: {self.name()}, {self.commit[:7]}" + ("; changed since" if self.changed else "")

    def describe(self) -> str:
        """For the user: "Alice <alice@example.com>, commit 1a2b3c4, 2026-01-05"."""
        who = self.name(80)
        email = _inert(self.email, 80)
        if email:
            who += f" <{email}>"
        date = f", {self.date}" if self.date else ""
        return f"{who}, commit {self.commit[:7]}{date}" + (" (changed since, not committed)" if self.changed else "")


_INERT: dict[tuple[str, int], str] = {}  # a folder's memories come from a few authors


def _inert(value: str, limit: int) -> str:
    key = (value, limit)
    if key not in _INERT:
        from kioku.memory.directives import find_directives
        from kioku.text.defang import defang_line

        shown = defang_line(value)[:limit].strip()
        _INERT[key] = "(a name that reads as an instruction)" if shown and find_directives(shown) else shown
    return _INERT[key]


class Provenance:
    """The blame of a memory folder's files, read from ``cache`` or asked of git once per change."""

    def __init__(self, root: str, folder: str, cache: dict) -> None:
        self.root, self.folder, self.cache = root, folder, cache
        self.cache.setdefault("blame", {})
        self._blamed: dict[str, list | None] = {}

    def rows(self, file: str) -> list | None:
        """Per line of ``file`` (a name in the memory folder), [commit, author, email, time]."""
        if file in self._blamed:
            return self._blamed[file]
        from kioku.memory import gitinfo

        path = os.path.join(self.folder, file)
        sig = signature(path)
        head = gitinfo.head_commit(self.root) if sig is not None and gitinfo.git_dirs(self.root) else None
        if head is None:  # gone, no repository, or nothing committed yet: git knows no author
            self._blamed[file] = None
            return None
        cache = self.cache
        known = cache["blame"].get(file)
        # a file as it was, every line committed: a later commit elsewhere changes nothing in its
        # blame; with lines not committed yet (or none git knows), only the same HEAD does
        if isinstance(known, dict) and known.get("sig") == sig and (known.get("head") == head
                                                                    or known.get("settled")):
            rows = _unpack(known)
        else:
            lines = gitinfo.blame(self.root, os.path.relpath(path, self.root))
            rows = None if lines is None else [[a.commit, a.author, a.email, a.time] for a in lines]
            settled = lines is not None and all(a.committed for a in lines)
            cache["blame"][file] = {"sig": sig, "head": head, "settled": settled, **_pack(rows)}
            cache["dirty"] = True
        self._blamed[file] = rows
        return rows

    def origin(self, file: str, line: int, end: int) -> Origin | None:
        """The latest commit among lines ``line``..``end`` of ``file``, and whether one of them changed
        after it; None where git cannot say or none of them is committed."""
        from kioku.memory.gitinfo import UNCOMMITTED

        rows = self.rows(file)
        if not rows:
            return None
        span = [r for r in rows[max(line - 1, 0):max(end, line)] if isinstance(r, list)]
        committed = [r for r in span if r[0] and r[0] != UNCOMMITTED]
        if not committed:
            return None
        latest = max(committed, key=lambda r: r[3] if isinstance(r[3], int) else 0)
        return Origin(str(latest[0]), str(latest[1]), str(latest[2]), int(latest[3] or 0), len(committed) < len(span))


def signature(path: str) -> list[int] | None:
    """[modification time in ns, size] of ``path``, None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _pack(rows: list | None) -> dict:
    """Blame rows stored once per commit: {"commits": [[sha, author, email, time]], "lines": [index]}."""
    if rows is None:
        return {"commits": None, "lines": None}
    commits: dict[str, int] = {}
    table: list = []
    lines: list[int] = []
    for row in rows:
        if row[0] not in commits:
            commits[row[0]] = len(table)
            table.append(row)
        lines.append(commits[row[0]])
    return {"commits": table, "lines": lines}


def _unpack(known: dict) -> list | None:
    table, lines = known.get("commits"), known.get("lines")
    if not isinstance(table, list) or not isinstance(lines, list):
        return None
    try:
        return [table[i] for i in lines]
    except (IndexError, TypeError):
        return None
