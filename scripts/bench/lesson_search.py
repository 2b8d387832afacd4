#!/usr/bin/env python3
"""Lesson retrieval quality on the project's own labelled set, through ``kioku lessons search``' code.

Usage::

    python scripts/bench/lesson_search.py [--data scripts/bench/data/lessons.json] [--fit] [--json OUT]
    python scripts/bench/lesson_search.py --export-enrichment DIR      # the enrichment requests, then stop
    python scripts/bench/lesson_search.py --enrichment DIR [--fit]      # DIR's answers (F.answer) beside today's

The set (``scripts/bench/data/lessons.json``): lessons an agent learned (English and
Japanese), tasks that paraphrase a situation where one applies (gold = the helpful lessons)
and unrelated requests (small talk, English and Japanese; gold = nothing). Each lesson is
stored with ``kioku.lessons.improvements.learn`` (global scope, confidence 0.85) into a real
embedded ChromaDB under a throw-away home; each task goes through
``kioku.lessons.lesson_retrieval.retrieve`` (limit 5), the function ``kioku lessons search`` calls.

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

The set's ``cross_language`` tasks are in the other language than the lesson that helps
(``ja→en``, ``en→ja``, ``cross``: both), reported on their own as in the memory bench;
``p50_ms`` is the median time of one ``retrieve`` (warm; each task embedded in its timed call).

Search enrichment: ``--export-enrichment DIR`` stores the lessons and writes the requests
``kioku enrich --export-prompts`` would send for them, then stops; ``--enrichment DIR`` reads
the answers beside them (``F.answer``, ``kioku enrich --import``) and adds ``kioku+enrichment``
(``retrieve`` with the lessons' enrichment), the blind set's ``kioku_improvements+enrichment``
and a side-by-side table. The hooks' selection reads the FTS5 index of the lessons' text only:
it is the same with and without. With ``--fit`` and ``--enrichment``, the enrichment's weight
and its own cut-offs (``enrichment_margin``, ``min_relevance_enrich_cjk``) are fitted on the
tune half as well, reported as ``fitted+enrichment``: of the configurations that leave as many
of the tune half's unrelated requests unanswered as the text alone does, the one with the best
hit@1 + hit@3 of its tasks and its cross-language tasks (ties: the stricter cut-off).
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

from memory_search import (ENRICH_GRID, forget_query_vectors, half, items_of, report, score,  # noqa: E402
                           side_by_side)  # the same split, metrics, table and timing

DEFAULT_DATA = REPO / "scripts" / "bench" / "data" / "lessons.json"
BLIND_DATA = REPO / "scripts" / "bench" / "data" / "lesson_tasks_blind.json"
AGENT = "bench"
GRID = {
    "fusion": ["score", "rrf"],
    "lexical_weight": [0.0, 0.25, 0.5, 0.75, 1.0, 1.5],
}
FIELDS = ("fusion", "lexical_weight")
ENRICHMENT_GRID = {  # the cut-offs strictest first: of configurations equal on the tune half, the stricter is kept
    "enrichment_weight": [0.25, 0.5, 0.75, 1.0, 1.5, 2.0],
    "enrichment_margin": [round(0.05 * i, 2) for i in range(6, -1, -1)],  # bar = min_relevance + this
    "min_relevance_enrich_cjk": sorted(ENRICH_GRID["min_relevance_enrich_cjk"], reverse=True),
}
ENRICHMENT_FIELDS = tuple(ENRICHMENT_GRID)


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


def retrieve_rows(items: list[dict], project: Path, ids: dict[str, str], enrichment: bool) -> tuple[list, float]:
    """(rows, median milliseconds of one ``retrieve``) as ``kioku improvements`` retrieves."""
    import time

    from kioku.lessons import lesson_retrieval as lr

    lr.retrieve(AGENT, "warm up", limit=5, project_root=project, enrichment=enrichment)
    forget_query_vectors()
    rows, times = [], []
    for item in items:
        start = time.perf_counter()
        hits = lr.retrieve(AGENT, item["q"], limit=5, project_root=project, enrichment=enrichment)
        times.append(time.perf_counter() - start)
        rows.append((item, [ids.get(h.id, "?") for h in hits]))
    return rows, round(1000 * sorted(times)[len(times) // 2], 2)


def enrichment_io(project: Path, export: Path | None, answers: Path | None) -> dict:
    """Write the enrichment requests for the stored lessons, or read the answers beside them."""
    from kioku.enrich import files
    from kioku.enrich.targets import lesson_items
    from kioku.model.settings import load_settings

    items = lesson_items(project, AGENT)
    if export is not None:
        index = files.export_requests(items, export, load_settings(project).model)
        return {"items": len(items), "files": len(index["calls"]), "folder": str(export)}
    report_ = files.import_answers(answers, items)
    return {"files": report_.calls, "answered": len(report_.answered), "missing": len(report_.missing),
            "skipped": len(report_.skipped), "enriched": len(report_.run.enriched), "failed": len(report_.run.failed)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--fit", action="store_true", help="fit LessonRanking on the tune half")
    parser.add_argument("--json", type=Path, help="write results as JSON here")
    parser.add_argument("--blind", type=Path, default=BLIND_DATA, help="tasks written blind (see above)")
    parser.add_argument("--export-enrichment", type=Path, metavar="DIR",
                        help="write the enrichment requests for the set's lessons to DIR and stop")
    parser.add_argument("--enrichment", type=Path, metavar="DIR",
                        help="an export folder with answers (F.answer): add the rows with enrichment")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    blind = json.loads(args.blind.read_text(encoding="utf-8"))
    items = items_of(data)
    results: dict = {}
    loaded: dict = {}
    with tempfile.TemporaryDirectory(prefix="kioku-bench-") as tmp:
        project, ids = setup(data, Path(tmp))
        if args.export_enrichment:
            print(json.dumps(enrichment_io(project, args.export_enrichment, None)))
            return 0
        from kioku.lessons import lesson_retrieval as lr

        rows, p50 = retrieve_rows(items, project, ids, enrichment=False)
        results["kioku"] = {**score(rows), "p50_ms": p50}
        if args.enrichment:
            loaded = enrichment_io(project, None, args.enrichment)
            rows, p50 = retrieve_rows(items, project, ids, enrichment=True)
            results["kioku+enrichment"] = {**score(rows), "p50_ms": p50}
        wanted = ["global"]
        candidates = [(item, lr.lesson_candidates(AGENT, item["q"], 5, project, wanted, enrichment=False))
                      for item in items]
        enriched = ([(item, lr.lesson_candidates(AGENT, item["q"], 5, project, wanted)) for item in items]
                    if args.enrichment else [])
        threshold = lr.relevance_threshold(project)

        def rerank(ranking, part: str | None = None, pool=None):
            out = []
            for item, c in (candidates if pool is None else pool):
                if part and half(item["q"]) != part:
                    continue
                hits = lr._rank(lr.rank_candidates(c, threshold, ranking), 5)
                out.append((item, [ids.get(h.id, "?") for h in hits]))
            return out

        shipped = lr.RANKING
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
            if args.enrichment:
                best_e = fit_enrichment(best, lambda ranking: score(rerank(ranking, "tune", enriched))["tune"],
                                        strictness=results["fitted"]["tune"]["all"]["unrelated_empty"] or 0.0)
                results["fitted+enrichment"] = {"config": {f: getattr(best_e, f) for f in (*FIELDS, *ENRICHMENT_FIELDS)},
                                                **score(rerank(best_e, pool=enriched))}
        results["hook_selection"] = hook_selection(data, project, ids)
        blind_results = {"hook": selection_quality(blind, lambda q: hook_given(project, ids, q)),
                         "kioku_improvements": selection_quality(blind, lambda q: {
                             ids.get(h.id, "?") for h in lr.retrieve(AGENT, q, limit=5, project_root=project,
                                                                      enrichment=False)})}
        if args.enrichment:
            blind_results["kioku_improvements+enrichment"] = selection_quality(blind, lambda q: {
                ids.get(h.id, "?") for h in lr.retrieve(AGENT, q, limit=5, project_root=project)})
    print(f"{len(data['lessons'])} lessons, {len(data['tasks'])} tasks, {len(data['unrelated'])} unrelated requests, "
          f"{len(data.get('cross_language', []))} cross-language")
    if loaded:
        print("enrichment answers read: " + ", ".join(f"{k} {v}" for k, v in loaded.items()))
        results["enrichment_import"] = loaded
    hook = results.pop("hook_selection")
    report(results, args.json, name_width=17)
    print("hook selection (FTS5, 5 given): " + "; ".join(
        f"{part}: helpful lesson given {m['helpful_given']:.3f} of {m['tasks']} tasks, unrelated given none "
        f"{m['unrelated_empty']:.3f} of {m['unrelated']}" for part, m in hook.items()))
    for name, parts in blind_results.items():
        print(f"blind set, {name}: " + "; ".join(
            f"{part}: helpful lesson given {m['helpful_given']:.3f} of {m['tasks']} tasks, precision "
            f"{m['precision']:.3f} of {m['given']} lessons given, unhelped tasks given none "
            f"{m['unrelated_empty']:.3f} of {m['unrelated']}" for part, m in parts.items()))
    if args.enrichment:
        side_by_side(results, [("kioku", "kioku+enrichment")])
    if args.json:
        saved = json.loads(args.json.read_text(encoding="utf-8"))
        args.json.write_text(json.dumps({**saved, "hook_selection": hook, "blind": blind_results}, indent=2,
                                        ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def fit_enrichment(base, tune_metrics, strictness: float):
    """The enrichment's weight and cut-offs (``ENRICHMENT_GRID``) over ``base``, fitted on the tune half:
    among the configurations whose tune unrelated_empty is at least ``strictness`` (the text-only
    ranking's: the enrichment may not answer a request the text leaves unanswered), the one with the
    best hit@1 + hit@3 of the tune half's tasks and of its cross-language ones (ties: the first in
    grid order, which lists the cut-offs strictest first). ``tune_metrics(ranking)`` scores a ranking on the tune half; ``base`` is kept when
    no configuration stays as strict."""
    best, best_value = base, -1.0
    for values in itertools.product(*(ENRICHMENT_GRID[f] for f in ENRICHMENT_FIELDS)):
        ranking = replace(base, **dict(zip(ENRICHMENT_FIELDS, values)))
        m = tune_metrics(ranking)
        if (m["all"]["unrelated_empty"] or 0.0) < strictness - 1e-9:
            continue
        value = sum((m[g][k] or 0) for g in ("all", "cross") if g in m for k in ("hit@1", "hit@3"))
        if value > best_value + 1e-9:
            best, best_value = ranking, value
    return best


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
