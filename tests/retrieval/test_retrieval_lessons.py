"""Lesson ranking: score fusion, the shared relevance cut-off, small talk gets no lessons."""

from __future__ import annotations

import pytest

from kioku.lessons import improvements as im
from kioku.lessons import lesson_retrieval as lr
from kioku.retrieval.hybrid import HybridConfig

LESSONS = [
    ("Write a failing test that reproduces the bug before fixing it", "testing_patterns"),
    ("When a command times out, rerun it with verbose output instead of retrying blindly", "error_handling"),
    ("Replace magic numbers with named constants that say what the value means", "code_quality"),
    ("日付を扱うテストではタイムゾーンを固定してから実行する", "testing_patterns"),
]


def _seed(project) -> dict[str, str]:
    return {im.learn("coder", text, cat, 0.85, scope="global", project_root=project)[0]: text
            for text, cat in LESSONS}


def test_the_cut_off_is_the_one_memory_search_uses() -> None:
    assert lr.RANKING.fusion == "score"
    assert lr.RANKING.coverage_weight == HybridConfig().coverage_weight
    assert lr.RANKING.min_relevance == HybridConfig().min_relevance
    assert lr.RANKING.min_relevance_cjk == HybridConfig().min_relevance_cjk


def test_small_talk_gets_no_lessons_and_tasks_get_theirs(project) -> None:
    lessons = _seed(project)
    for talk in ("hi there, how's it going", "thanks, that's all for today", "ありがとう、また明日", "こんにちは"):
        assert lr.retrieve("coder", talk, project_root=project) == [], talk
    hits = lr.retrieve("coder", "fix the bug where discounts are applied twice", project_root=project)
    assert hits and lessons[hits[0].id].startswith("Write a failing test")
    ja = lr.retrieve("coder", "締め切り日を計算する処理のテストを書いて", project_root=project)
    assert ja and lessons[ja[0].id].startswith("日付を扱うテスト")


def test_score_fusion_scales_each_list_by_its_best(project) -> None:
    lessons = _seed(project)
    task = "the command times out: rerun it with verbose output"
    c = lr.lesson_candidates("coder", task, 5, project, ["global"])
    assert c.coverage and all(0.0 <= v <= 1.0 for v in c.coverage.values())
    timeout_id = next(i for i, t in lessons.items() if "times out" in t)
    assert c.coverage[timeout_id] > 0.5
    hits = lr._rank(lr.rank_candidates(c, lr.RELEVANCE_THRESHOLD), 5)
    # best in the dense list and in the lexical list: 1 + lexical_weight under score fusion
    assert hits[0].id == timeout_id
    assert hits[0].score == pytest.approx(1.0 + lr.RANKING.lexical_weight, abs=1e-5)
    rrf = lr._rank(lr.rank_candidates(c, lr.RELEVANCE_THRESHOLD, lr.LessonRanking(fusion="rrf")), 5)
    assert rrf[0].id == timeout_id and rrf[0].score == pytest.approx((1 + lr.RANKING.lexical_weight) / 61, abs=1e-5)
    strict = lr.rank_candidates(c, lr.RELEVANCE_THRESHOLD, lr.LessonRanking(min_relevance=2.0, min_relevance_cjk=2.0))
    assert strict == []


@pytest.mark.parametrize("tokens, document, expected", [
    ({"rerun", "verbose"}, "Rerun it with verbose output", 1.0),
    ({"rerun", "zebra"}, "Rerun it with verbose output", 0.5),
    (set(), "anything", 0.0),
])
def test_keyword_coverage(tokens, document, expected) -> None:
    assert lr.keyword_coverage(tokens, document) == pytest.approx(expected)


def _enriched_candidates(task: str, cosine_e: float, coverage_e: float):
    """Candidates for ``task``: one lesson whose text does not match it and whose enrichment, written
    for that text, has the given cosine and coverage against it."""
    import numpy as np

    from kioku.lessons.enriched import EnrichedSignals
    from kioku.lessons.store.client import Record
    from kioku.retrieval.enrichment import content_key

    text = "Start function names with a verb that says what the function does"
    rec = Record("l1", text, {"confidence": 0.85})
    signals = EnrichedSignals(["l1"], [content_key("lesson", text)], np.array([cosine_e]), np.array([coverage_e]),
                              np.array([1.0]), None, None)
    return lr.Candidates(task, {"l1": ("global", rec)}, {"l1": 0.0}, [[]], {"l1": 0.0}, signals)


def test_the_enrichment_cut_off_is_stricter_than_the_text_s() -> None:
    assert lr.RANKING.enrichment_margin > 0


@pytest.mark.parametrize("coverage_e, found", [(0.32, False), (0.5, True)])
def test_an_enrichment_match_needs_its_own_cut_off(coverage_e: float, found: bool) -> None:
    # relevance through the enrichment = cosine + coverage_weight x coverage
    task = "what's a good name for my new puppy"
    c = _enriched_candidates(task, 0.24, coverage_e)
    relevance = 0.24 + lr.RANKING.coverage_weight * coverage_e
    bar = lr.RANKING.min_relevance + lr.RANKING.enrichment_margin
    assert (relevance >= bar) is found
    hits = lr.rank_candidates(c, lr.RELEVANCE_THRESHOLD)
    assert [h.id for h in hits] == (["l1"] if found else [])
    assert all(h.extra.get("via_enrichment") for h in hits)


def test_a_japanese_task_is_held_to_the_japanese_enrichment_bar() -> None:
    bar = lr.RANKING.min_relevance_enrich_cjk
    below = _enriched_candidates("関数の名前の付け方", bar - 0.02, 0.0)
    above = _enriched_candidates("関数の名前の付け方", bar + 0.02, 0.0)
    assert lr.rank_candidates(below, lr.RELEVANCE_THRESHOLD) == []
    assert [h.id for h in lr.rank_candidates(above, lr.RELEVANCE_THRESHOLD)] == ["l1"]


def test_without_enrichment_the_enrichment_settings_change_nothing(project) -> None:
    from dataclasses import replace

    _seed(project)
    loose = replace(lr.RANKING, enrichment_weight=0.25, enrichment_margin=0.0, min_relevance_enrich_cjk=0.0)
    for task in ("fix the bug where discounts are applied twice", "締め切り日を計算する処理のテストを書いて",
                 "the command times out again", "thanks, that's all for today"):
        c = lr.lesson_candidates("coder", task, 5, project, ["global"], enrichment=False)
        assert c.enriched is None
        shipped = [(h.id, h.score) for h in lr._rank(lr.rank_candidates(c, lr.RELEVANCE_THRESHOLD), 5)]
        assert shipped == [(h.id, h.score) for h in lr._rank(lr.rank_candidates(c, lr.RELEVANCE_THRESHOLD, loose), 5)]
