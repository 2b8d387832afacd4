#!/usr/bin/env python3
"""Lesson retrieval quality on the project's own labelled set, through ``kioku lessons search``' code.

Usage::

    python scripts/bench/lesson_search.py [--data scripts/bench/data/lessons.json] [--fit] [--json OUT]

The set (``scripts/bench/data/lessons.json``): lessons an agent learned (English and
Japanese), tasks that paraphrase a situation where one applies (gold = the helpful lessons)
and unrelated requests (small talk, English and Japanese; gold = nothing). Each lesson is
stored with ``kioku.lessons.improvements.learn`` (global scope, confidence 0.85) into a real
embedded ChromaDB under a throw-away home; each task goes through
``kioku.lessons.improvements.retrieve`` (limit 5), the function ``kioku lessons search`` calls.

Tasks are split in halves by a CRC32 of their text (``tune`` / ``held_out``). Reported per
half and language: ``hit@1``, ``hit@3`` (a gold lesson first / among the first three; no
result is a miss) and ``unrelated_empty`` (share of unrelated requests that get no lesson).
Rows: ``kioku`` (``retrieve`` as shipped), and re-rankings of the same candidates:
``rrf_cosine`` (reciprocal rank fusion, lexical weight 0.5 and the cosine floor alone: the
previous ranking),
``dense_only`` (MiniLM cosine order, same cut-off as ``kioku``), ``rrf`` (RRF with the
shipped cut-off). A last line reports the hooks' selection on the same set (the lesson step
of UserPromptSubmit, ``kioku.learning.inject.inject_lessons``: the FTS5 index only, at most 5
lessons within the hook's character budget, no hold-back): the share of tasks given a helpful
lesson, and of unrelated requests given none. The hooks' selection and ``retrieve`` are also
run on a second set written blind by someone who never read the selection code
(``--blind``, default ``scripts/bench/data/lesson_tasks_blind.json``): 40 more tasks a lesson
helps with and 70 coding tasks no lesson helps with that share an everyday word with some
lesson ("use", "run", "check", a Docker *volume* and a *volume* slider). Reported per half:
``helpful_given`` (tasks given a helpful lesson), ``precision`` (share of all lessons given,
over both lists, that help the task) and ``unrelated_empty`` (unhelped tasks given none).
``--fit`` grid-searches the fusion method and the lexical weight on the
tune half (objective hit@1 + hit@3 + unrelated_empty) and reports them on both halves. The
relevance cut-off is not fitted here: it is the one fitted on the memory set
(``scripts/bench/memory_search.py``), which has more labelled questions; fitting five
parameters on this set's 20 tune tasks over-fitted (held-out unrelated_empty fell to 0.63).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[2]
for extra in (REPO / "src", REPO / "scripts" / "bench"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from memory_search import half, report, score  # noqa: E402  (same split, metrics and table as the memory set)

DEFAULT_DATA = REPO / "scripts" / "bench" / "data" / "lessons.json"
BLIND_DATA = REPO / "scripts" / "bench" / "data" / "lesson_tasks_blind.json"
AGENT = "bench"
GRID = {
    "fusion": ["score", "rrf"],
    "lexical_weight": [0.0, 0.25, 0.5, 0.75, 1.0, 1.5],
}
FIELDS = ("fusion", "lexical_weight")


def setup(data: dict, root: Path) -> tuple[Path, dict[str, str]]:
    home, project = root / "home", root / "project"
    (project / ".git").mkdir(parents=True)
    os.environ.update({"HOME": str(home), "KIOKU_USER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
                       "KIOKU_HOME": str(home / ".claude" / "kioku")})
    from kioku.lessons.improvements import learn

    ids: dict[str, str] = {}
    for lesson in data["lessons"]:
        for rec_id in learn(AGENT, lesson["text"], lesson["category"], 0.85, scope="global", project_root=project):
            ids[rec_id] = lesson["id"]
    return project, ids


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--fit", action="store_true", help="fit LessonRanking on the tune half")
    parser.add_argument("--json", type=Path, help="write results as JSON here")
    parser.add_argument("--blind", type=Path, default=BLIND_DATA, help="tasks written blind (see above)")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    blind = json.loads(args.blind.read_text(encoding="utf-8"))
    items = data["tasks"] + data["unrelated"]
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="kioku-bench-") as tmp:
        project, ids = setup(data, Path(tmp))
        from kioku.lessons import improvements as im

        rows = [(item, [ids.get(h.id, "?") for h in im.retrieve(AGENT, item["q"], limit=5, project_root=project)])
                for item in items]
        results["kioku"] = score(rows)
        wanted = ["global"]
        candidates = [(item, im.lesson_candidates(AGENT, item["q"], 5, project, wanted)) for item in items]
        threshold = im.relevance_threshold(project)

        def rerank(ranking, part: str | None = None):
            out = []
            for item, c in candidates:
                if part and half(item["q"]) != part:
                    continue
                hits = im._rank(im.rank_candidates(c, threshold, ranking), 5)
                out.append((item, [ids.get(h.id, "?") for h in hits]))
            return out

        shipped = im.RANKING
        results["rrf_cosine"] = score(rerank(replace(shipped, fusion="rrf", lexical_weight=0.5, coverage_weight=0.0,
                                                     min_relevance=-9, min_relevance_cjk=-9)))
        results["rrf"] = score(rerank(replace(shipped, fusion="rrf")))
        results["dense_only"] = score(rerank(replace(shipped, fusion="score", lexical_weight=0.0)))
        if args.fit:
            best, best_value = shipped, -1.0
            for values in itertools.product(*(GRID[f] for f in FIELDS)):
                ranking = replace(shipped, **dict(zip(FIELDS, values)))
                m = score(rerank(ranking, "tune"))["tune"]["all"]
                value = (m["hit@1"] or 0) + (m["hit@3"] or 0) + (m["unrelated_empty"] or 0)
                if value > best_value + 1e-9:
                    best, best_value = ranking, value
            results["fitted"] = {"config": {f: getattr(best, f) for f in FIELDS}, **score(rerank(best))}
        results["hook_selection"] = hook_selection(data, project, ids)
        blind_results = {"hook": selection_quality(blind, lambda q: hook_given(project, ids, q)),
                         "kioku_improvements": selection_quality(blind, lambda q: {
                             ids.get(h.id, "?") for h in im.retrieve(AGENT, q, limit=5, project_root=project)})}
    print(f"{len(data['lessons'])} lessons, {len(data['tasks'])} tasks, {len(data['unrelated'])} unrelated requests")
    hook = results.pop("hook_selection")
    report(results, args.json, name_width=11)
    print("hook selection (FTS5, 5 given): " + "; ".join(
        f"{part}: helpful lesson given {m['helpful_given']:.3f} of {m['tasks']} tasks, unrelated given none "
        f"{m['unrelated_empty']:.3f} of {m['unrelated']}" for part, m in hook.items()))
    for name, parts in blind_results.items():
        print(f"blind set, {name}: " + "; ".join(
            f"{part}: helpful lesson given {m['helpful_given']:.3f} of {m['tasks']} tasks, precision "
            f"{m['precision']:.3f} of {m['given']} lessons given, unhelped tasks given none "
            f"{m['unrelated_empty']:.3f} of {m['unrelated']}" for part, m in parts.items()))
    if args.json:
        saved = json.loads(args.json.read_text(encoding="utf-8"))
        args.json.write_text(json.dumps({**saved, "hook_selection": hook, "blind": blind_results}, indent=2,
                                        ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def hook_given(project: Path, ids: dict[str, str], task: str) -> set[str]:
    """The set's ids of the lessons UserPromptSubmit would give ``task`` (no hold-back)."""
    from kioku.hooks import common as _common, user_prompt_submit

    os.environ["KIOKU_HOLD_BACK"] = "0"  # the hook reads its hold-back share from here; the digest is learn's
    _block, chosen, _held, _chances = _common.inject_lessons(
        AGENT, project, task, session_id="bench", turn=task, budget=user_prompt_submit.LESSONS_BUDGET, exclude=set())
    return {ids.get(rec_id, "?") for rec_id in chosen}


