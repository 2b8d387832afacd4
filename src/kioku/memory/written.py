"""Which project memories Kioku wrote on this machine (standard library only).

Every memory Kioku saves, edits or merges into a project folder is recorded by its content
digest (:func:`memory_digest`: SHA-256 of its summary and text, the way the topic file gives
them back), so a memory edited by hand afterwards, or one that arrived through git, is not in
the record. The record lives under Kioku's state folder, never in the committed memory folder:
``<state>/memory-written/<place>.digests``, one digest a line, appended under a lock and
flushed to disk.

A project is known by its places: its folder and, for a git repository with an ``origin``,
that URL, so worktrees and other clones of the same repository on this machine share what
Kioku wrote in any of them, and a project that gains a remote keeps what was recorded before.
User memory (``~/.agents/memory``) is the user's own and is not recorded.
"""

from __future__ import annotations

import os

from kioku.infra import fsutil, pathstr
from kioku.infra.sha import sha256

FOLDER = "memory-written"
SUFFIX = ".digests"
DIGEST_CHARS = 32
MAX_RECORD_BYTES = 64 * 1024 * 1024


def _clean_lines(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


def memory_digest(summary: str, text: str) -> str:
    """The content key of a memory entry: its summary and text, white space at line ends and
    the ways of breaking lines folded, so a topic file written and read back gives the same."""
    return sha256(f"entry\n{summary.strip()}\n{_clean_lines(text)}".encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def note_digest(text: str) -> str:
    """The content key of a note written by hand (a MEMORY.md line, a topic file's loose line)."""
    return sha256(f"note\n{_clean_lines(text)}".encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def place_keys(project_root: str, remote: bool = True) -> list[str]:
    """The project's places: its folder and (``remote``) its git ``origin`` URL."""
    root = os.path.realpath(project_root)
    keys = [sha256(f"path\n{root}".encode("utf-8")).hexdigest()[:24]]
    if remote:
        from kioku.memory.gitinfo import origin_url

        url = origin_url(root)
        if url:
            keys.append(sha256(f"remote\n{url.strip()}".encode("utf-8")).hexdigest()[:24])
    return keys


def _folder() -> str:
    return os.path.join(pathstr.state_dir(), FOLDER)


def _read_digests(path: str) -> set[str]:
    try:
        data = fsutil.read_regular(path, MAX_RECORD_BYTES)
    except (OSError, IsADirectoryError):
        return set()
    return {line for line in data.decode("ascii", errors="ignore").split("\n") if len(line) == DIGEST_CHARS}


def record(project_root: str, digests: list[str]) -> None:
    """Add ``digests`` to the project's record (every place), locked and flushed."""
    digests = [d for d in dict.fromkeys(digests) if d]
    if not digests:
        return
    folder = _folder()
    with fsutil.exclusive_lock(os.path.join(folder, ".lock")):
        for key in place_keys(project_root):
            path = os.path.join(folder, key + SUFFIX)
            # a write cut short (a crash, a full disk) may have left half a line: start a new one
            lead = "" if _ends_a_line(path) else "\n"
            fsutil.append_line_durable(path, lead + "\n".join(digests))


def _ends_a_line(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() == 0:
                return True
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
    except OSError:
        return True  # no file yet


class WrittenRecord:
    """The digests recorded for a project, read once: the folder's own record first, the
    remote's only when a digest is not in it (reading the origin URL may cost a process)."""

    __slots__ = ("root", "_near", "_far")

    def __init__(self, project_root: str) -> None:
        self.root = project_root
        self._near: set[str] | None = None
        self._far: set[str] | None = None

    def __contains__(self, digest: str) -> bool:
        if self._near is None:
            self._near = _read_digests(os.path.join(_folder(), place_keys(self.root, remote=False)[0] + SUFFIX))
        if digest in self._near:
            return True
        if self._far is None:
            self._far = set()
            for key in place_keys(self.root)[1:]:
                self._far |= _read_digests(os.path.join(_folder(), key + SUFFIX))
        return digest in self._far


def record_entries(md, entries) -> None:
    """Record entries Kioku is writing into the memory folder ``md`` (a ``MemoryDir``; its
    caller holds the folder's lock). Only project folders are recorded."""
    if md.scope == "project" and entries:
        record(str(md.base), [memory_digest(e.summary, e.text) for e in entries])

