#!/usr/bin/env python3
"""What ``kioku lessons consolidate`` makes of two agents' lessons: shared, a conflict, or apart.

    python scripts/bench/consolidation_pairs.py [--json OUT]

The set (``scripts/bench/data/consolidation_pairs.json``) holds pairs of lessons labelled
paraphrase (the same lesson in other words), different_value (the same sentence with another
tool, number, option or choice in one place: the lessons disagree) and different_lesson (same
topic, compatible, distinct). Each pair's lessons are stored with ``kioku lessons learn``'s code for two
agents of their own in a throw-away home, and ``kioku lessons consolidate``'s code (dry run) is asked
about those two agents. A pair is "shared" when it comes back as an equivalent group (it would be
cross-validated and transferred), "conflict" when it comes back as a conflict, else "apart".
Reported per half and label.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
from throwaway import emit, throwaway_project  # noqa: E402  (beside this script)

DATA = Path(__file__).resolve().parent / "data" / "consolidation_pairs.json"


def outcome(report: dict) -> str:
    if report["conflicts"]:
        return "conflict"
    return "shared" if report["equivalent_groups"] else "apart"


def run(pairs: list[dict]) -> list[str]:
    with throwaway_project("kioku-consolidation-") as project:
        from kioku.lessons.consolidate import consolidate
        from kioku.lessons.improvements import learn

        for n, pair in enumerate(pairs):
            learn(f"pair{n}-a", pair["a"], "general", 0.8, project_root=project)
            learn(f"pair{n}-b", pair["b"], "general", 0.8, project_root=project)
        return [outcome(consolidate([f"pair{n}-a", f"pair{n}-b"], dry_run=True, project_root=project))
                for n in range(len(pairs))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    pairs = json.loads(DATA.read_text(encoding="utf-8"))["pairs"]
    outcomes = run(pairs)
    counts: dict[str, dict[str, Counter[str]]] = {}
    for pair, got in zip(pairs, outcomes):
        counts.setdefault(pair["half"], {}).setdefault(pair["label"], Counter())[got] += 1
    print(f"{'half':9s} {'label':17s} {'pairs':>5s} {'shared':>7s} {'conflict':>8s} {'apart':>6s}")
    for half in ("tune", "held_out"):
        for label in ("paraphrase", "different_value", "different_lesson"):
            c = counts.get(half, {}).get(label, Counter())
            print(f"{half:9s} {label:17s} {sum(c.values()):5d} {c['shared']:7d} {c['conflict']:8d} {c['apart']:6d}")
    emit({h: {label: dict(c) for label, c in v.items()} for h, v in counts.items()}, args.json, show=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