def hook_selection(data: dict, project: Path, ids: dict[str, str]) -> dict:
    """What UserPromptSubmit would give each task (no hold-back)."""
    out: dict = {}
    for part in ("tune", "held_out"):
        tasks = [t for t in data["tasks"] if half(t["q"]) == part]
        unrelated = [t for t in data["unrelated"] if half(t["q"]) == part]
        given = [hook_given(project, ids, t["q"]) for t in tasks]
        out[part] = {"helpful_given": round(sum(bool(g & set(t["gold"])) for g, t in zip(given, tasks)) / len(tasks), 3),
                     "tasks": len(tasks),
                     "unrelated_empty": round(sum(not hook_given(project, ids, t["q"]) for t in unrelated)
                                              / len(unrelated), 3),
                     "unrelated": len(unrelated)}
    return out


def selection_quality(blind: dict, given) -> dict:
    """helpful_given, precision and unrelated_empty of ``given(task) -> ids`` on the blind set, per half."""
    out: dict = {}
    for part in ("tune", "held_out"):
        related = [(t, given(t["q"])) for t in blind["related"] if half(t["q"]) == part]
        unrelated = [given(t["q"]) for t in blind["unrelated_tasks"] if half(t["q"]) == part]
        total = sum(len(g) for _t, g in related) + sum(len(g) for g in unrelated)
        helpful = sum(len(g & set(t["gold"])) for t, g in related)
        out[part] = {"helpful_given": round(sum(bool(g & set(t["gold"])) for t, g in related) / len(related), 3),
                     "tasks": len(related), "precision": round(helpful / total, 3) if total else None,
                     "given": total, "unrelated_empty": round(sum(not g for g in unrelated) / len(unrelated), 3),
                     "unrelated": len(unrelated)}
    return out


if __name__ == "__main__":
    raise SystemExit(main())
