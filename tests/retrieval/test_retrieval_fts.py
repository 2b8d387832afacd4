"""LexicalIndex (SQLite FTS5): writes, search, copy/drop, Japanese, persistence, permissions."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.retrieval.fts import LexicalIndex, fts_query

REPO = Path(__file__).resolve().parents[2]

ITEMS = [
    ("i1", "Always run pytest before committing changes"),
    ("i2", "Use ruff to lint Python files"),
    ("i3", "東京タワーの近くのラーメン屋が美味しい"),
    ("i4", "Database migrations need a backup first"),
]


@pytest.fixture
def index(tmp_path: Path):
    idx = LexicalIndex(tmp_path / "chroma" / "kioku_lexical.sqlite3")
    idx.upsert("agent_x_improvements", ITEMS)
    yield idx
    idx.close()


def ids(hits):
    return [h[0] for h in hits]


def test_search_ranks_matches_higher_is_better(index: LexicalIndex) -> None:
    hits = index.search("agent_x_improvements", "running the tests with pytest", 5)
    assert ids(hits)[0] == "i1"
    assert all(score > 0 for _, score in hits)
    two = index.search("agent_x_improvements", "lint python with ruff before committing", 5)
    assert ids(two)[:2] == ["i2", "i1"] and two[0][1] > two[1][1]
    assert index.search("agent_x_improvements", "kubernetes", 5) == []
    assert index.search("agent_x_improvements", "the of and", 5) == []  # only stopwords


def test_japanese_query_finds_japanese_text(index: LexicalIndex) -> None:
    assert ids(index.search("agent_x_improvements", "東京のラーメン", 3)) == ["i3"]
    assert ids(index.search("agent_x_improvements", "タワー", 3)) == ["i3"]


def test_upsert_replaces_and_delete_removes(index: LexicalIndex) -> None:
    index.upsert("agent_x_improvements", [("i2", "Format code with black")])
    assert index.search("agent_x_improvements", "ruff", 5) == []
    assert ids(index.search("agent_x_improvements", "black formatting", 5)) == ["i2"]
    assert index.count("agent_x_improvements") == 4
    index.delete("agent_x_improvements", ["i2", "missing-id"])
    assert index.search("agent_x_improvements", "black", 5) == []
    assert index.count("agent_x_improvements") == 3
    index.delete("no_such_collection", ["i1"])  # no error


def test_collections_are_isolated_copy_and_drop(index: LexicalIndex) -> None:
    index.upsert("agent_y_improvements", [("y1", "pytest fixtures are great")])
    assert ids(index.search("agent_y_improvements", "pytest", 5)) == ["y1"]
    assert ids(index.search("agent_x_improvements", "pytest", 5)) == ["i1"]
    index.copy("agent_x_improvements", "agent_y_improvements")
    assert set(ids(index.search("agent_y_improvements", "pytest", 5))) == {"i1", "y1"}
    assert index.count("agent_y_improvements") == 5
    # the copy is independent of its source
    index.delete("agent_x_improvements", ["i1"])
    assert "i1" in ids(index.search("agent_y_improvements", "pytest", 5))
    index.drop("agent_x_improvements")
    assert index.search("agent_x_improvements", "ruff", 5) == []
    assert index.count("agent_x_improvements") == 0
    assert index.collections() == ["agent_y_improvements"]
    # a re-created collection starts empty
    index.upsert("agent_x_improvements", [("n1", "fresh start")])
    assert index.count("agent_x_improvements") == 1
    assert index.search("agent_x_improvements", "pytest", 5) == []
    index.copy("does_not_exist", "agent_x_improvements")  # no error, no change
    assert index.count("agent_x_improvements") == 1


def test_k_limits_and_query_syntax_is_not_interpreted(index: LexicalIndex) -> None:
    index.upsert("c", [(f"d{i}", f"common word number{i}") for i in range(30)])
    assert len(index.search("c", "common", 7)) == 7
    assert index.search("c", "common", 0) == []
    for nasty in ['"common unbalanced', "NEAR(common", "common AND OR NOT", "col:common", "common*", "^common"]:
        assert index.search("c", nasty, 3), nasty
    assert fts_query('say "hi" say') == '"say" OR "hi"'


def test_persists_across_processes_and_file_is_private(tmp_path: Path) -> None:
    db = tmp_path / "store" / "kioku_lexical.sqlite3"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from kioku.retrieval.fts import LexicalIndex\n"
        "idx = LexicalIndex(Path(sys.argv[1]))\n"
        "idx.upsert('agent_z_improvements', [('z1', 'Check the staging deploy logs'), ('z2', '日本語のテスト')])\n"
        "idx.close()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    subprocess.run([sys.executable, "-c", code, str(db)], check=True, env=env, timeout=60)
    idx = LexicalIndex(db)
    assert ids(idx.search("agent_z_improvements", "deploy logs", 5)) == ["z1"]
    assert ids(idx.search("agent_z_improvements", "テスト", 5)) == ["z2"]
    idx.close()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_two_connections_see_each_others_writes(tmp_path: Path) -> None:
    db = tmp_path / "lex.sqlite3"
    a, b = LexicalIndex(db), LexicalIndex(db)
    a.upsert("c", [("1", "alpha release notes")])
    assert ids(b.search("c", "release", 3)) == ["1"]
    b.delete("c", ["1"])
    assert a.search("c", "release", 3) == []
    a.close()
    b.close()


def test_many_documents_and_long_queries(tmp_path: Path) -> None:
    idx = LexicalIndex(tmp_path / "big.sqlite3")
    for name, n in (("small", 500), ("big", 5000)):
        idx.upsert(name, [(f"d{i}", f"lesson {i} about topic{i % 97} and module{i % 13}") for i in range(n)])
        idx.upsert(name, [("needle", "rotate the signing certificate before it expires")])
    steps = {}
    conn = idx._connect()
    for name in ("small", "big"):
        idx.search(name, "when does the signing certificate expire", 5)  # document counts cached alike
        count = [0]

        def step() -> int:
            count[0] += 1
            return 0

        conn.set_progress_handler(step, 100)  # one call per 100 SQLite VM instructions
        hits = idx.search(name, "when does the signing certificate expire", 5)
        conn.set_progress_handler(None, 0)
        assert hits[0][0] == "needle"
        steps[name] = count[0]
    # an inverted-index lookup: ten times the documents, about the same work (a scan would be 10x)
    assert steps["big"] < 2 * steps["small"] + 5, steps
    long_query = " ".join(f"word{i}" for i in range(1000)) + " certificate"
    assert idx.search("big", long_query, 3) == []  # capped at the first 128 distinct terms
    assert idx.search("big", "certificate " + long_query, 3)[0][0] == "needle"
    idx.close()


def test_prune_terms_keeps_the_rarest_and_drops_common_ones() -> None:
    from kioku.retrieval.fts import prune_terms

    # df 0 never matches; > 5 % of 1000 docs is common; at least 3 terms survive
    assert prune_terms({"the": 900, "build": 300, "foobar": 2, "absent": 0, "xyz": 10}, 1000) == \
        ["foobar", "xyz", "build"]
    assert prune_terms({"a": 40, "b": 2, "c": 700, "d": 9}, 1000) == ["b", "d", "a"]
    many = {f"t{i}": 20 - i for i in range(12)}  # 12 rare terms: only the 8 rarest are searched
    assert prune_terms(many, 1000) == [f"t{i}" for i in range(11, 3, -1)]
    assert prune_terms({"x": 0}, 1000) == []


def test_search_prunes_common_terms_at_scale_without_changing_the_top_hits(tmp_path: Path) -> None:
    from kioku.retrieval import fts

    idx = LexicalIndex(tmp_path / "lex.sqlite3")
    items = [(f"d{i}", f"common filler lesson number{i % 97}") for i in range(1500)]
    items += [(f"a{i}", f"common lesson alpha extra{i}") for i in range(6)]
    items += [(f"b{i}", f"common lesson bravo extra{i}") for i in range(6)]
    items += [("target", "common lesson alpha bravo charlie")]
    idx.upsert("c", items)
    query = "common lesson alpha bravo charlie"
    assert idx.search_terms("c", query) == ["charlie", "alpha", "bravo"]  # rarest first
    pruned = idx.search("c", query, 10)
    assert pruned[0][0] == "target"
    with idx._lock:  # the unpruned OR of every token ranks the same documents first
        conn = idx._connect()
        tid = idx._tid(conn, "c", create=False)
        full = [d for d, _ in idx._match(conn, tid, fts_query(query), 10)]
    assert len(pruned) == 10 and [d for d, _ in pruned] == full
    # a query of common words only still searches its rarest ones
    assert len(idx.search("c", "common filler", 5)) == 5
    assert idx.search("c", "common unknownword", 3)
    # below PRUNE_MIN_DOCS every token is searched
    idx.upsert("small", items[:50])
    assert set(idx.search_terms("small", query)) == set(fts.query_tokens(query))
    # the cached document count follows writes made through another connection
    other = LexicalIndex(tmp_path / "lex.sqlite3")
    other.upsert("small", items[50:])
    other.close()
    assert idx.search_terms("small", query) == ["charlie", "alpha", "bravo"]
    idx.close()
