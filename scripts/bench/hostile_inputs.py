#!/usr/bin/env python3
"""Time of the text steps on hostile input, against their targets (the unit tests check growth only).

    python scripts/bench/hostile_inputs.py [--json OUT] [--check]

Each case runs once warm and reports the best of three runs, in seconds, beside its target:
- ``defang``: 200 runs of ``<`` and 2,000 spaces (target 1 s);
- ``placeholders``: ``ssh`` with 300 ``-a`` flags, then 50,000 ``a.`` (target 2 s);
- ``huge_prompt``: the UserPromptSubmit hook's remember step on a 15 MB prompt, which it cuts
  before any scan (target 1 s);
- ``fts_lookup``: one FTS5 search among 5,000 lessons (target 1 s).
``--check`` exits 1 when a case misses its target. Runs in a throw-away home (``throwaway.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
from throwaway import emit, throwaway_project  # noqa: E402  (beside this script)


def best(call: Callable[[], object], repeat: int = 3) -> float:
    call()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def cases(project: Path) -> dict[str, tuple[Callable[[], object], float]]:
    from kioku.hooks import user_prompt_submit
    from kioku.retrieval.fts import LexicalIndex
    from kioku.text.defang import defang
    from kioku.text.placeholders import placeholders

    idx = LexicalIndex(project / "fts.sqlite3")
    idx.upsert("big", [(f"d{i}", f"lesson {i} about topic{i % 97} and module{i % 13}") for i in range(5000)])
    idx.upsert("big", [("needle", "rotate the signing certificate before it expires")])
    prompt = "remember that we use bun for installs. " + "filler words and more " * 700_000
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(project)}
    return {
        "defang": (lambda: defang(("<" + " " * 2000) * 200 + "x"), 1.0),
        "placeholders": (lambda: (placeholders("ssh " + "-a " * 300 + "-"), placeholders("a." * 50_000)), 2.0),
        "huge_prompt": (lambda: user_prompt_submit.handle(dict(payload)), 1.0),
        "fts_lookup": (lambda: idx.search("big", "when does the signing certificate expire", 5), 1.0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    with throwaway_project("kioku-hostile-", KIOKU_NO_WORKER="1") as project:
        report = {name: {"seconds": round(best(call), 4), "target_s": target}
                  for name, (call, target) in cases(project).items()}
    emit(report, args.json)
    missed = [name for name, row in report.items() if row["seconds"] > row["target_s"]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
