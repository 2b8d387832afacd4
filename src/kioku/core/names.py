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
    from kioku.core.sha import sha256

    return f"{cleaned[:80]}-{sha256((name or '').encode('utf-8')).hexdigest()[:8]}"


def normalise_lesson(text: str) -> str:
    norm = unicodedata.normalize("NFKC", text or "").casefold()
    return " ".join(norm.split()).rstrip(" .!。！")
