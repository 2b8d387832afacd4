#!/usr/bin/env python3
"""Memory search quality on the project's own labelled set, through ``kioku search``'s code.

Usage::

    python scripts/bench/memory_search.py [--data scripts/bench/data/memory_search.json] [--fit] [--json OUT]
    python scripts/bench/memory_search.py --export-enrichment DIR      # the enrichment requests, then stop
    python scripts/bench/memory_search.py --enrichment DIR [--fit]      # DIR's answers (F.answer) beside today's

The set (``scripts/bench/data/memory_search.json``): everyday memories of the four types in
English and Japanese, questions that paraphrase one of them (gold = the memories that answer
it), and unrelated questions (gold = nothing). Each memory is saved with
``kioku.memory.api.remember`` into a throw-away home and project, and each question goes
through ``kioku.memory.search.search`` (the function ``kioku search`` calls), so the figures
are those of the product path.

Questions are split in two halves by a CRC32 of their text (deterministic): ``tune`` and
``held_out``. Reported per half and per language: ``hit@1`` and ``hit@3`` (a gold memory is
the first / among the first three results; a question that gets nothing counts as a miss),
``answered`` (share of answerable questions that get any result) and ``unrelated_empty``
(share of unrelated questions that get nothing). Rows: ``lexical`` (``--lexical``: BM25
only), ``hybrid_uncut`` (the hybrid ranking without the relevance cut-off: the baseline),
``kioku`` (what ``kioku search`` returns) and ``kioku_shown`` (what the command prints: the
hits or, with none, the marked "no close match" section of the nearest three; hit@k counts
that section, ``answered`` and ``unrelated_empty`` count only hits).

The set's ``cross_language`` questions ask in the other language than the memory that answers
them; they are reported on their own (``ja→en``: Japanese questions on English memories,
``en→ja``: the reverse, ``cross``: both) and are not part of ``all`` / ``en`` / ``ja``.
``p50_ms``: the median time of one search, in the same process (warm index; each question's
embedding computed in its timed search, as for a new question).

Search enrichment: ``--export-enrichment DIR`` saves the set's memories as above and writes the
requests ``kioku enrich --export-prompts`` would send for them (``kioku.enrich.files``), one file
per call, then stops. ``--enrichment DIR`` reads the answers beside them (``F.answer``) through
the same parser as live answers (``kioku enrich --import``) into the throw-away home, and adds
the rows ``lexical+enrichment``, ``kioku+enrichment`` and ``kioku_shown+enrichment`` (the same
searches with the enrichment), then a side-by-side table of each row without and with it.

``--fit`` fits the cut-off (``min_coverage``, ``min_cosine``) and the dense weight on the
tune half only (grid search, objective: hit@1 + hit@3 + unrelated_empty, all with the
cut-off applied) and reports the fitted values on both halves next to the defaults. With
``--enrichment`` it also fits, on the tune half and with the enrichment, ``min_relevance_cjk``
and the enrichment's weight and cut-offs (objective: the same plus hit@1 + hit@3 of the tune
half's cross-language questions), reported on both halves as ``fitted+enrichment``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
import tempfile
import time
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

DEFAULT_DATA = REPO / "scripts" / "bench" / "data" / "memory_search.json"
_ID = re.compile(r"\[id ([0-9a-z]+)\]")
GRID = {
    "coverage_weight": [0.0, 0.25, 0.5, 0.75, 1.0],
    "min_relevance": [round(0.2 + 0.025 * i, 3) for i in range(17)],
    "min_relevance_cjk": [round(0.5 + 0.025 * i, 3) for i in range(21)],
    "dense_weight": [0.7, 1.0, 1.3, 2.0],
    "min_coverage": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],  # lexical-only mode (fitted apart)
}
FITTED = ("coverage_weight", "min_relevance", "min_relevance_cjk", "dense_weight", "min_coverage")
ENRICH_GRID = {
    "min_relevance_cjk": GRID["min_relevance_cjk"],
    "enrichment_weight": [0.5, 0.75, 1.0, 1.5],
    "enrichment_margin": [0.0, 0.05, 0.1, 0.15, 0.2],
    "min_relevance_enrich_cjk": [round(0.3 + 0.05 * i, 2) for i in range(9)],
    "min_coverage_enrich": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],  # lexical-only mode (fitted apart)
}
ENRICH_FITTED = ("min_relevance_cjk", "enrichment_weight", "enrichment_margin", "min_relevance_enrich_cjk",
                 "min_coverage_enrich")


def half(text: str) -> str:
    return "tune" if zlib.crc32(text.encode("utf-8")) % 2 == 0 else "held_out"


def lang(text: str) -> str:
    from kioku.retrieval.hybrid import is_cjk_query

    return "ja" if is_cjk_query(text) else "en"


def items_of(data: dict) -> list[dict]:
    """Every question (a lesson set's tasks): the paraphrases, the unrelated ones, then the
    cross-language ones (marked)."""
    return data.get("questions", data.get("tasks", [])) + data["unrelated"] + [{**item, "cross": True} for item in data.get("cross_language", [])]


def groups_of(item: dict) -> tuple[str, ...]:
    """The report groups a question counts in."""
    if item.get("cross"):
        return ("cross", "ja→en" if lang(item["q"]) == "ja" else "en→ja")
    return ("all", lang(item["q"]))


GROUPS = ("all", "en", "ja", "cross", "ja→en", "en→ja")


def setup(data: dict, root: Path) -> tuple[Path, dict[str, str]]:
    """Save every memory into a fresh home + project; returns (project, entry id -> memory id)."""
    home, project = root / "home", root / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    os.environ.update({"HOME": str(home), "KIOKU_USER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
                       "KIOKU_HOME": str(home / ".claude" / "kioku")})
    from kioku.memory.api import remember

    ids: dict[str, str] = {}
    for m in data["memories"]:
        result = remember(m["text"], type=m["type"], topic=m["topic"], project_root=project)
        if result.status != "saved":
            raise SystemExit(f"memory {m['id']} was not saved ({result.status}); fix the data set")
        ids[result.id] = m["id"]
    return project, ids


def run_search(data: dict, project: Path, ids: dict[str, str], dense: bool | str,
               enrichment: bool = False) -> tuple[list[tuple[dict, list[str]]], float]:
    """(rows, median milliseconds of one search) of ``kioku.memory.search.search``."""
    from kioku.memory.search import search

    search("warm up", project_root=project, dense=dense, enrichment=enrichment)  # builds the index once
    forget_query_vectors()
    out, times = [], []
    for item in items_of(data):
        start = time.perf_counter()
        hits = search(item["q"], project_root=project, limit=10, dense=dense, enrichment=enrichment)
        times.append(time.perf_counter() - start)
        out.append((item, [ids.get(m.group(1), "?") if (m := _ID.search(h.text)) else "?" for h in hits]))
    return out, round(1000 * sorted(times)[len(times) // 2], 2)


def forget_query_vectors() -> None:
    """Empty the process's embedding cache, so each timed search embeds its question as a new one
    would (the rows before it embedded the same questions; the documents' vectors are stored)."""
    from kioku.retrieval import hybrid

    with hybrid._cache_lock:
        hybrid._cache.clear()


def run_search_nearest(data: dict, project: Path, ids: dict[str, str],
                       enrichment: bool = False) -> list[tuple[dict, list[str], bool]]:
    """What the CLI shows: the hits, or with none the "no close match" section of the nearest 3
    (rows carry whether they were hits: an unrelated question with only that section got nothing)."""
    from kioku.memory.search import search_or_nearest

    out = []
    for item in items_of(data):
        hits, nearest = search_or_nearest(item["q"], project_root=project, limit=10, nearest=3, enrichment=enrichment)
        shown = [ids.get(m.group(1), "?") if (m := _ID.search(h.text)) else "?" for h in hits or nearest]
        out.append((item, shown, bool(hits)))
    return out


def score(rows: Sequence[tuple]) -> dict:
    """Metrics per half and language from (item, returned memory ids[, were they hits]) rows."""
    out: dict = {}
    rows = [(row[0], row[1], row[2] if len(row) > 2 else bool(row[1])) for row in rows]
    for part in ("tune", "held_out"):
        for language in GROUPS:
            sel = [(i, r, h) for i, r, h in rows if half(i["q"]) == part and language in groups_of(i)]
            if not sel and language in ("cross", "ja→en", "en→ja"):
                continue
            answerable = [(i, r) for i, r, _h in sel if i.get("gold")]
            answered = [h for i, _r, h in sel if i.get("gold")]
            unrelated = [h for i, _r, h in sel if not i.get("gold")]
            n = len(answerable)
            out.setdefault(part, {})[language] = {
                "hit@1": round(sum(bool(r) and r[0] in i["gold"] for i, r in answerable) / n, 3) if n else None,
                "hit@3": round(sum(any(x in i["gold"] for x in r[:3]) for i, r in answerable) / n, 3) if n else None,
                "answered": round(sum(answered) / n, 3) if n else None,
                "unrelated_empty": round(sum(not h for h in unrelated) / len(unrelated), 3) if unrelated else None,
                "questions": n, "unrelated": len(unrelated),
            }
    return out


class Signals:
    """Every question's ranking signals from the index ``kioku search`` builds, to re-score
    them under other configurations without searching again."""

    def __init__(self, data: dict, project: Path, ids: dict[str, str], dense: bool, enrichment: bool = False) -> None:
        from kioku.memory.search import memory_index

        memories, self.index = memory_index(project, dense=dense, enrichment=enrichment)
        self.memory_ids = [ids.get(_ID.search(m.display).group(1), "?") for m in memories]  # type: ignore[union-attr]
        self.items = [(item, self.index.components(item["q"])) for item in items_of(data)]

    def rows(self, cfg, part: str | None = None, cut: bool = True) -> list[tuple[dict, list[str]]]:
        import numpy as np

        out = []
        for item, c in self.items:
            if part and half(item["q"]) != part:
                continue
            scores = self.index.combine(c, cfg)
            mask = self.index.relevant(c, cfg) if cut else np.ones(len(scores), bool)
            if c.dense is None:
                matching = c.lexical > 0
                if c.expansion is not None:
                    matching = matching | (c.expansion.lexical > 0)
                mask = mask & matching
            order = [i for i in np.argsort(-scores, kind="stable") if mask[i]][:10]
            out.append((item, [self.memory_ids[i] for i in order]))
        return out


def objective(metrics: dict, cross: bool = False) -> float:
    m = metrics["tune"]["all"]
    value = (m["hit@1"] or 0) + (m["hit@3"] or 0) + (m["unrelated_empty"] or 0)
    if cross and "cross" in metrics["tune"]:
        value += (metrics["tune"]["cross"]["hit@1"] or 0) + (metrics["tune"]["cross"]["hit@3"] or 0)
    return value


def fit(hybrid: Signals, lexical: Signals):
    """The configuration with the best objective on the tune half (ties: the first in grid order)."""
    from kioku.retrieval.hybrid import HybridConfig

    best, best_value = HybridConfig(), -1.0
    for cw, rel, rel_cjk, dw in itertools.product(GRID["coverage_weight"], GRID["min_relevance"],
                                                  GRID["min_relevance_cjk"], GRID["dense_weight"]):
        cfg = replace(best if best_value >= 0 else HybridConfig(), coverage_weight=cw, min_relevance=rel,
                      min_relevance_cjk=rel_cjk, dense_weight=dw)
        value = objective(score(hybrid.rows(cfg, "tune")))
        if value > best_value + 1e-9:
            best, best_value = cfg, value
    best_cov, best_value = best.min_coverage, -1.0
    for cov in GRID["min_coverage"]:
        value = objective(score(lexical.rows(replace(best, min_coverage=cov), "tune")))
        if value > best_value + 1e-9:
            best_cov, best_value = cov, value
    return replace(best, min_coverage=best_cov)


def fit_enrichment(hybrid: Signals, lexical: Signals):
    """The enrichment's weight and cut-offs and ``min_relevance_cjk``, fitted on the tune half with
    the enrichment (the rest of the configuration as shipped; ties: the first in grid order)."""
    from kioku.retrieval.hybrid import HybridConfig

    fields = ("min_relevance_cjk", "enrichment_weight", "enrichment_margin", "min_relevance_enrich_cjk")
    best, best_value = HybridConfig(), -1.0
    for values in itertools.product(*(ENRICH_GRID[f] for f in fields)):
        cfg = replace(HybridConfig(), **dict(zip(fields, values)))
        value = objective(score(hybrid.rows(cfg, "tune")), cross=True)
        if value > best_value + 1e-9:
            best, best_value = cfg, value
    best_cov, best_value = best.min_coverage_enrich, -1.0
    for cov in ENRICH_GRID["min_coverage_enrich"]:
        value = objective(score(lexical.rows(replace(best, min_coverage_enrich=cov), "tune")), cross=True)
        if value > best_value + 1e-9:
            best_cov, best_value = cov, value
    return replace(best, min_coverage_enrich=best_cov)


def export_enrichment(project: Path, folder: Path) -> dict:
    """Write the enrichment requests for the set's memories (``kioku enrich --export-prompts``)."""
    from kioku.enrich.files import export_requests
    from kioku.enrich.targets import memory_items
    from kioku.model.settings import load_settings

    items = memory_items(project)
    index = export_requests(items, folder, load_settings(project).model)
    return {"items": len(items), "files": len(index["calls"]), "folder": str(folder)}


def import_enrichment(project: Path, folder: Path) -> dict:
    """Read the answers in ``folder`` into the throw-away home (``kioku enrich --import``)."""
    from kioku.enrich.files import import_answers
    from kioku.enrich.targets import memory_items

    report = import_answers(folder, memory_items(project))
    return {"files": report.calls, "answered": len(report.answered), "missing": len(report.missing),
            "skipped": len(report.skipped), "enriched": len(report.run.enriched), "failed": len(report.run.failed)}


def side_by_side(results: dict, pairs: Sequence[tuple[str, str]]) -> None:
    """Each row without and with enrichment: hit@1, hit@3, unrelated → nothing, p50."""
    print("without → with enrichment")
    print(f"{'row':<12} {'half':<9} {'group':<6} {'hit@1':>13} {'hit@3':>13} {'unrelated→∅':>13} {'p50 ms':>15}")
    fmt = lambda v: "  - " if v is None else f"{v:.3f}"  # noqa: E731
    for without, with_ in pairs:
        if without not in results or with_ not in results:
            continue
        a, b = results[without], results[with_]
        latency = f"{a.get('p50_ms', '-')} → {b.get('p50_ms', '-')}"
        for part in ("tune", "held_out"):
            for group in GROUPS:
                if group not in a[part]:
                    continue
                x, y = a[part][group], b[part][group]
                cells = [f"{fmt(x[k])} → {fmt(y[k])}" for k in ("hit@1", "hit@3", "unrelated_empty")]
                print(f"{without:<12} {part:<9} {group:<6} {cells[0]:>13} {cells[1]:>13} {cells[2]:>13} {latency:>15}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--fit", action="store_true", help="fit the cut-off on the tune half")
    parser.add_argument("--json", type=Path, help="write results as JSON here")
    parser.add_argument("--export-enrichment", type=Path, metavar="DIR",
                        help="write the enrichment requests for the set's memories to DIR and stop")
    parser.add_argument("--enrichment", type=Path, metavar="DIR",
                        help="an export folder with answers (F.answer): add the rows with enrichment")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    results: dict = {}
    loaded: dict = {}
    with tempfile.TemporaryDirectory(prefix="kioku-bench-") as tmp:
        project, ids = setup(data, Path(tmp))
        if args.export_enrichment:
            print(json.dumps(export_enrichment(project, args.export_enrichment)))
            return 0
        from kioku.retrieval.hybrid import HybridConfig

        hybrid = Signals(data, project, ids, dense=True)
        results["hybrid_uncut"] = score(hybrid.rows(HybridConfig(), cut=False))
        for name, dense in (("lexical", False), ("kioku", "auto")):
            rows, p50 = run_search(data, project, ids, dense)
            results[name] = {**score(rows), "p50_ms": p50}
        results["kioku_shown"] = score(run_search_nearest(data, project, ids))
        if args.enrichment:
            loaded = import_enrichment(project, args.enrichment)
            for name, dense in (("lexical+enrichment", False), ("kioku+enrichment", "auto")):
                rows, p50 = run_search(data, project, ids, dense, enrichment=True)
                results[name] = {**score(rows), "p50_ms": p50}
            results["kioku_shown+enrichment"] = score(run_search_nearest(data, project, ids, enrichment=True))
        if args.fit:
            best = fit(hybrid, Signals(data, project, ids, dense=False))
            results["fitted"] = {"config": {k: getattr(best, k) for k in FITTED}, **score(hybrid.rows(best))}
            results["fitted_lexical"] = score(Signals(data, project, ids, dense=False).rows(best))
            if args.enrichment:
                enriched = Signals(data, project, ids, dense=True, enrichment=True)
                lexical = Signals(data, project, ids, dense=False, enrichment=True)
                best_e = fit_enrichment(enriched, lexical)
                results["fitted+enrichment"] = {"config": {k: getattr(best_e, k) for k in ENRICH_FITTED},
                                                **score(enriched.rows(best_e))}
                results["fitted_lexical+enrichment"] = score(lexical.rows(best_e))
    print(f"{len(data['memories'])} memories, {len(data['questions'])} questions, "
          f"{len(data['unrelated'])} unrelated questions, {len(data.get('cross_language', []))} cross-language")
    if loaded:
        print("enrichment answers read: " + ", ".join(f"{k} {v}" for k, v in loaded.items()))
        results["enrichment_import"] = loaded
    report(results, args.json, name_width=25)
    if args.enrichment:
        side_by_side(results, [("lexical", "lexical+enrichment"), ("kioku", "kioku+enrichment"),
                               ("kioku_shown", "kioku_shown+enrichment")])
    return 0


def report(results: dict, json_out: Path | None, name_width: int) -> None:
    """Print one row per (ranking, half, language group) and write the JSON when asked."""
    print(f"{'row':<{name_width}} {'half':<9} {'group':<6} {'hit@1':>6} {'hit@3':>6} {'answered':>9} "
          f"{'unrelated→∅':>12} {'p50 ms':>7}")
    for name, r in results.items():
        if not isinstance(r, dict) or "tune" not in r:
            continue
        for part in ("tune", "held_out"):
            for language in GROUPS:
                if language not in r[part]:
                    continue
                m = r[part][language]
                fmt = lambda v: "   -  " if v is None else f"{v:6.3f}"  # noqa: E731
                print(f"{name:<{name_width}} {part:<9} {language:<6} {fmt(m['hit@1'])} {fmt(m['hit@3'])} "
                      f"{fmt(m['answered']):>9} {fmt(m['unrelated_empty']):>12} {r.get('p50_ms', ''):>7}")
    for name in ("fitted", "fitted+enrichment"):
        if name in results:
            print(f"{name} on the tune half:", results[name]["config"])
    if json_out:
        json_out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
