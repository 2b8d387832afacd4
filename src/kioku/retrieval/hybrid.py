"""Hybrid (lexical + dense) retrieval over small in-memory item lists.

Contract::

    fuse(rankings: list[list[(id, score)]], weights=None, k=60) -> list[(id, score)]
    search_texts(query, items: list[(id, text)], k=10, dense=True | False | "auto") -> list[(id, score)]

``fuse`` is weighted reciprocal rank fusion: score(id) = Σ_i w_i / (k + rank_i(id)), rank from 1.
``search_texts`` ranks ``items`` by BM25 (Kioku tokenizer, English + Japanese) and, when
``dense`` is True or "auto" and the offline MiniLM embedder is available, by cosine
similarity, then fuses both. With dense="auto" a missing model silently degrades to
lexical only; dense=True raises ``EmbedderUnavailable``.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Hashable, Sequence

from kioku.retrieval.bm25 import BM25Index

Ranking = list[tuple[Hashable, float]]

DEFAULT_RRF_K = 60


def fuse(rankings: Sequence[Ranking], weights: Sequence[float] | None = None, k: int = DEFAULT_RRF_K) -> Ranking:
    """Weighted reciprocal rank fusion of rankings (each best first)."""
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("weights must match rankings")
    acc: dict[Hashable, float] = {}
    first_seen: dict[Hashable, int] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, (doc_id, _score) in enumerate(ranking, start=1):
            acc[doc_id] = acc.get(doc_id, 0.0) + weight / (k + rank)
            first_seen.setdefault(doc_id, len(first_seen))
    return sorted(acc.items(), key=lambda kv: (-kv[1], first_seen[kv[0]]))


# In-process cache of item embeddings keyed by text hash: memory files and improvements are
# re-ranked repeatedly within a process (worker, tests) and rarely change.
_CACHE_MAX = 20000
_cache: dict[bytes, object] = {}
_cache_lock = threading.Lock()


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def embed_cached(texts: Sequence[str]):
    """Embeddings (n, 384) for texts, reusing vectors computed earlier in this process."""
    import numpy as np

    from kioku.retrieval.embedder import get_embedder

    keys = [_key(t) for t in texts]
    with _cache_lock:
        missing = [i for i, key in enumerate(keys) if key not in _cache]
    if missing:
        vectors = get_embedder().embed([texts[i] for i in missing])
        with _cache_lock:
            if len(_cache) + len(missing) > _CACHE_MAX:
                _cache.clear()
            for row, i in enumerate(missing):
                _cache[keys[i]] = vectors[row]
    with _cache_lock:
        return np.stack([_cache[key] for key in keys]) if keys else np.zeros((0, 384), np.float32)


def dense_ranking(query: str, items: Sequence[tuple[Hashable, str]]) -> Ranking:
    import numpy as np

    matrix = embed_cached([text for _, text in items])
    qvec = embed_cached([query])[0]
    sims = matrix @ qvec
    order = np.argsort(-sims, kind="stable")
    return [(items[i][0], float(sims[i])) for i in order]


def _dense_available() -> bool:
    try:
        from kioku.retrieval.embedder import model_files

        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401

        model_files()
        return True
    except Exception:
        return False


def search_texts(
    query: str,
    items: list[tuple[Hashable, str]],
    k: int = 10,
    dense: bool | str = "auto",
) -> Ranking:
    """Top-k (id, score) of ``items`` for ``query``; score is the fused score (higher = better)."""
    if not items or k <= 0 or not query.strip():
        return []
    lexical = BM25Index.from_items(items).search(query, k=max(50, 5 * k))
    use_dense = dense is True or (dense == "auto" and _dense_available())
    if not use_dense:
        return lexical[:k]
    try:
        semantic = dense_ranking(query, items)
    except Exception:
        if dense is True:
            raise
        return lexical[:k]
    return fuse([lexical, semantic[: max(50, 5 * k)]], weights=[1.0, 1.0])[:k]
