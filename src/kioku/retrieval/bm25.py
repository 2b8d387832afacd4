"""In-memory Okapi BM25 over an inverted index (stdlib only).

Contract::

    idx = BM25Index(k1=1.2, b=0.75, tokenizer=tokenize)
    idx.add(doc_id, text)            # or BM25Index.from_items([(id, text), ...])
    idx.search(query, k=10)  -> list[(id, score)]   # best first, score > 0 only
    idx.scores(query)        -> dict[id, score]     # every matching document
    idx.coverage(tokens)     -> dict[doc number, share of the query's IDF weight]

Scoring is the Lucene variant: idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (never negative),
tf part = tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)). Repeated query terms count
once per occurrence (a question saying "Melanie ... Melanie" weighs that term twice), which
is what the classic formulation with query-term frequency does.

Only postings of the query's terms are visited, so a query costs O(matching postings),
not O(documents). Documents can be added after searches; statistics are recomputed lazily.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from typing import Callable, Hashable, Iterable

from kioku.retrieval.text import tokenize as default_tokenize

Tokenizer = Callable[[str], list[str]]


class BM25Index:
    def __init__(self, k1: float = 1.2, b: float = 0.75, tokenizer: Tokenizer = default_tokenize) -> None:
        self.k1 = k1
        self.b = b
        self.tokenizer = tokenizer
        self._ids: list[Hashable] = []
        self._lengths: list[int] = []
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._total_len = 0
        self._norm: list[float] | None = None

    @classmethod
    def from_items(cls, items: Iterable[tuple[Hashable, str]], **kwargs) -> "BM25Index":
        idx = cls(**kwargs)
        for doc_id, text in items:
            idx.add(doc_id, text)
        return idx

    @classmethod
    def from_tokens(cls, items: Iterable[tuple[Hashable, list[str]]], **kwargs) -> "BM25Index":
        """Build from already tokenized documents (lets callers add context tokens)."""
        idx = cls(**kwargs)
        for doc_id, tokens in items:
            idx.add_tokens(doc_id, tokens)
        return idx

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, doc_id: Hashable, text: str) -> None:
        self.add_tokens(doc_id, self.tokenizer(text))

    def add_tokens(self, doc_id: Hashable, tokens: list[str]) -> None:
        n = len(self._ids)
        self._ids.append(doc_id)
        self._lengths.append(len(tokens))
        self._total_len += len(tokens)
        for term, tf in Counter(tokens).items():
            self._postings.setdefault(term, []).append((n, tf))
        self._norm = None

    def _prepare(self) -> list[float]:
        if self._norm is None:
            n = len(self._ids)
            avgdl = (self._total_len / n) if n else 1.0
            avgdl = avgdl or 1.0
            self._norm = [self.k1 * (1 - self.b + self.b * dl / avgdl) for dl in self._lengths]
        return self._norm

    def postings(self, term: str) -> list[tuple[int, int]]:
        """(document number, term frequency) of every document holding ``term``."""
        return self._postings.get(term, [])

    def length_norms(self) -> list[float]:
        """k1 x (1 - b + b x length / average length) per document number."""
        return self._prepare()

    def idf(self, term: str) -> float:
        df = len(self._postings.get(term, ()))
        n = len(self._ids)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def coverage(self, query_tokens: list[str]) -> dict[int, float]:
        """Share of the query's IDF weight that each matching document holds (0-1], by internal
        number. Every distinct query token counts, known or not, so a query about something
        absent from the collection covers little of any document."""
        distinct = set(query_tokens)
        total = sum(self.idf(t) for t in distinct)
        acc: dict[int, float] = {}
        if total <= 0:
            return acc
        for term in distinct:
            share = self.idf(term) / total
            for doc, _tf in self._postings.get(term, ()):
                acc[doc] = acc.get(doc, 0.0) + share
        return acc

    def score_tokens(self, query_tokens: list[str], weights: dict[str, float] | None = None) -> dict[int, float]:
        """Scores by internal document number for already tokenized query terms."""
        norm = self._prepare()
        k1p1 = self.k1 + 1
        acc: dict[int, float] = {}
        for term, qtf in Counter(query_tokens).items():
            postings = self._postings.get(term)
            if not postings:
                continue
            w = self.idf(term) * qtf * (weights.get(term, 1.0) if weights else 1.0)
            for doc, tf in postings:
                acc[doc] = acc.get(doc, 0.0) + w * tf * k1p1 / (tf + norm[doc])
        return acc

    def scores(self, query: str) -> dict[Hashable, float]:
        return {self._ids[d]: s for d, s in self.score_tokens(self.tokenizer(query)).items()}

    def search_tokens(self, query_tokens: list[str], k: int = 10) -> list[tuple[Hashable, float]]:
        acc = self.score_tokens(query_tokens)
        # Ties broken by insertion order so results are deterministic.
        best = heapq.nsmallest(k, acc.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(self._ids[d], s) for d, s in best if s > 0]

    def search(self, query: str, k: int = 10) -> list[tuple[Hashable, float]]:
        return self.search_tokens(self.tokenizer(query), k)
