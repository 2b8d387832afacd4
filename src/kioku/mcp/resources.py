"""The memory files as MCP resources: each folder's MEMORY.md index and its topic files.

URIs are ``kioku://memory/<scope>/<file>``: scope ``project`` (the project's ``.agents/memory``)
or ``user`` (``~/.agents/memory``), file ``MEMORY.md`` or a topic file such as ``project.md``.
A file is read only when it is a regular file inside its folder, reached through no symbolic
link (as recall reads), at most the topic-file size limit. Its text is returned the way
SessionStart shows memory: under recall's header, redacted and defanged inside the fence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kioku.infra.errors import KiokuError
from kioku.mcp.context import Context

SCHEME = "kioku://memory/"
TEMPLATE = SCHEME + "{scope}/{file}"
_FILE = re.compile(r"^[^/\\\x00]+\.md$")


class ResourceNotFound(KiokuError):
    """No memory file behind a URI (or one Kioku does not read)."""


@dataclass(frozen=True)
class MemoryFile:
    uri: str
    name: str
    description: str
    path: Path


def _folders(ctx: Context):
    from kioku.memory.api import memory_dirs

    return {md.scope: md for md in memory_dirs(ctx.project_root)}


def memory_files(ctx: Context) -> list[MemoryFile]:
    """Every readable MEMORY.md and topic file, index first, the project's before the user's."""
    from kioku.memory.index import INDEX_NAME

    out: list[MemoryFile] = []
    for scope in ("project", "user"):
        md = _folders(ctx).get(scope)
        if md is None:
            continue
        try:
            md.check_links()
            topics = md.topic_paths()
        except KiokuError:
            continue  # a linked folder is never read; `kioku doctor` reports it
        label = "this project's memory" if scope == "project" else "the user-wide memory"
        if md.index_path.is_file():
            out.append(MemoryFile(f"{SCHEME}{scope}/{INDEX_NAME}", f"{scope}/{INDEX_NAME}",
                                  f"The index of {label}: one line per memory, by type.", md.index_path))
        for path in topics:
            out.append(MemoryFile(f"{SCHEME}{scope}/{path.name}", f"{scope}/{path.name}",
                                  f"Topic file {path.stem} of {label}: its memories in full, with dates and ids.",
                                  path))
    return out


def read_memory_file(ctx: Context, uri: str) -> str:
    """The fenced text of the memory file ``uri`` names; ResourceNotFound otherwise."""
    from kioku.infra.fsutil import NotRegularFile, read_regular
    from kioku.memory.recall import fence_lines
    from kioku.memory.topics import MAX_TOPIC_BYTES

    scope, _, name = uri[len(SCHEME):].partition("/") if uri.startswith(SCHEME) else ("", "", "")
    md = _folders(ctx).get(scope)
    if md is None or not _FILE.match(name) or name.startswith("."):
        raise ResourceNotFound(f"no memory file at {uri!r}: resources are {TEMPLATE} with scope project or "
                               "user (resources/list names them)")
    path = md.path / name
    try:
        md.check_links(path)
        data = read_regular(path, MAX_TOPIC_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        raise ResourceNotFound(f"no memory file at {uri!r} (resources/list names them)") from None
    except (NotRegularFile, IsADirectoryError):
        raise ResourceNotFound(f"{uri!r} is not a regular file; Kioku does not read it") from None
    if len(data) > MAX_TOPIC_BYTES:
        raise ResourceNotFound(f"{uri!r} is larger than {MAX_TOPIC_BYTES:,} bytes, too large to be memory notes")
    lines = data.decode("utf-8", errors="replace").removeprefix("\ufeff").splitlines()
    if scope == "project":
        from kioku.memory.screen import screened_file_lines

        lines = screened_file_lines(ctx.project_root, name, lines)  # what asks the agent to act stays out
    return fence_lines(lines)
