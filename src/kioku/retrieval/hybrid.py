"""Hybrid (lexical + dense) ranking of memories: the one ranker behind ``kioku search``.

Contract::

    fuse(rankings: list[list[(id, score)]], weights=None, k=60, method="rrf") -> list[(id, score)]
    search_texts(query, items: list[(id, text)], k=10, dense=True | False | "auto") -> list[(id, score)]
    HybridIndex(units: list[Unit], dense="auto", config=HybridConfig(), embed=None).search(query, k)
    HybridIndex.ranked(query, k) -> list[Scored]   # with the absolute relevance signals

A :class:`Unit` carries only what a memory carries: its text, type, topic and date.

``HybridIndex`` ranks by:

1. lexical: BM25 (k1=0.9, b=0.4: memories are short, so length normalisation is weakened)
   over ``kioku.retrieval.text.tokenize`` (stopwords, light stemming, Japanese character
   bigrams) of the unit's text and topic name;
2. dense: MiniLM cosine between the query and the unit text;
3. score fusion: lexical / max + 1.3 x dense / max + 1.0 x coverage (BM25 and cosine
   normalised per query, which keeps how far ahead the best match is where reciprocal rank
   fusion throws it away; coverage, below, is absolute and favours the unit that holds most
   of the query's rare words);
4. dates: when the query names a date ("on 1 May, 2022", "in June", "in 2024"), units get
   + 0.8 x the closeness of their own date to it (``kioku.retrieval.dates``);
5. Japanese-dominant queries use a quarter of the dense weight (MiniLM is English-only).

The fused score is relative to the best unit of the query, so it cannot say whether anything
matched at all. Two absolute signals do: ``coverage`` (the share of the query's IDF weight
found in the unit's tokens, 0-1) and ``cosine``. :meth:`HybridIndex.ranked` marks a unit
``relevant`` when cosine + ``coverage_weight`` x coverage reaches ``min_relevance`` (for a
mostly Japanese query, or a query and a unit that both hold Japanese when the unit holds none
of the query's English words, ``min_relevance_cjk``: MiniLM gives any two Japanese texts a
cosine around 0.5, so the bar is higher; see :func:`needs_cjk_bar`), or without the model when
coverage reaches ``min_coverage``. The defaults are fitted on the tune half of the project's own labelled
memory set (``scripts/bench/memory_search.py --fit``).

Search enrichment (``Unit.expansion``: the questions, keywords and topic a model wrote about a
memory, ``kioku.retrieval.enrichment``) is a second field, scored apart from the text
(``kioku.retrieval.expansion``: BM25 and coverage over all its lines, cosine over its English
lines). Its fused score, computed as the text's, is added x ``enrichment_weight``, except that no
unit is lifted by it above a unit whose own text holds the whole query (coverage >=
``exact_coverage``). A unit is relevant through its enrichment when the enrichment's cosine +
``coverage_weight`` x its coverage reaches ``min_relevance + enrichment_margin``, or for a query
holding Japanese (every enrichment holds Japanese) ``min_relevance_enrich_cjk``; without the
model when its coverage reaches ``min_coverage_enrich``. A unit without enrichment is ranked and
cut exactly as before; ``Scored.via_enrichment`` marks a unit relevant through it alone.

Without the model (dense=False, or "auto" and the embedder unavailable) step 2 is skipped and
only units sharing a term with the query (in its text or its enrichment) are results;
dense=True with no model raises ``EmbedderUnavailable``.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

from kioku.retrieval.bm25 import BM25Index
from kioku.retrieval.dates import closeness, parse_query_dates, parse_date
from kioku.retrieval.expansion import ExpansionField, ExpansionSignals, protect_exact
from kioku.retrieval.japanese import has_cjk, is_cjk_query, needs_cjk_bar  # noqa: F401  (re-exported)
from kioku.retrieval.lexical_field import LexicalField
from kioku.retrieval.text import english_words, query_terms, tokenize, without_lone_kana

Ranking = list[tuple[Hashable, float]]

DEFAULT_RRF_K = 60


def fuse(rankings: Sequence[Ranking], weights: Sequence[float] | None = None, k: int = DEFAULT_RRF_K,
         method: str = "rrf") -> Ranking:
    """Fuse rankings (each best first, scores higher = better); ties keep first-seen order.

    method="rrf": weighted reciprocal rank fusion, Σ w_i / (k + rank_i). method="score": Σ w_i x
    score_i / max_i (each list divided by its best score when that is positive) - what HybridIndex
    does, since with meaningful scores (cosines, BM25) it keeps the margins.
    """
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("weights must match rankings")
    if method not in ("rrf", "score"):
        raise ValueError(f"unknown fusion method {method!r}")
    acc: dict[Hashable, float] = {}
    first_seen: dict[Hashable, int] = {}
    for ranking, weight in zip(rankings, weights):
        top = max((float(s) for _, s in ranking), default=0.0)
        for rank, (doc_id, score) in enumerate(ranking, start=1):
            if method == "rrf":
                add = weight / (k + rank)
            else:
                add = weight * (float(score) / top if top > 0 else float(score))
            acc[doc_id] = acc.get(doc_id, 0.0) + add
            first_seen.setdefault(doc_id, len(first_seen))
    return sorted(acc.items(), key=lambda kv: (-kv[1], first_seen[kv[0]]))


# -- embeddings ---------------------------------------------------------------------------
# In-process cache keyed by text hash: memory blocks and improvements are ranked repeatedly
# within one process (worker, CLI, tests) and rarely change.
_CACHE_MAX = 20000
_cache: dict[bytes, object] = {}
_cache_lock = threading.Lock()


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def embed_cached(texts: Sequence[str]):
    """(n, 384) float32 embeddings, reusing vectors computed earlier in this process."""
    import numpy as np

    from kioku.retrieval.embedder import get_embedder

    keys = [_key(t) for t in texts]
    if not keys:
        return np.zeros((0, 384), np.float32)
    with _cache_lock:
        found = {k: _cache[k] for k in keys if k in _cache}
    missing = list({k: i for i, k in enumerate(keys) if k not in found}.values())
    if missing:
        vectors = get_embedder().embed([texts[i] for i in missing])
        with _cache_lock:
            if len(_cache) + len(missing) > _CACHE_MAX:
                _cache.clear()  # simple bound; what this call needs is kept in ``found``
            for row, i in enumerate(missing):
                _cache[keys[i]] = found[keys[i]] = vectors[row]
    return np.stack([found[k] for k in keys])


_dense_available: bool | None = None


def dense_available() -> bool:
    """True when the offline model and its runtime are installed (does not load the model).

    Checked once per process: installed packages do not change while it runs, and the check
    (four package look-ups) ran on every search."""
    global _dense_available
    if _dense_available is None:
        _dense_available = _find_dense_runtime()
    return _dense_available


def _find_dense_runtime() -> bool:
    try:
        import importlib.util

        from kioku.retrieval.embedder import model_files

        model_files()
        return all(importlib.util.find_spec(m) for m in ("numpy", "onnxruntime", "tokenizers"))
    except Exception:
        return False


# -- the ranker ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Unit:
    """One memory as the ranker sees it."""

    id: Hashable
    text: str
    type: str = ""  # user | project | feedback | reference ("" when unknown)
    topic: str = ""  # the topic file's name, e.g. "tooling"; searched lexically with the text
    date: str = ""  # when it was remembered ("2026-05-01", "1:56 pm on 8 May, 2023", ...)
    expansion: tuple[str, ...] = ()  # its search enrichment's lines (kioku.retrieval.expansion)

    def lexical_text(self) -> str:
        topic = self.topic.replace("-", " ").replace("_", " ")
        return f"{self.text} {topic}" if topic else self.text


@dataclass(frozen=True)
class HybridConfig:
    k1: float = 0.9
    b: float = 0.4
    dense_weight: float = 1.3
    coverage_fusion: float = 1.0  # + this x coverage in the fused score
    date_weight: float = 0.8  # added x closeness of the unit's date to a date the query names
    cjk_dense_factor: float = 0.25
    # the relevance cut-off (module docstring); fitted by scripts/bench/memory_search.py --fit
    coverage_weight: float = 0.5  # relevance = cosine + coverage_weight x coverage
    min_relevance: float = 0.3  # ... at least this for a query that is not mostly Japanese
    min_relevance_cjk: float = 0.65  # ... and this for a Japanese one (MiniLM cosines run high there)
    min_coverage: float = 0.1  # without the model: at least this share of the query's IDF weight
    # search enrichment (module docstring); fitted with the cut-off when a bench has enrichment
    enrichment_weight: float = 1.0  # the enrichment's fused score, added x this to the text's
    enrichment_margin: float = 0.1  # an enrichment match needs min_relevance + this
    min_relevance_enrich_cjk: float = 0.45  # ... and this for a Japanese pair (cosine over its English lines)
    min_coverage_enrich: float = 0.3  # ... and without the model this share of the query in it
    exact_coverage: float = 1.0  # a unit whose text holds this share of the query is an exact match


@dataclass
class Components:
    """Per-query raw signals, combined by ``HybridIndex.combine`` (lets tuning reuse them)."""

    lexical: object  # np.ndarray (n,) raw BM25
    coverage: object  # np.ndarray (n,) share of the query's IDF weight present in the unit, 0-1
    dense: object | None  # np.ndarray (n,) cosine, or None without the model
    cjk: bool
    date_match: object | None = None  # np.ndarray (n,) in [0, 1], or None when the query names no date
    any_cjk: bool = False  # the query holds a Japanese character (``cjk``: mostly Japanese)
    named: object | None = None  # np.ndarray (n,) bool: for a mixed query, units holding one of its English words
    expansion: ExpansionSignals | None = None  # the enrichment's signals, when any unit has one


@dataclass(frozen=True)
class Scored:
    id: Hashable
    score: float  # fused, relative to the query's best unit
    coverage: float
    cosine: float | None
    relevant: bool  # passes the absolute cut-off (see the module docstring)
    via_enrichment: bool = False  # passes it only through its search enrichment


class HybridIndex:
    def __init__(self, units: Sequence[Unit], dense: bool | str = "auto", config: HybridConfig = HybridConfig(),
                 embed: Callable[[Sequence[str]], object] | None = None,
                 embed_query: Callable[[Sequence[str]], object] | None = None) -> None:
        import numpy as np

        self.units = list(units)
        self.config = config
        n = len(self.units)
        self.text_field = LexicalField([u.lexical_text() for u in self.units], k1=config.k1, b=config.b)
        self.bm25 = self.text_field.bm25
        # distinct unit dates and a unit -> date index, so a query scores each date once, not n units
        parsed = [parse_date(u.date) if u.date else None for u in self.units]
        self._dates = sorted({d for d in parsed if d is not None})
        position = {d: i for i, d in enumerate(self._dates)}
        self._date_idx = np.array([position[d] if d is not None else len(self._dates) for d in parsed], dtype=int)
        self.matrix = None
        self._unit_cjk = np.array([has_cjk(u.text) for u in self.units], dtype=bool)
        self._embed_query = embed_query
        use_dense = dense is True or (dense == "auto" and dense_available())
        vectors = None
        if use_dense and n:
            try:
                vectors = embed or embed_cached
                self.matrix = np.asarray(vectors([u.text for u in self.units]), dtype=np.float32)
                if self._embed_query is None:
                    self._embed_query = embed_cached
            except Exception:
                if dense is True:
                    raise
                self.matrix, vectors = None, None
        self.expansion: ExpansionField | None = None
        if any(u.expansion for u in self.units):
            self.expansion = ExpansionField([u.expansion for u in self.units], config.k1, config.b,
                                            embed=vectors if self.matrix is not None else None)

    @property
    def has_dense(self) -> bool:
        return self.matrix is not None

    def _lexical_signals(self, tokens: list[str], query: str = ""):
        """(BM25 scores, coverage) arrays (n,) of the units' own text (``LexicalField.signals``)."""
        return self.text_field.signals(tokens, query)

    def components(self, query: str) -> Components:
        import numpy as np

        tokens = without_lone_kana(query_terms(query, tokenize(query)))
        lexical, coverage = self._lexical_signals(tokens, query)
        any_cjk, mostly_cjk = has_cjk(query), is_cjk_query(query)
        named = None
        if any_cjk and not mostly_cjk:
            # which units hold one of a mixed question's English words (or what stands for them)
            named = self._lexical_signals(english_words(tokens), query)[1] > 0
        dense = qvec = None
        if self.matrix is not None:
            qvec = np.asarray(self._embed_query([query]), dtype=np.float32)[0]
            # einsum, not BLAS: a matrix-vector product this size gains nothing from BLAS threads,
            # and on a busy machine handing it to them cost more than the product itself
            dense = np.einsum("ij,j->i", self.matrix, qvec)
        date_match = None
        if self._dates:
            specs = parse_query_dates(query)
            if specs:
                per_date = np.array([closeness(specs, d) for d in self._dates] + [0.0], dtype=np.float32)
                date_match = per_date[self._date_idx]
        expansion = None
        if self.expansion is not None:
            expansion = self.expansion.signals(tokens, query, qvec, mixed=any_cjk and not mostly_cjk)
        return Components(lexical, coverage, dense, mostly_cjk, date_match, any_cjk, named, expansion)

    def _fused(self, lexical, dense, coverage, cjk: bool, cfg: HybridConfig):
        top = float(lexical.max()) if len(lexical) else 0.0
        score = lexical / top if top > 0 else lexical.copy()
        if dense is not None:
            dtop = float(dense.max())
            if dtop > 0:
                weight = cfg.dense_weight * (cfg.cjk_dense_factor if cjk else 1.0)
                score = score + weight * (dense / dtop)
        if cfg.coverage_fusion:
            score = score + cfg.coverage_fusion * coverage
        return score

    def combine(self, c: Components, config: HybridConfig | None = None):
        """Final scores (n,) from the components under ``config`` (default: the index's).

        The text's fused score, plus ``enrichment_weight`` x the enrichment's fused score, with
        no unit lifted by its enrichment above a unit whose text matches the query exactly."""
        cfg = config or self.config
        score = self._fused(c.lexical, c.dense, c.coverage, c.cjk, cfg)
        if c.date_match is not None and cfg.date_weight:
            score = score + cfg.date_weight * c.date_match
        e = c.expansion
        if e is None or not cfg.enrichment_weight:
            return score
        boosted = score + cfg.enrichment_weight * self._fused(e.lexical, e.cosine, e.coverage, c.cjk, cfg)
        return protect_exact(score, boosted, c.coverage >= cfg.exact_coverage - 1e-6)

    def relevance(self, c: Components, config: HybridConfig | None = None):
        """Absolute relevance (n,): cosine + coverage_weight x coverage, or coverage without the model."""
        cfg = config or self.config
        if c.dense is None:
            return c.coverage
        return c.dense + cfg.coverage_weight * c.coverage

    def relevant_by_text(self, c: Components, config: HybridConfig | None = None):
        """Boolean mask (n,): units whose own text passes the absolute cut-off for this query."""
        cfg = config or self.config
        if c.dense is None:
            return c.coverage >= cfg.min_coverage
        import numpy as np

        japanese_pair = c.cjk | (c.any_cjk & self._unit_cjk)  # needs_cjk_bar, for every unit at once
        if c.named is not None:
            japanese_pair = japanese_pair & ~c.named
        return self.relevance(c, cfg) >= np.where(japanese_pair, cfg.min_relevance_cjk, cfg.min_relevance)

    def relevant_by_enrichment(self, c: Components, config: HybridConfig | None = None):
        """Boolean mask (n,): units whose search enrichment passes its own, stricter cut-off
        (None when no unit has one). Every enrichment holds Japanese, so a query with Japanese in it
        is held to the Japanese bar unless the enrichment holds one of its English words."""
        cfg = config or self.config
        e = c.expansion
        if e is None:
            return None
        if c.dense is None or e.cosine is None:
            return e.present & (e.coverage >= cfg.min_coverage_enrich)
        import numpy as np

        japanese_pair = np.full(len(self.units), c.cjk or c.any_cjk, dtype=bool)
        if e.named is not None:
            japanese_pair = japanese_pair & ~e.named
        bar = np.where(japanese_pair, cfg.min_relevance_enrich_cjk, cfg.min_relevance + cfg.enrichment_margin)
        return e.present & (e.cosine + cfg.coverage_weight * e.coverage >= bar)

    def relevant(self, c: Components, config: HybridConfig | None = None):
        """Boolean mask (n,): units that pass the absolute cut-off for this query, by their text or
        by their search enrichment."""
        by_text = self.relevant_by_text(c, config)
        by_enrichment = self.relevant_by_enrichment(c, config)
        return by_text if by_enrichment is None else by_text | by_enrichment

    def ranked(self, query: str, k: int = 10) -> list[Scored]:
        """The top ``k`` units, best first, each with its relevance signals."""
        import numpy as np

        if not self.units or k <= 0 or not query.strip():
            return []
        c = self.components(query)
        scores = self.combine(c)
        if c.dense is None:
            # lexical only: units without a matching term are not results
            matching = c.lexical > 0
            if c.expansion is not None:
                matching = matching | (c.expansion.lexical > 0)
            candidates = np.flatnonzero(matching)
        else:
            candidates = np.arange(len(scores))
        if len(candidates) > k:
            part = np.argpartition(-scores[candidates], k - 1)[:k]
            candidates = candidates[part]
        order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
        by_text = self.relevant_by_text(c)
        by_enrichment = self.relevant_by_enrichment(c)
        if by_enrichment is None:
            by_enrichment = np.zeros(len(self.units), dtype=bool)
        return [Scored(self.units[i].id, float(scores[i]), float(c.coverage[i]),
                       None if c.dense is None else float(c.dense[i]), bool(by_text[i] or by_enrichment[i]),
                       bool(by_enrichment[i] and not by_text[i])) for i in order]

    def explain(self, unit: int, query: str) -> str:
        """The line of unit ``unit``'s search enrichment that best matches ``query`` ("" without one)."""
        import numpy as np

        if self.expansion is None:
            return ""
        qvec = None
        if self.matrix is not None and self._embed_query is not None:
            qvec = np.asarray(self._embed_query([query]), dtype=np.float32)[0]
        tokens = without_lone_kana(query_terms(query, tokenize(query)))
        return self.expansion.best_line(unit, tokens, qvec)

    def search(self, query: str, k: int = 10) -> Ranking:
        return [(s.id, s.score) for s in self.ranked(query, k)]


def search_texts(query: str, items: list[tuple[Hashable, str]], k: int = 10, dense: bool | str = "auto") -> Ranking:
    """Top-k (id, score) of ``items`` for ``query``, higher = better.

    dense=False: BM25 only, and only items sharing a term with the query. dense=True / "auto":
    the hybrid score for every item (so an item can rank by meaning alone)."""
    if not items or k <= 0 or not query.strip():
        return []
    if dense is False or (dense == "auto" and not dense_available()):
        idx = BM25Index.from_items(items, k1=HybridConfig.k1, b=HybridConfig.b)
        return idx.search(query, k)
    index = HybridIndex([Unit(i, t) for i, t in items], dense=dense)
    return index.search(query, k)
