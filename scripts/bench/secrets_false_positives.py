#!/usr/bin/env python3
"""False positives of the secrets scanner on natural conversation and on real coding sessions.

    .venv/bin/python scripts/bench/secrets_false_positives.py --data ../shared/bench/locomo-dev.json \
        [--transcripts ../shared/bench/transcripts ../shared/bench/transcripts-2]

- ``--data``: every dialogue turn of a LoCoMo file is ordinary chit-chat, so every turn the scanner
  flags is a false positive. Prints the count, the first flagged turns and the scan's cost (CPU
  microseconds per turn, and per KB); exits 1 when any turn is flagged.
- ``--transcripts``: the prose of real Claude Code sessions (what the user typed, what the
  assistant answered, the commands it ran; not tool output, which holds images and ids): every
  finding is counted by kind, with its text shown redacted (a real session may hold a real secret).
  These are reported, not failed on: a session may quote a key on purpose.

The data live outside the repository, so this is a benchmark, not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from kioku.text.secrets import find_secrets, redact  # noqa: E402


def dialogue_turns(data: list[dict]) -> list[str]:
    return [turn["text"] for conv in data for value in conv["conversation"].values()
            if isinstance(value, list) for turn in value if isinstance(turn, dict) and "text" in turn]


def session_prose(folder: Path) -> list[str]:
    """User prompts, assistant text and Bash commands of every session file under ``folder``."""
    texts: list[str] = []
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            message = entry.get("message") if isinstance(entry, dict) else None
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
                continue
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    texts.append(block["text"])
                elif block.get("type") == "tool_use" and isinstance((block.get("input") or {}).get("command"), str):
                    texts.append(block["input"]["command"])
    return texts


def cpu_cost(texts: list[str]) -> tuple[float, float]:
    """CPU microseconds per text and per KB of text for one scan of each."""
    start = time.process_time()
    for text in texts:
        find_secrets(text)
    spent = time.process_time() - start
    size = sum(len(t) for t in texts) or 1
    return round(spent / max(1, len(texts)) * 1e6, 1), round(spent / size * 1024 * 1e6, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="a LoCoMo JSON file")
    parser.add_argument("--transcripts", nargs="*", type=Path, default=[], help="folders of session files")
    args = parser.parse_args()
    turns = dialogue_turns(json.loads(args.data.read_text(encoding="utf-8")))
    flagged = [turn[:80] for turn in turns if find_secrets(turn)]
    per_turn, per_kb = cpu_cost(turns)
    report: dict = {"turns": len(turns), "flagged": len(flagged), "examples": flagged[:10],
                    "cpu_us_per_turn": per_turn, "cpu_us_per_kb": per_kb}
    if args.transcripts:
        texts = [t for folder in args.transcripts for t in session_prose(folder)]
        kinds: Counter[str] = Counter()
        shown: list[str] = []
        for text in texts:
            findings = find_secrets(text)
            kinds.update(f.kind for f in findings)
            if findings and len(shown) < 15:
                f = findings[0]
                shown.append(redact(text[max(0, f.start - 40):f.end + 20]).replace("\n", " "))
        per_text, per_kb = cpu_cost(texts)
        report["sessions"] = {"texts": len(texts), "kb": round(sum(map(len, texts)) / 1024),
                              "texts_flagged": sum(1 for t in texts if find_secrets(t)), "findings": dict(kinds),
                              "examples_redacted": shown, "cpu_us_per_text": per_text, "cpu_us_per_kb": per_kb}
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return 1 if flagged or len(turns) < 1000 else 0


if __name__ == "__main__":
    raise SystemExit(main())
