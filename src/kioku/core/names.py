"""File-name-safe names and comparison keys (stdlib only; hooks import it).

- :func:`safe_name` turns an agent or session name into a file name. With ``unique=True`` an
  8-hex-digit hash of the original is appended, so two names that clean to the same text
  ("a/b" and "a_b") never share a file.
- :func:`normalise_lesson` is the comparison key of a lesson: NFKC, case-folded, single
  spaces, no trailing punctuation. Two wordings with the same key are the same lesson.
"""

from __future__ import annotations

import re
import unicodedata

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SPACES = re.compile(r"\s+")


def safe_name(name: str, *, unique: bool = False) -> str:
    cleaned = _UNSAFE.sub("_", name or "").replace("..", "_").strip("._")[:120] or "_"
    if not unique:
        return cleaned
    from kioku.core.sha import sha256

    return f"{cleaned[:80]}-{sha256((name or '').encode('utf-8')).hexdigest()[:8]}"


def normalise_lesson(text: str) -> str:
    norm = unicodedata.normalize("NFKC", text or "").casefold()
    return _SPACES.sub(" ", norm).strip().rstrip(" .!。！")
