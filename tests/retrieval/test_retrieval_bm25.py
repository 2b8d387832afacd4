"""BM25Index: exact scores and orderings on a small corpus."""

from __future__ import annotations

import math

import pytest

from kioku.retrieval.bm25 import BM25Index
from kioku.retrieval.text import word_tokens

DOCS = [
    ("a", "apple banana"),
    ("b", "apple apple apple cherry"),
    ("c", "banana cherry durian"),
    ("d", "elderberry"),
]


def test_known_ordering_and_exact_score() -> None:
    idx = BM25Index.from_items(DOCS, k1=1.2, b=0.75, tokenizer=word_tokens)
    hits = idx.search("apple", k=10)
    assert [h[0] for h in hits] == ["b", "a"]  # higher tf wins despite the longer document
    # hand computation: N=4, df(apple)=2, avgdl=(2+4+3+1)/4=2.5
    idf = math.log(1 + (4 - 2 + 0.5) / (2 + 0.5))
    tf, dl = 3, 4
    expected_b = idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / 2.5))
    assert abs(hits[0][1] - expected_b) < 1e-9


def test_rare_term_outweighs_common_term() -> None:
    idx = BM25Index.from_items(DOCS, tokenizer=word_tokens)
    assert [h[0] for h in idx.search("durian banana", k=2)] == ["c", "a"]
    assert idx.search("elderberry", k=5)[0][0] == "d"


def test_no_match_and_k() -> None:
    idx = BM25Index.from_items(DOCS, tokenizer=word_tokens)
    assert idx.search("zucchini", k=5) == []
    assert len(idx.search("apple banana cherry", k=2)) == 2
    assert idx.search("apple", k=0) == []


def test_ties_keep_insertion_order_and_idf_is_never_negative() -> None:
    idx = BM25Index.from_items([("x", "kiwi words"), ("y", "kiwi words"), ("z", "kiwi")], tokenizer=word_tokens)
    # z is shorter so it leads; x and y tie exactly and keep insertion order
    assert [h[0] for h in idx.search("kiwi", k=3)] == ["z", "x", "y"]
    assert idx.idf("kiwi") > 0  # term in every document still scores (Lucene idf)


def test_documents_added_after_a_search_are_found() -> None:
    idx = BM25Index(tokenizer=word_tokens)
    idx.add("1", "alpha beta")
    assert idx.search("gamma") == []
    idx.add("2", "gamma")
    assert idx.search("gamma")[0][0] == "2"
    assert len(idx) == 2


def test_coverage_is_the_share_of_the_query_idf_weight() -> None:
    from kioku.retrieval.text import tokenize

    idx = BM25Index.from_items([("a", "deploy the api on friday"), ("b", "friday lunch"), ("c", "nothing here")])
    full = idx.coverage(tokenize("deploy friday"))
    assert full[0] == pytest.approx(1.0)
    # "friday" is in two documents, "deploy" in one: the rarer word carries more of the weight
    assert 0.0 < full[1] < 0.5 and 2 not in full
    unknown = idx.coverage(tokenize("deploy zeppelin"))  # a word no document has still counts
    assert 0.0 < unknown[0] < 0.6
    assert idx.coverage([]) == {}
