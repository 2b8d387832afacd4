"""scripts/bench/lesson_search.py's fit of the enrichment's weight and cut-offs, on made-up tune metrics."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "bench"))

import lesson_search  # noqa: E402

from kioku.lessons.lesson_retrieval import RANKING  # noqa: E402


def _metrics(hits: float, unrelated: float) -> dict:
    return {"all": {"hit@1": hits, "hit@3": hits, "unrelated_empty": unrelated},
            "cross": {"hit@1": 0.0, "hit@3": 0.0, "unrelated_empty": None}}


def test_no_configuration_may_answer_more_unrelated_requests_than_the_text_alone() -> None:
    # looser cut-offs find more but answer an unrelated request, stricter ones find less
    def tune(r):
        margin = r.enrichment_margin
        return _metrics(0.9 if margin < 0.15 else 0.8 - (margin - 0.15), 0.75 if margin < 0.15 else 1.0)

    best = lesson_search.fit_enrichment(RANKING, tune, strictness=1.0)
    assert best.enrichment_margin == 0.15
    assert lesson_search.fit_enrichment(RANKING, tune, strictness=0.75).enrichment_margin < 0.15


def test_ties_keep_the_stricter_cut_off_and_the_first_weight() -> None:
    best = lesson_search.fit_enrichment(RANKING, lambda r: _metrics(0.8, 1.0), strictness=1.0)
    assert best.enrichment_margin == max(lesson_search.ENRICHMENT_GRID["enrichment_margin"])
    assert best.min_relevance_enrich_cjk == max(lesson_search.ENRICHMENT_GRID["min_relevance_enrich_cjk"])
    assert best.enrichment_weight == lesson_search.ENRICHMENT_GRID["enrichment_weight"][0]


def test_nothing_as_strict_keeps_the_base() -> None:
    base = replace(RANKING, enrichment_weight=0.5)
    assert lesson_search.fit_enrichment(base, lambda r: _metrics(1.0, 0.5), strictness=1.0) is base


def test_the_shipped_enrichment_settings_are_on_the_grid() -> None:
    for name, values in lesson_search.ENRICHMENT_GRID.items():
        assert getattr(RANKING, name) in values, name
