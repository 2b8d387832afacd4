"""An empty MEMORY.md reads like a missing one: recall derives the index from the topic files,
and the next save rebuilds it with every memory, not only the new one."""

from __future__ import annotations

from kioku.memory import api


def test_an_empty_index_hides_no_memory(project):
    api.remember("We deploy with terraform apply from the infra folder", type="project")
    index = project / ".agents" / "memory" / "MEMORY.md"
    index.write_bytes(b"")
    assert "terraform apply" in api.build_recall(project)
    api.remember("The ledger service uses PostgreSQL 16 in production", type="project")
    text = index.read_text(encoding="utf-8")
    assert "terraform apply" in text and "PostgreSQL 16" in text
