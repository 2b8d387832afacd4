from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kioku.lessons.store.client import KINDS, AgentStore, Record, collection_name, open_store
from kioku.infra import paths

from store_helpers import run_py

LESSONS = [
    Record("l1", "Run the full test suite before committing changes", {"category": "testing_patterns"}),
    Record("l2", "Search the codebase with ripgrep instead of grep for speed", {"category": "search_strategy"}),
    Record("l3", "Retry flaky network calls with exponential backoff", {"category": "error_handling"}),
    Record("l4", "Write docstrings that state the contract of each module", {"category": "documentation_style"}),
]


def test_query_returns_nearest_with_cosine_relevance(store):
    store.upsert("reviewer", "improvements", LESSONS)
    hits = store.query("reviewer", "improvements", "how do I find code quickly in a big repository", n_results=4)
    assert hits[0].id == "l2"
    assert [h.id for h in hits] != []
    # cosine space: distance = 1 - cos(query, doc) computed with our own embedder
    from kioku.retrieval.embedder import get_embedder

    emb = get_embedder().embed(["how do I find code quickly in a big repository", LESSONS[1].document])
    cos = float(np.dot(emb[0], emb[1]))
    assert hits[0].distance == pytest.approx(1 - cos, abs=1e-4)
    assert hits[0].relevance == pytest.approx(cos, abs=1e-4)
    assert all(0 <= h.distance <= 2 for h in hits)


def test_collections_have_metadata_and_cosine_space(store, store_dir):
    store.upsert("reviewer", "evaluations", [Record("e1", "session went fine", {"success": True})])
    import chromadb

    col = chromadb.PersistentClient(path=str(store_dir)).get_collection(collection_name("reviewer", "evaluations"))
    assert col.metadata["agent"] == "reviewer"
    assert col.metadata["purpose"]
    assert col.metadata["created_at"].endswith("+00:00")
    assert col.configuration_json["hnsw"]["space"] == "cosine"


def test_missing_collections_are_empty_not_errors(store):
    assert store.query("ghost", "improvements", "anything") == []
    assert store.get("ghost", "improvements") == []
    assert store.get("ghost", "improvements", ids=["x"]) == []
    assert store.count("ghost", "performance") == 0
    assert store.agents() == []
    assert store.lexical_search("ghost", "improvements", "anything") == []
    store.delete("ghost", "improvements", ["x"])  # no error
    store.update_metadata("ghost", "improvements", ["x"], [{"a": 1}])
    store.drop_agent("ghost")


def test_get_preserves_requested_order_and_upsert_replaces_document(store):
    store.upsert("reviewer", "improvements", LESSONS)
    assert [r.id for r in store.get("reviewer", "improvements", ids=["l3", "l1", "missing", "l2"])] == ["l3", "l1", "l2"]
    store.upsert("reviewer", "improvements", [Record("l1", "Prefer small focused commits", {"confidence": 0.8})])
    (rec,) = store.get("reviewer", "improvements", ids=["l1"])
    assert rec.document == "Prefer small focused commits"
    assert rec.metadata == {"category": "testing_patterns", "confidence": 0.8}  # upsert merges metadata
    assert store.query("reviewer", "improvements", "small commits", 1)[0].id == "l1"
    assert store.count("reviewer", "improvements") == 4
    assert len(store.get("reviewer", "improvements", limit=2)) == 2


def test_delete_drop_copy_and_agents(store):
    store.upsert("a1", "improvements", LESSONS)
    store.upsert("a1", "evaluations", [Record("e1", "ok", {"quality": 80.0})])
    store.upsert("team lead", "improvements", LESSONS[:1])
    assert store.agents() == ["a1", "team lead"]
    store.copy_agent("a1", "a1-ab")
    assert store.count("a1-ab", "improvements") == 4 and store.count("a1-ab", "evaluations") == 1
    assert store.query("a1-ab", "improvements", "exponential backoff", 1)[0].id == "l3"
    assert store.lexical_search("a1-ab", "improvements", "backoff", 3)[0][0] == "l3"
    store.delete("a1", "improvements", ["l3"])
    assert store.count("a1", "improvements") == 3
    assert store.lexical_search("a1", "improvements", "backoff", 3) == []
    assert store.count("a1-ab", "improvements") == 4  # the copy is independent
    store.drop_agent("a1")
    assert store.agents() == ["a1-ab", "team lead"]
    assert store.count("a1", "improvements") == 0


def test_lexical_index_follows_the_journal(store):
    store.upsert("lex", "improvements", LESSONS)
    hits = store.lexical_search("lex", "improvements", "ripgrep", 5)
    assert hits and hits[0][0] == "l2"
    store.upsert("lex", "improvements", [Record("l2", "Use the language server to find symbols", {})])
    assert store.lexical_search("lex", "improvements", "ripgrep", 5) == []
    assert store.lexical_search("lex", "improvements", "symbols", 5)[0][0] == "l2"


