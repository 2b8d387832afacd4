"""Source speaks of the code: no words about how it came to be written, no document outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "kioku"
WORDS = re.compile(r"seed[ _]rule|\bthe spec\b|\breviewers?\b|\bthis round\b|chroma\.md", re.I)
# "reviewer" is also a role a memory can name ("the reviewer is Sato"): the contradiction detector's word list
ROLE_WORDS = SRC / "memory" / "contradict" / "words.py"


def test_no_source_line_speaks_of_how_the_code_was_made() -> None:
    found = []
    for path in SRC.rglob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if path == ROLE_WORDS and line.startswith("_IDENTITY_HEADS"):
                line = line.replace('"reviewer"', "")
            if WORDS.search(line):
                found.append(f"{path.relative_to(SRC)}:{n}: {line.strip()}")
    assert found == []
