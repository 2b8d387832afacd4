"""Search enrichment as a second field: it finds a memory by other words, never outranks an exact
match, keeps its own stricter cut-off, and counts only for the unit it was written for."""

from __future__ import annotations

import numpy as np
import pytest

from kioku.retrieval.expansion import protect_exact
from kioku.retrieval.hybrid import HybridConfig, HybridIndex, Unit

FLY = ("Where is the app hosted?", "Which cloud provider runs production?", "アプリはどこでホスティングしている？",
       "hosting, cloud provider, deployment, production server", "ホスティング、本番環境、クラウド", "hosting")
RUNBOOK = ("What do I do during an outage?", "Where are the incident procedures?", "障害が起きたらどうする？",
           "outage, incident, runbook, on-call", "障害、障害対応、手順書", "incident response")
UNITS = [
    Unit(0, "Production runs on Fly.io in the Tokyo region, staging in Amsterdam", "project", "infrastructure",
         expansion=FLY),
    Unit(1, "Incident runbooks live in the Notion page called Ops Handbook", "reference", "links", expansion=RUNBOOK),
    Unit(2, "My cat Mochi is a grey British shorthair", "user", "about-me"),
    Unit(3, "Releases are cut every second Tuesday and tagged with calendar versions", "project", "release"),
]
UNRELATED = ("what is the capital of Peru", "how do I bake sourdough bread", "今日の天気はどう？")


@pytest.mark.parametrize("dense", [False, True])
def test_a_paraphrase_sharing_no_word_finds_the_memory_through_its_enrichment(dense: bool) -> None:
    with_it = HybridIndex(UNITS, dense=dense)
    without = HybridIndex([Unit(u.id, u.text, u.type, u.topic) for u in UNITS], dense=dense)
    for query, unit in (("where is the app hosted", 0), ("what to do during an outage", 1)):
        found = [s for s in with_it.ranked(query, 4) if s.relevant]
        assert found and found[0].id == unit and found[0].via_enrichment, query
        assert not any(s.relevant and s.id == unit for s in without.ranked(query, 4)), query
    assert with_it.explain(0, "where is the app hosted") == "Where is the app hosted?"


def test_a_japanese_question_finds_an_english_memory_through_its_japanese_keywords() -> None:
    index = HybridIndex(UNITS, dense=False)
    found = [s for s in index.ranked("障害対応の手順書はどこ", 4) if s.relevant]
    assert [s.id for s in found] == [1] and found[0].via_enrichment


@pytest.mark.parametrize("dense", [False, True])
def test_unrelated_questions_still_get_nothing(dense: bool) -> None:
    index = HybridIndex(UNITS, dense=dense)
    for query in UNRELATED:
        assert not [s for s in index.ranked(query, 4) if s.relevant], query


def test_enrichment_never_lifts_a_memory_above_an_exact_match() -> None:
    loud = ("release schedule", "release, releases, cut, Tuesday, calendar versions, tagged", "リリース") * 3
    units = [Unit(0, "Releases are cut every second Tuesday", "project", "release"),
             Unit(1, "The mobile app ships through the store review", "project", "release", expansion=loud)]
    for weight in (1.0, 5.0, 50.0):
        index = HybridIndex(units, dense=False, config=HybridConfig(enrichment_weight=weight))
        ranked = index.ranked("releases cut every Tuesday", 2)
        assert [s.id for s in ranked] == [0, 1], weight
        assert ranked[0].score > ranked[1].score
    # with no exact match in the collection, the enrichment may lead
    partial = HybridIndex(units, dense=False, config=HybridConfig(enrichment_weight=5.0))
    assert partial.ranked("calendar versions schedule", 2)[0].id == 1


def test_protect_exact_caps_only_what_enrichment_added() -> None:
    base = np.array([1.0, 0.4, 1.5])
    boosted = np.array([1.2, 3.0, 1.6])
    exact = np.array([True, False, False])
    out = protect_exact(base, boosted, exact)
    assert out[0] == 1.2 and out[1] < 1.2 and out[1] >= 0.4
    assert out[2] == 1.5                      # ahead of the exact match by its text alone: as before
    assert (protect_exact(base, boosted, np.zeros(3, bool)) == boosted).all()


def test_the_enrichment_cut_off_is_its_own_and_stricter() -> None:
    cfg = HybridConfig()
    assert cfg.min_relevance + cfg.enrichment_margin > cfg.min_relevance
    assert cfg.min_coverage_enrich > cfg.min_coverage
    index = HybridIndex(UNITS, dense=True)
    c = index.components("where is the app hosted")
    by_enrichment = index.relevant_by_enrichment(c)
    assert by_enrichment[0] and not by_enrichment[2:].any()   # units without one never pass through one
    strict = HybridConfig(enrichment_margin=5.0)
    assert not index.relevant_by_enrichment(c, strict).any()
    assert index.relevant_by_enrichment(HybridIndex(UNITS[2:], dense=True).components("x")) is None
