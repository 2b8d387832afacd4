from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kioku.lessons.store.client import Record
from kioku.lessons.store.names import KINDS, agent_slug, collection_name

from store_helpers import run_py

CHROMA_RULE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")


def test_plain_names_follow_the_spec_pattern():
    assert collection_name("reviewer", "improvements") == "agent_reviewer_improvements"
    assert collection_name("code-reviewer", "evaluations") == "agent_code_reviewer_evaluations"
    assert collection_name("code-finder", "improvements") == "agent_code_finder_improvements"  # the seed's name
    assert collection_name("code-finder", "performance", "0123456789ab") == \
        "agent_code_finder_project_0123456789ab_performance"
    assert collection_name("reviewer", "performance", "0123456789ab") == \
        "agent_reviewer_project_0123456789ab_performance"


@pytest.mark.parametrize("agent", [
    "code reviewer", "コードレビュー", "a" * 600, "x", "a..b", "-lead-", "agent/with/slashes",
    "x_project_0123456789ab", "UPPER.case_ok", "emoji 🚀 bot", "..", "127.0.0.1",
])
def test_odd_names_are_valid_for_chroma_and_distinct(agent):
    for kind in KINDS:
        for project in (None, "0123456789ab"):
            name = collection_name(agent, kind, project)
            assert CHROMA_RULE.match(name), name
            assert ".." not in name
            assert len(name) <= 512


def test_sanitised_names_do_not_collide():
    names = {agent_slug(a) for a in ["code reviewer", "code-reviewer", "code_reviewer", "code/reviewer",
                                     "a" * 600, "a" * 601, "code-reviewer-x", "code_reviewer-x"]}
    assert len(names) == 8
    # a global agent whose name mimics a project collection never shares it
    for mimic in ("x_project_0123456789ab", "x-project-0123456789ab"):
        assert collection_name(mimic, "improvements") != collection_name("x", "improvements", "0123456789ab")
    # stable across calls (deterministic hash)
    assert agent_slug("code reviewer") == agent_slug("code reviewer")


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        collection_name("", "improvements")
    with pytest.raises(ValueError):
        collection_name("a", "lessons")


def test_real_chroma_accepts_every_generated_name(tmp_path):
    import chromadb

    client = chromadb.PersistentClient(path=str(tmp_path / "c"))
    for agent in ["code reviewer", "a" * 600, "x", "a..b", "日本語"]:
        client.create_collection(collection_name(agent, "improvements", "0123456789ab"))
        client.create_collection(collection_name(agent, "improvements"))


OLD_NAME = "agent_code-finder_improvements"  # what the first naming gave agent code-finder


def _old_store(store_dir: Path) -> None:
    """A store as the first naming left it: code-finder's lessons under the hyphenated name."""
    from kioku.lessons.store.client import AgentStore

    store = AgentStore(store_dir)
    docs = ["Search with ripgrep before reading whole files", "Read the README before the code"]
    store._write({"op": "upsert", "collection": OLD_NAME, "agent": "code-finder", "kind": "improvements",
                  "project_id": None, "ids": ["l1", "l2"], "documents": docs,
                  "metadatas": [{"category": "search_strategy"}, {"category": "documentation_style"}]},
                 store._embed(docs))
    store.upsert("main", "improvements", [Record("m1", "Run the tests before committing", {"category": "testing_patterns"})])
    with store.journal.lock():
        state = store.journal.state()
        state.pop("collection_names", None)
        store.journal.state_path.write_text(json.dumps(state))  # the first naming kept no version


MIGRATE = r"""
import json, sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore
store = AgentStore(Path(sys.argv[1]))
got = store.get("code-finder", "improvements")
print(json.dumps({"ids": sorted(r.id for r in got), "agents": store.agents(),
                  "lexical": [i for i, _ in store.lexical_search("code-finder", "improvements", "ripgrep")],
                  "hits": [r.id for r in store.query("code-finder", "improvements", "find text fast", 1)],
                  "seq": store.journal.last_seq()}))
"""


def test_collections_under_the_old_name_move_on_first_open(tmp_path: Path) -> None:
    import chromadb

    store_dir = tmp_path / "chroma"
    _old_store(store_dir)
    before = {c.name for c in chromadb.PersistentClient(path=str(store_dir)).list_collections()}
    assert OLD_NAME in before and "agent_code_finder_improvements" not in before
    del before
    out = json.loads(run_py(MIGRATE, str(store_dir)).stdout)  # a new process: the first open
    assert out["ids"] == ["l1", "l2"]
    assert out["agents"] == ["code-finder", "main"]
    assert out["lexical"][:1] == ["l1"] and out["hits"] == ["l1"]
    names = json.loads(run_py(LIST_NAMES, str(store_dir)).stdout)
    assert "agent_code_finder_improvements" in names and OLD_NAME not in names
    assert "agent_main_improvements" in names
    # Replaying the journal from scratch gives the same store: the move is part of its history.
    rebuilt = json.loads(run_py(REBUILD, str(store_dir)).stdout)
    assert rebuilt["ids"] == ["l1", "l2"] and OLD_NAME not in rebuilt["names"]
    # Once moved, a second open changes nothing.
    again = json.loads(run_py(MIGRATE, str(store_dir)).stdout)
    assert again["ids"] == ["l1", "l2"] and again["seq"] == out["seq"]

LIST_NAMES = r"""
import json, sys
import chromadb
print(json.dumps(sorted(c.name for c in chromadb.PersistentClient(path=sys.argv[1]).list_collections())))
"""

REBUILD = r"""
import json, sys
from pathlib import Path
import chromadb
from kioku.lessons.store.client import AgentStore
store = AgentStore(Path(sys.argv[1]))
store.rebuild(reset=True)
print(json.dumps({"ids": sorted(r.id for r in store.get("code-finder", "improvements")),
                  "names": sorted(c.name for c in chromadb.PersistentClient(path=sys.argv[1]).list_collections())}))
"""
