#!/usr/bin/env python3
"""How often the hooks give the lesson written for a task when many lessons share one of its words.

    python scripts/bench/lesson_crowding.py [--floors 0.3,0.15,0] [--sessions 400] [--json OUT]

The store (``scripts/bench/data/lesson_crowding.json``) holds 60 lessons for agent ``main``, 20
of them about Docker and 5 more naming Postgres, stored with ``kioku lessons learn``'s code in a
throw-away home. Each task names such a word and has the lessons written for it as gold. For
each relevance floor, every task goes through the hooks' selection
(``kioku.learning.select.select``, the default hold-back, ``--sessions`` sessions each) and the
bench reports how many lessons were eligible and the share of sessions given a gold lesson,
twice: with undecided lessons sharing the slots by lexical score (what the hooks do) and in
random order (every inclusion chance equal, as before the score counted). In random order every
lesson the floor lets in lowers the chance of the ones written for the task. The learning-loop
simulation cannot show this: there every lesson of a kind is about that kind's tasks.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
from throwaway import emit, throwaway_project  # noqa: E402  (beside this script)

DATA = Path(__file__).resolve().parent / "data" / "lesson_crowding.json"


def run(floors: list[float], sessions: int) -> dict:
    with throwaway_project("kioku-crowding-") as project:
        from kioku.lessons.digest import read_digest
        from kioku.lessons.improvements import learn
        from kioku.learning import select

        data = json.loads(DATA.read_text(encoding="utf-8"))
        # a lesson may be stored in both scopes, under an id in each
        ids = [set(learn("main", text, "workflow", 0.8, project_root=project)) for text in data["lessons"]]
        pool = read_digest("main", project_root=project)
        shipped_floor, by_score = select.RELEVANCE_FLOOR, select.inclusion_chances

        def equal_chances(weights: list[float], m: int) -> list[float]:
            return by_score([1.0] * len(weights), m)

        report: dict = {"shipped_floor": shipped_floor, "sessions": sessions, "orders": {}}
        try:
            for order, chances in (("by_score", by_score), ("random", equal_chances)):
                select.inclusion_chances = chances
                floors_report = report["orders"][order] = {}
                for floor in floors:
                    select.RELEVANCE_FLOOR = floor
                    rows = []
                    for task in data["tasks"]:
                        gold = set().union(*(ids[i] for i in task["gold"]))
                        hit = eligible = 0
                        for s in range(sessions):
                            chosen = select.select("main", project, task["q"], session_id=f"s{s}", turn="t",
                                                   pool=pool)
                            hit += bool(gold & {str(e["id"]) for e in chosen.given})
                            eligible += len(chosen.given) + len(chosen.held_back)
                        rows.append({"task": task["q"], "gold_given": round(hit / sessions, 3),
                                     "eligible": round(eligible / sessions, 1)})
                    floors_report[str(floor)] = {
                        "tasks": rows, "gold_given_mean": round(sum(r["gold_given"] for r in rows) / len(rows), 3)}
        finally:
            select.RELEVANCE_FLOOR, select.inclusion_chances = shipped_floor, by_score
        return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--floors", default="0.3,0.15,0", help="comma-separated relevance floors to compare")
    ap.add_argument("--sessions", type=int, default=400)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    emit(run([float(f) for f in args.floors.split(",")], args.sessions), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
