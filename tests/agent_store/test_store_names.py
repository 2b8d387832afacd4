from __future__ import annotations

import re

import pytest

from kioku.agent.store_names import KINDS, agent_slug, collection_name

CHROMA_RULE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")


def test_plain_names_follow_the_spec_pattern():
    assert collection_name("reviewer", "improvements") == "agent_reviewer_improvements"
    assert collection_name("code-reviewer", "evaluations") == "agent_code-reviewer_evaluations"
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
                                     "a" * 600, "a" * 601]}
    assert len(names) == 6
    # a global agent whose name mimics a project collection never shares it
    assert collection_name("x_project_0123456789ab", "improvements") != \
        collection_name("x", "improvements", "0123456789ab")
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
