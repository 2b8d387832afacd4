"""Re-derive the retrieval relevance threshold from the labelled pairs with the real MiniLM model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kioku.lessons.lesson_retrieval import RELEVANCE_THRESHOLD
from kioku.retrieval.embedder import get_embedder

DATA = Path(__file__).parent / "data" / "relevance_pairs.json"


def _f1(cos: np.ndarray, y: np.ndarray, t: float) -> float:
    pred = cos >= t
    tp, fp, fn = int((pred & y).sum()), int((pred & ~y).sum()), int((~pred & y).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def best_threshold(cos: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """F1-maximising threshold: midpoints between sorted cosines; ties → the higher threshold."""
    s = np.sort(cos)
    candidates = [(s[i] + s[i + 1]) / 2 for i in range(len(s) - 1)]
    best = max(candidates, key=lambda t: (round(_f1(cos, y, t), 9), t))
    return float(best), _f1(cos, y, best)


def test_threshold_is_the_f1_maximum_and_the_spec_value_is_too_strict():
    pairs = json.loads(DATA.read_text(encoding="utf-8"))["pairs"]
    y = np.array([bool(p["relevant"]) for p in pairs])
    assert len(pairs) >= 40 and 15 <= y.sum() <= len(pairs) - 15
    emb = get_embedder()
    cos = (emb.embed([p["task"] for p in pairs]) * emb.embed([p["lesson"] for p in pairs])).sum(1)
    threshold, f1 = best_threshold(cos, y)
    assert abs(threshold - RELEVANCE_THRESHOLD) <= 0.03, threshold
    assert f1 >= 0.78
    assert _f1(cos, y, RELEVANCE_THRESHOLD) >= f1 - 0.03
    # the spec's 0.6 finds only a handful of the helpful lessons with this model
    assert _f1(cos, y, 0.6) < 0.35
    assert np.median(cos[y]) < 0.6