def test_project_scope_is_separate(tmp_path):
    glob = AgentStore(tmp_path / "c")
    proj = AgentStore(tmp_path / "c", project_id="0123456789ab")
    glob.upsert("dev", "improvements", LESSONS[:2])
    proj.upsert("dev", "improvements", LESSONS[2:])
    assert {r.id for r in glob.get("dev", "improvements")} == {"l1", "l2"}
    assert {r.id for r in proj.get("dev", "improvements")} == {"l3", "l4"}
    assert glob.agents() == ["dev"] and proj.agents() == ["dev"]


def test_open_store_uses_paths(project: Path):
    g = open_store("global")
    p = open_store("project", project)
    assert g.chroma_dir == paths.global_chroma_dir().resolve() and g.project_id is None
    assert p.chroma_dir == (project / ".claude" / "chroma_data").resolve()
    assert p.project_id == paths.project_identity(project)
    p.upsert("dev", "improvements", LESSONS[:1])
    assert collection_name("dev", "improvements", p.project_id) == f"agent_dev_project_{p.project_id}_improvements"
    assert p.count("dev", "improvements") == 1
    with pytest.raises(ValueError):
        open_store("team")


def test_a_fresh_process_reopens_and_queries(store, store_dir):
    store.upsert("reviewer", "improvements", LESSONS)
    code = (
        "import sys, json; from pathlib import Path\n"
        "from kioku.lessons.store.client import AgentStore\n"
        "s = AgentStore(Path(sys.argv[1]))\n"
        "hits = s.query('reviewer', 'improvements', 'retry failing http requests', 2)\n"
        "print(json.dumps([h.id for h in hits]))\n"
        # also through raw chromadb + our registered EF: query_texts and configuration work
        "import chromadb, kioku.lessons.store.chroma_server as cs; cs.load_chromadb()\n"
        "col = chromadb.PersistentClient(path=sys.argv[1]).get_collection('agent_reviewer_improvements')\n"
        "print(col.configuration['embedding_function'].name())\n"
        "print(json.dumps(col.query(query_texts=['retry failing http requests'], n_results=1)['ids'][0]))\n"
    )
    out = run_py(code, str(store_dir)).stdout.splitlines()
    assert json.loads(out[0])[0] == "l3"
    assert out[1] == "kioku_minilm"
    assert json.loads(out[2]) == ["l3"]


def test_kinds_constant():
    assert KINDS == ("improvements", "evaluations", "performance")


def test_stored_embeddings_are_returned_by_id(store):
    from kioku.retrieval.embedder import get_embedder

    store.upsert("vec", "improvements", LESSONS)
    got = store.embeddings("vec", "improvements", ["l3", "missing", "l1"])
    assert set(got) == {"l1", "l3"}
    assert np.allclose(got["l3"], get_embedder().embed([LESSONS[2].document])[0], atol=1e-5)
    assert store.embeddings("ghost", "improvements", ["l1"]) == {}


NO_FTS = r'''
import sys
from pathlib import Path
sys.modules["kioku.retrieval.fts"] = None  # the lexical index module is unavailable here
from kioku.lessons.store.client import AgentStore, Record
s = AgentStore(Path(sys.argv[1]))
s.upsert("lx", "improvements", [Record("k1", "kubernetes rollout checklist", {})])
print(s.lexical_search("lx", "improvements", "kubernetes", 3), s.journal.state().get("lexical_stale"))
'''


def test_lexical_index_catches_up_after_it_was_unavailable(store_dir):
    out = run_py(NO_FTS, str(store_dir)).stdout.split()
    assert out == ["[]", "True"]
    store = AgentStore(store_dir)
    assert store.sync() == 0  # nothing pending in Chroma, but the lexical index is rebuilt
    assert store.journal.state().get("lexical_stale") is False
    assert store.lexical_search("lx", "improvements", "kubernetes", 3)[0][0] == "k1"


def test_query_vector_accepts_numpy_and_lists(store):
    from kioku.retrieval.embedder import get_embedder

    store.upsert("qv", "improvements", LESSONS)
    vec = get_embedder().embed([LESSONS[3].document])[0]
    assert store.query_vector("qv", "improvements", vec, 1)[0].id == "l4"
    hit = store.query_vector("qv", "improvements", [float(x) for x in vec], 2)[0]
    assert hit.id == "l4" and hit.distance == pytest.approx(0.0, abs=1e-4)
    assert store.query_vector("ghost", "improvements", vec, 1) == []
