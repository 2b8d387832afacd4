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
   of the query's rare words: +0.03 LoCoMo R@5, no change on the memory set's tune half);
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

Without the model (dense=False, or "auto" and the embedder unavailable) step 2 is skipped and
only units sharing a term with the query are results; dense=True with no model raises
``EmbedderUnavailable``.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

from kioku.retrieval.bm25 import BM25Index
from kioku.retrieval.dates import closeness, parse_query_dates, parse_date
from kioku.retrieval.text import english_words, query_terms, synonym_groups, tokenize, without_lone_kana

Ranking = list[tuple[Hashable, float]]

DEFAULT_RRF_K = 60
_TERM_CACHE_MAX = 5000  # query terms whose posting arrays an index keeps


def fuse(rankings: Sequence[Ranking], weights: Sequence[float] | None = None, k: int = DEFAULT_RRF_K,
         method: str = "rrf") -> Ranking:
    """Fuse rankings (each best first, scores higher = better); ties keep first-seen order.

    method="rrf": weighted reciprocal rank fusion, Σ w_i / (k + rank_i). method="score": Σ w_i x
    score_i / max_i (each list divided by its best score when that is positive) - what HybridIndex
    does, better on LoCoMo when scores are meaningful (cosines, BM25), since it keeps margins.
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


_CJK = re.compile(r"[\u3041-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def is_cjk_query(query: str) -> bool:
    """True when most characters of ``query`` are Japanese (or Chinese) script."""
    return len(_CJK.findall(query)) * 2 > len(query.strip())


def has_cjk(text: str) -> bool:
    """True when ``text`` holds any Japanese (or Chinese) character."""
    return _CJK.search(text) is not None


def needs_cjk_bar(query_is_cjk: bool, query_has_cjk: bool, text_has_cjk: bool, shares_english_word: bool) -> bool:
    """Whether a (query, text) pair is held to the Japanese cut-off: the query is mostly Japanese,
    or both hold Japanese and the text holds none of the query's English words. A short mixed
    question ("CIは？", "Lokiの使い方") and any Japanese text get a cosine of 0.3-0.6 whatever
    they say, so there the cosine cannot tell; the English word the question names can
    ("ログはLokiに送る"). Its cosine to an English text is the usual one."""
    return query_is_cjk or (query_has_cjk and text_has_cjk and not shares_english_word)


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


@dataclass(frozen=True)
class Scored:
    id: Hashable
    score: float  # fused, relative to the query's best unit
    coverage: float
    cosine: float | None
    relevant: bool  # passes the absolute cut-off (see the module docstring)


class HybridIndex:
    def __init__(self, units: Sequence[Unit], dense: bool | str = "auto", config: HybridConfig = HybridConfig(),
                 embed: Callable[[Sequence[str]], object] | None = None,
                 embed_query: Callable[[Sequence[str]], object] | None = None) -> None:
        import numpy as np

        self.units = list(units)
        self.config = config
        n = len(self.units)
        self.bm25 = BM25Index.from_items([(i, u.lexical_text()) for i, u in enumerate(self.units)],
                                         k1=config.k1, b=config.b)
        # distinct unit dates and a unit -> date index, so a query scores each date once, not n units
        parsed = [parse_date(u.date) if u.date else None for u in self.units]
        self._dates = sorted({d for d in parsed if d is not None})
        position = {d: i for i, d in enumerate(self._dates)}
        self._date_idx = np.array([position[d] if d is not None else len(self._dates) for d in parsed], dtype=int)
        self.matrix = None
        self._term_cache: dict[str, tuple[object, object]] = {}
        self._norms = None
        self._unit_cjk = np.array([has_cjk(u.text) for u in self.units], dtype=bool)
        self._embed_query = embed_query
        use_dense = dense is True or (dense == "auto" and dense_available())
        if use_dense and n:
            try:
                self.matrix = np.asarray((embed or embed_cached)([u.text for u in self.units]), dtype=np.float32)
                if self._embed_query is None:
                    self._embed_query = embed_cached
            except Exception:
                if dense is True:
                    raise
                self.matrix = None

    @property
    def has_dense(self) -> bool:
        return self.matrix is not None

    def _term_arrays(self, term: str):
        """(document numbers, BM25 term-frequency part) of ``term``'s postings, as arrays.

        Built once per term and index: the lexical scores and coverage of a query are then a
        few vector additions instead of a Python loop over every posting (at 10,000 memories
        the loops took about 5 ms of a 15 ms query). Same formula as ``BM25Index.score_tokens``.
        """
        import numpy as np

        arrays = self._term_cache.get(term)
        if arrays is None:
            postings = self.bm25.postings(term)
            docs = np.fromiter((d for d, _ in postings), dtype=np.intp, count=len(postings))
            tf = np.fromiter((t for _, t in postings), dtype=np.float64, count=len(postings))
            if self._norms is None:
                self._norms = np.asarray(self.bm25.length_norms(), dtype=np.float64)
            part = tf * (self.bm25.k1 + 1) / (tf + self._norms[docs]) if len(docs) else tf
            if len(self._term_cache) >= _TERM_CACHE_MAX:
                self._term_cache.clear()  # simple bound for long-lived processes
            arrays = self._term_cache[term] = (docs, part)
        return arrays

    def _phrase_arrays(self, phrase: str):
        """(documents holding every word of ``phrase``, the smallest BM25 term part among them)."""
        import numpy as np

        docs = part = None
        for word in phrase.split():
            d, p = self._term_arrays(word)
            if docs is None:
                docs, part = d, p
                continue
            docs, mine, theirs = np.intersect1d(docs, d, assume_unique=True, return_indices=True)
            part = np.minimum(part[mine], p[theirs])
        return docs, part

    def _lexical_signals(self, tokens: list[str], query: str = ""):
        """(BM25 scores, coverage) arrays (n,) for already tokenized query terms.

        Terms another word can stand for (``text.synonym_groups``: "database" / "db", the
        bigrams of データベース / "database") are scored as a group: a memory gets the better
        of what the terms give it and what an alternative would give it in their place (the
        terms' IDF weight, the alternative's term frequency), so naming a thing either way
        matches and nothing counts twice. The coverage total stays the query's own terms."""
        import numpy as np

        n = len(self.units)
        lexical = np.zeros(n, dtype=np.float64)
        coverage = np.zeros(n, dtype=np.float64)
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        idf = {term: self.bm25.idf(term) for term in counts}
        total = sum(idf.values())  # every distinct token counts, known or not (BM25Index.coverage)
        groups = synonym_groups(query, tokens) if query else []
        grouped = {term for terms, _ in groups for term in terms}
        for term, qtf in counts.items():
            if term in grouped:
                continue
            docs, part = self._term_arrays(term)
            if not len(docs):
                continue
            lexical[docs] += idf[term] * qtf * part  # a term's postings name each document once
            if total > 0:
                coverage[docs] += idf[term] / total
        for terms, alternatives in groups:
            weight = sum(idf[t] * counts[t] for t in terms)
            share = sum(idf[t] for t in terms) / total if total > 0 else 0.0
            lex_own = np.zeros(n, dtype=np.float64)
            cov_own = np.zeros(n, dtype=np.float64)
            for term in terms:
                docs, part = self._term_arrays(term)
                if len(docs):
                    lex_own[docs] += idf[term] * counts[term] * part
                    if total > 0:
                        cov_own[docs] += idf[term] / total
            lex_alt = np.zeros(n, dtype=np.float64)
            cov_alt = np.zeros(n, dtype=np.float64)
            for alt in alternatives:
                docs, part = self._term_arrays(alt) if " " not in alt else self._phrase_arrays(alt)
                if len(docs):
                    lex_alt[docs] = np.maximum(lex_alt[docs], weight * part)
                    cov_alt[docs] = share
            lexical += np.maximum(lex_own, lex_alt)
            coverage += np.maximum(cov_own, cov_alt)
        return lexical.astype(np.float32), coverage.astype(np.float32)

    def components(self, query: str) -> Components:
        import numpy as np

        tokens = without_lone_kana(query_terms(query, tokenize(query)))
        lexical, coverage = self._lexical_signals(tokens, query)
        any_cjk, mostly_cjk = has_cjk(query), is_cjk_query(query)
        named = None
        if any_cjk and not mostly_cjk:
            # which units hold one of a mixed question's English words (or what stands for them)
            named = self._lexical_signals(english_words(tokens), query)[1] > 0
        dense = None
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
        return Components(lexical, coverage, dense, mostly_cjk, date_match, any_cjk, named)

    def combine(self, c: Components, config: HybridConfig | None = None):
        """Final scores (n,) from the components under ``config`` (default: the index's)."""
        cfg = config or self.config
        lex = c.lexical
        top = float(lex.max()) if len(lex) else 0.0
        score = lex / top if top > 0 else lex.copy()
        if c.dense is not None:
            dtop = float(c.dense.max())
            if dtop > 0:
                weight = cfg.dense_weight * (cfg.cjk_dense_factor if c.cjk else 1.0)
                score = score + weight * (c.dense / dtop)
        if cfg.coverage_fusion:
            score = score + cfg.coverage_fusion * c.coverage
        if c.date_match is not None and cfg.date_weight:
            score = score + cfg.date_weight * c.date_match
        return score

    def relevance(self, c: Components, config: HybridConfig | None = None):
        """Absolute relevance (n,): cosine + coverage_weight x coverage, or coverage without the model."""
        cfg = config or self.config
        if c.dense is None:
            return c.coverage
        return c.dense + cfg.coverage_weight * c.coverage

    def relevant(self, c: Components, config: HybridConfig | None = None):
        """Boolean mask (n,): units that pass the absolute cut-off for this query."""
        cfg = config or self.config
        if c.dense is None:
            return c.coverage >= cfg.min_coverage
        import numpy as np

        japanese_pair = c.cjk | (c.any_cjk & self._unit_cjk)  # needs_cjk_bar, for every unit at once
        if c.named is not None:
            japanese_pair = japanese_pair & ~c.named
        return self.relevance(c, cfg) >= np.where(japanese_pair, cfg.min_relevance_cjk, cfg.min_relevance)

    def ranked(self, query: str, k: int = 10) -> list[Scored]:
        """The top ``k`` units, best first, each with its relevance signals."""
        import numpy as np

        if not self.units or k <= 0 or not query.strip():
            return []
        c = self.components(query)
        scores = self.combine(c)
        if c.dense is None:
            # lexical only: units without a matching term are not results
            candidates = np.flatnonzero(c.lexical > 0)
        else:
            candidates = np.arange(len(scores))
        if len(candidates) > k:
            part = np.argpartition(-scores[candidates], k - 1)[:k]
            candidates = candidates[part]
        order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
        mask = self.relevant(c)
        return [Scored(self.units[i].id, float(scores[i]), float(c.coverage[i]),
                       None if c.dense is None else float(c.dense[i]), bool(mask[i])) for i in order]

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
