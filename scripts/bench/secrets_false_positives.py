#!/usr/bin/env python3
"""False positives of the secrets scanner on natural conversation (LoCoMo turns).

    .venv/bin/python scripts/bench/secrets_false_positives.py --data ../shared/bench/locomo-dev.json

Every dialogue turn of the data set is ordinary chit-chat, so every turn the scanner flags is a
false positive. Prints the count (and the first flagged turns) and exits 1 when there is any.
The data set lives outside the repository, so this is a benchmark, not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from kioku.text.secrets import contains_secret  # noqa: E402


def dialogue_turns(data: list[dict]) -> list[str]:
    return [turn["text"] for conv in data for value in conv["conversation"].values()
            if isinstance(value, list) for turn in value if isinstance(turn, dict) and "text" in turn]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="a LoCoMo JSON file")
    args = parser.parse_args()
    turns = dialogue_turns(json.loads(args.data.read_text(encoding="utf-8")))
    flagged = [turn[:80] for turn in turns if contains_secret(turn)]
    print(json.dumps({"turns": len(turns), "flagged": len(flagged), "examples": flagged[:10]}, ensure_ascii=False))
    return 1 if flagged or len(turns) < 1000 else 0


if __name__ == "__main__":
    raise SystemExit(main())
