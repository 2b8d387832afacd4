#!/usr/bin/env python3
"""Write ``src/kioku/retrieval/common_words.txt``: the most frequent English words, as tokens.

    python scripts/make_common_words.py [--check]

The lesson step of the hooks (``kioku.learning.select``) must tell a task that shares only an
everyday word with a lesson ("how do I *use* the new logger?") from one that shares a word
naming the thing, without loading a model. The WordPiece vocabulary of all-MiniLM-L6-v2
(installed with Kioku) lists whole words roughly from the most to the least frequent in its
training text, starting at id 1996 ("the", "of", "and", ...). The first
:data:`COMMON_WORDS` alphabetic ASCII entries, lower-cased, are written with their Kioku token
(``kioku.retrieval.text.stem``: "changed" is "chang", so "chang" is an everyday token too),
except :data:`SOFTWARE_WORDS`: words general English uses often ("deployed", "released",
"installed") that in a developer's prompt name the operation a lesson is about. ``--check`` exits 1 when the
file differs from what this script would write (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

COMMON_WORDS = 5000
SOFTWARE_WORDS = ("deploy", "commit", "merge", "rebase", "release", "install", "migrate", "compile")
FIRST_WORD_ID = 1996  # ids below are padding, unused slots, special tokens and single characters
TARGET = REPO / "src" / "kioku" / "retrieval" / "common_words.txt"
HEADER = ("# The 5,000 most frequent English words (all-MiniLM-L6-v2's WordPiece vocabulary order) and their\n"
          "# Kioku tokens, less a few words of software work. Made by scripts/make_common_words.py; do not\n"
          "# edit by hand.\n")


def build() -> str:
    from kioku.retrieval.embedder import model_files
    from kioku.retrieval.text import stem

    vocab = json.loads(model_files()[1].read_text(encoding="utf-8"))["model"]["vocab"]
    words = [w for w, i in sorted(vocab.items(), key=lambda item: item[1])
             if i >= FIRST_WORD_ID and w.isascii() and w.isalpha()][:COMMON_WORDS]
    software = {t for w in SOFTWARE_WORDS for t in (w, stem(w), stem(w + "d"), stem(w + "s"))}
    tokens = sorted({t for w in words for t in (w.lower(), stem(w.lower()))} - software)
    return HEADER + "\n".join(tokens) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is not up to date")
    args = parser.parse_args(argv)
    text = build()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(REPO)} is out of date: run scripts/make_common_words.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(REPO)} ({text.count(chr(10)) - HEADER.count(chr(10))} tokens)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
