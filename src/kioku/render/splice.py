"""Splice a managed block into an agent ``.md`` file without touching anything else.

Contract:
- The block sits between ``BEGIN_MARKER`` and ``END_MARKER`` lines. Re-splicing replaces exactly
  the text from the begin marker to the end marker; every other byte of the file (frontmatter,
  body, other sections, CRLF line endings, a BOM, a missing final newline) stays as it was.
- Idempotent: splicing the same section twice leaves the file byte-identical, and an unchanged
  file is not rewritten at all (its mtime stays).
- A file without the block gets it appended after one blank line; a missing (or empty) file is
  created from ``templates/agent_file.md.j2`` (frontmatter ``name`` and ``description``, a body).
- Ambiguity (a begin marker without an end, two blocks, a file that is not UTF-8, frontmatter that
  names a different agent) raises ``KiokuError`` and writes nothing: guessing could destroy text.
- Writes are atomic (temp file, fsync, rename) under an exclusive lock in Kioku's state folder, and
  keep the file's mode. A symlinked agent file is written through to its target.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from kioku.infra import fsutil, paths
from kioku.infra.errors import KiokuError
from kioku.infra.fsutil import exclusive_lock

BEGIN_MARKER = "<!-- kioku:agent-memory:begin (managed by kioku; edits inside are overwritten) -->"
END_MARKER = "<!-- kioku:agent-memory:end -->"
_BEGIN_PREFIX = "<!-- kioku:agent-memory:begin"
_BEGIN_RE = re.compile(r"^[ \t]*" + re.escape(_BEGIN_PREFIX) + r".*?-->[ \t]*\r?$", re.M)
_END_RE = re.compile(r"^[ \t]*" + re.escape(END_MARKER) + r"[ \t]*\r?$", re.M)


def newline_of(text: str) -> str:
    """The file's line ending: CRLF if it uses any, else LF."""
    return "\r\n" if "\r\n" in text else "\n"


def find_block(text: str) -> tuple[int, int] | None:
    """(start, end) offsets of the managed block, markers included, end marker's newline excluded."""
    begins = list(_BEGIN_RE.finditer(text))
    ends = list(_END_RE.finditer(text))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise KiokuError(
            f"the Kioku markers in this file are damaged ({len(begins)} begin, {len(ends)} end); "
            "fix or remove them by hand, nothing was written"
        )
    end = ends[0].end()
    if text[end - 1:end] == "\r":  # the regex may take the CR of a CRLF; it belongs to the newline
        end -= 1
    return begins[0].start(), end


def block_text(section_text: str, newline: str = "\n") -> str:
    """The managed block (markers + section) in the given line ending, without a final newline."""
    body = section_text.replace("\r\n", "\n").strip("\n")
    lines = [BEGIN_MARKER, *body.split("\n"), END_MARKER]
    return newline.join(lines)


def splice_text(original: str, section_text: str) -> str:
    """``original`` with the managed block replaced, or appended if it has none."""
    newline = newline_of(original)
    block = block_text(section_text, newline)
    span = find_block(original)
    if span is not None:
        start, end = span
        return original[:start] + block + original[end:]
    if not original:
        return block + newline
    if original.endswith(newline * 2):
        return original + block + newline
    if original.endswith(newline):
        return original + newline + block + newline
    # no final newline before: keep it that way after the block too
    return original + newline * 2 + block


def remove_block(original: str) -> str:
    """``original`` without the managed block and the blank line splice_text put before it."""
    span = find_block(original)
    if span is None:
        return original
    start, end = span
    newline = newline_of(original)
    before, after = original[:start], original[end:]
    newline_after = after.startswith(newline)
    if newline_after:
        after = after[len(newline):]
    if before.endswith(newline * 2):  # the blank line splice_text put before the block
        before = before[: -len(newline)]
    if not newline_after and not after and before.endswith(newline):
        before = before[: -len(newline)]  # the file had no final newline before the block came
    return before + after


def frontmatter_name(text: str) -> str | None:
    """The ``name:`` of a file's YAML frontmatter (a plain or quoted scalar), if any."""
    match = re.match(r"\A(?:\ufeff)?---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", text, re.S)
    if not match:
        return None
    for line in match.group(1).splitlines():
        found = re.match(r"^name:\s*(.*?)\s*$", line)
        if found:
            value = found.group(1)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            return value or None
    return None


def new_agent_file(name: str, description: str, body: str, section_text: str) -> str:
    from kioku.render.templating import AGENT_FILE_TEMPLATE, render_template

    head = render_template(
        AGENT_FILE_TEMPLATE,
        # a JSON string is a valid YAML double-quoted scalar, so ':' or '#' cannot break the YAML
        {"name": name, "description_yaml": json.dumps(description, ensure_ascii=False),
         "body": body.strip()},
    )
    return splice_text(head, section_text)


def splice(path: Path | str, section_text: str, *, agent_name: str | None = None,
           description: str | None = None, body: str | None = None) -> bool:
    """Put ``section_text`` into the managed block of ``path``; True if the file changed.

    ``agent_name`` is checked against the file's frontmatter ``name`` (a mismatch would make the
    section's collections differ from the ones Kioku's hooks use for that agent) and is used,
    with ``description`` and ``body``, when the file has to be created.
    """
    target = Path(path).expanduser()
    if target.is_symlink():
        target = target.resolve()
    with exclusive_lock(_lock_path(target)):
        if target.exists():
            if not target.is_file():
                raise KiokuError(f"{target} is not a regular file; nothing was written")
            raw = target.read_bytes()
            try:
                original = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise KiokuError(f"{target} is not UTF-8 text; nothing was written") from None
            declared = frontmatter_name(original)
            if agent_name and declared and declared != agent_name:
                raise KiokuError(
                    f"{target} defines agent {declared!r}, not {agent_name!r}; nothing was written"
                )
            if not original.strip() and agent_name:  # an empty file is no agent yet: give it one
                updated = _new_file(agent_name, description, body, section_text)
            else:
                updated = splice_text(original, section_text)
            if updated == original:
                return False
            _atomic_replace(target, updated.encode("utf-8"), target.stat().st_mode & 0o777)
            return True
        if not agent_name:
            raise KiokuError(f"{target} does not exist and no agent name was given to create it")
        _atomic_replace(target, _new_file(agent_name, description, body, section_text).encode("utf-8"), 0o600)
        return True


def _new_file(agent_name: str, description: str | None, body: str | None, section_text: str) -> str:
    return new_agent_file(
        agent_name,
        description or f"The {agent_name} agent. Describe here when Claude should delegate to it.",
        body or f"You are the {agent_name} agent.",
        section_text,
    )


def _lock_path(target: Path) -> Path:
    digest = hashlib.sha256(str(target.absolute()).encode("utf-8")).hexdigest()[:16]
    return paths.state_dir() / "locks" / f"agent-file-{digest}.lock"


def _atomic_replace(target: Path, data: bytes, mode: int) -> None:
    # Not fsutil.atomic_write_bytes: that one makes the parent folder 0700, which is right for
    # memory folders but would silently change the permissions of a user's .claude/agents.
    fsutil.replace_file_bytes(target, data, mode)
