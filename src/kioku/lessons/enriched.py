"""The search enrichment of an agent's lessons, for retrieval (``kioku.lessons.lesson_retrieval``).

``expansion_signals(agent, task, task_vec) -> EnrichedSignals | None`` scores every lesson of the
agent that has a search enrichment (``kioku.retrieval.enrichment``, rows written for the agent)
against the task through its enrichment alone (``kioku.retrieval.expansion``: lexical over all its
lines, dense over its English ones) and says, per lesson id, its cosine, coverage and whether its
enrichment holds one of a mixed task's English words. An enrichment counts for a lesson only while
the lesson's text is the one it was written for (``EnrichedSignals.matches``). The field is built
once per process and agent until the sidecar changes. ``enrichment_relevance`` and
``fused_scores`` are the parts of ``lesson_retrieval.rank_candidates`` that use it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from kioku.retrieval.enrichment import content_key

_cache: dict[str, tuple[Any, Any]] = {}
_cache_lock = threading.Lock()


@dataclass
class EnrichedSignals:
    ids: list[str]                 # lesson ids, in the arrays' order
    keys: list[str]                # the content key each enrichment was written for
    cosine: Any                    # np.ndarray, 0 for a lesson without English lines
    coverage: Any
    lexical: Any
    named: Any | None              # mixed task: the enrichment holds one of its English words
    field: Any                     # kioku.retrieval.expansion.ExpansionField

    def position(self) -> dict[str, int]:
        return {rec_id: i for i, rec_id in enumerate(self.ids)}

    def matches(self, i: int, document: str) -> bool:
        """Whether enrichment ``i`` was written for this text of its lesson."""
        return self.keys[i] == content_key("lesson", document or "")

    def relevance(self, i: int, coverage_weight: float) -> float:
        return float(self.cosine[i]) + coverage_weight * float(self.coverage[i])

    def best_missing(self, known: dict[str, Any], coverage_weight: float, count: int) -> list[str]:
        """The ids of the ``count`` lessons whose enrichment matches best and that are not in ``known``."""
        order = sorted(range(len(self.ids)), key=lambda i: -self.relevance(i, coverage_weight))
        return [self.ids[i] for i in order if self.ids[i] not in known
                and (self.coverage[i] > 0 or self.cosine[i] > 0)][:count]


def _field(agent: str):
    """(ids, keys, ExpansionField) of the agent's enriched lessons, or None when there are none."""
    from kioku.retrieval import enrichment
    from kioku.retrieval.expansion import ExpansionField
    from kioku.retrieval.hybrid import HybridConfig, dense_available, embed_cached

    if not enrichment.default_path().exists():
        return None
    store = enrichment.default_store()
    signature = (store.signature(), dense_available())
    with _cache_lock:
        hit = _cache.get(agent)
    if hit is not None and hit[0] == signature:
        return hit[1]
    try:
        rows = store.of_agent("lesson", agent)
    except Exception:  # noqa: BLE001 - derived data: retrieval works as before without it
        rows = []
    built = None
    if rows:
        embed = None
        if dense_available():
            from kioku.retrieval.vectors import default_store as vector_store

            embed = vector_store().embed
        try:
            field = ExpansionField([r.enrichment.lines() for r in rows], HybridConfig.k1, HybridConfig.b, embed=embed)
        except Exception:  # noqa: BLE001 - the model failed: the enrichment is still searched by its words
            field = ExpansionField([r.enrichment.lines() for r in rows], HybridConfig.k1, HybridConfig.b)
        built = ([r.owner for r in rows], [r.key for r in rows], field)
    with _cache_lock:
        _cache[agent] = (signature, built)
    return built


def expansion_signals(agent: str, task: str, task_vec: Any | None) -> EnrichedSignals | None:
    from kioku.retrieval.japanese import has_cjk, is_cjk_query
    from kioku.retrieval.text import query_terms, tokenize, without_lone_kana

    built = _field(agent)
    if built is None:
        return None
    ids, keys, field = built
    tokens = without_lone_kana(query_terms(task, tokenize(task)))
    mixed = has_cjk(task) and not is_cjk_query(task)
    signals = field.signals(tokens, task, task_vec, mixed=mixed)
    import numpy as np

    cosine = signals.cosine if signals.cosine is not None else np.zeros(len(ids), dtype=np.float32)
    return EnrichedSignals(ids, keys, cosine, signals.coverage, signals.lexical, signals.named, field)


def enrichment_relevance(c: Any, ranking: Any) -> dict[str, tuple[float, bool]]:
    """Lesson id -> (relevance through its enrichment, whether that holds one of a mixed task's
    English words), for the candidates (``lesson_retrieval.Candidates``) whose enrichment was written
    for their text."""
    e = c.enriched
    if e is None:
        return {}
    position = e.position()
    out: dict[str, tuple[float, bool]] = {}
    for rec_id, (_scope, rec) in c.records.items():
        i = position.get(rec_id)
        if i is not None and e.matches(i, rec.document):
            out[rec_id] = (e.relevance(i, ranking.coverage_weight), bool(e.named[i]) if e.named is not None else False)
    return out


def fused_scores(c: Any, ranking: Any, by_enrichment: dict[str, tuple[float, bool]]) -> dict[str, float]:
    """The fused score of each candidate: dense, each scope's lexical list and the enrichment's
    ranking, with no lesson lifted by its enrichment above one whose text holds the whole task."""
    from kioku.retrieval.hybrid import fuse

    dense = sorted(c.cosine.items(), key=lambda kv: -kv[1])
    # dense carries the semantic signal for both scopes; each scope's lexical list adds a weighted vote
    lists, weights = [dense, *c.lexical], [1.0] + [ranking.lexical_weight] * len(c.lexical)
    base = dict(fuse(lists, weights=weights, method=ranking.fusion))
    if not by_enrichment or not ranking.enrichment_weight:
        return base
    enriched = sorted(((i, rel) for i, (rel, _n) in by_enrichment.items() if rel > 0), key=lambda kv: -kv[1])
    boosted = dict(fuse(lists + [enriched], weights=weights + [ranking.enrichment_weight], method=ranking.fusion))
    exact = [i for i in boosted if c.coverage.get(i, 0.0) >= ranking.exact_coverage - 1e-6]
    if not exact:
        return boosted
    cap = min(boosted[i] for i in exact) - 1e-6
    return {i: score if i in exact else max(base.get(i, 0.0), min(score, cap)) for i, score in boosted.items()}
