"""File-name-safe names and comparison keys (stdlib only; hooks import it).

- :func:`safe_name` turns an agent or session name into a file name. With ``unique=True`` an
  8-hex-digit hash of the original is appended, so two names that clean to the same text
  ("a/b" and "a_b") never share a file.
- :func:`normalise_lesson` is the comparison key of a lesson: NFKC, case-folded, single
  spaces, no trailing punctuation. Two wordings with the same key are the same lesson.
"""

from __future__ import annotations

import unicodedata

# No regular expressions: the every-prompt hook names its session ledger and digests with
# these, and ``re`` costs it several milliseconds to import.
_SAFE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _replace_unsafe_runs(name: str) -> str:
    """Each run of characters outside ``[A-Za-z0-9._-]`` replaced by one ``_``."""
    if all(c in _SAFE_CHARS for c in name):
        return name
    out: list[str] = []
    in_run = False
    for c in name:
        if c in _SAFE_CHARS:
            out.append(c)
            in_run = False
        elif not in_run:
            out.append("_")
            in_run = True
    return "".join(out)


def safe_name(name: str, *, unique: bool = False) -> str:
    cleaned = _replace_unsafe_runs(name or "").replace("..", "_").strip("._")[:120] or "_"
    if not unique:
        return cleaned
    from kioku.infra.sha import sha256

    return f"{cleaned[:80]}-{sha256((name or '').encode('utf-8')).hexdigest()[:8]}"


def normalise_lesson(text: str) -> str:
    norm = unicodedata.normalize("NFKC", text or "").casefold()
    return " ".join(norm.split()).rstrip(" .!。！")


# Characters a per-agent file may be named with as they are: lowercase only, so the name is also
# unique on a case-insensitive file system, and no '.', which marks the hashed form below.
_PLAIN_STEM_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_MAX_PLAIN_STEM = 100


def agent_file_stem(agent: str) -> str:
    """The name of an agent's own files (digest, maintenance stamp, archive folder, lock),
    different for every agent name.

    A name of lowercase letters, digits, ``_`` and ``-`` that starts with a letter or digit is
    used as it is. Any other name becomes its file-safe form, a ``.`` and 16 hex digits of the
    SHA-256 of the name: the dot keeps the two forms apart (a plain stem never holds one), the
    hash keeps apart names whose safe forms are equal (``a.`` and ``a``, ``Main`` and ``main``).
    """
    if (agent and len(agent) <= _MAX_PLAIN_STEM and agent[0] not in "_-"
            and all(c in _PLAIN_STEM_CHARS for c in agent)):
        return agent
    from kioku.infra.sha import sha256

    return f"{safe_name(agent)[:80]}.{sha256(agent.encode('utf-8')).hexdigest()[:16]}"
