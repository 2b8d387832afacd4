"""A byte order mark (added by Windows editors) is not text and not damage.

- A BOM before MEMORY.md's title must not turn the title into a hand-written note that is
  recalled as a memory ("- # Memory index").
- A BOM before a topic file's frontmatter must not make the file "damaged": no .corrupt copy,
  no second frontmatter, the file keeps its type.
"""

from __future__ import annotations

from pathlib import Path

from kioku.memory import api

BOM = b"\xef\xbb\xbf"


def _folder(project: Path) -> Path:
    return project / ".agents" / "memory"


def test_a_bom_before_the_index_title_is_not_recalled_as_a_note(project):
    api.remember("We deploy with terraform apply from the infra folder", type="project")
    index = _folder(project) / "MEMORY.md"
    index.write_bytes(BOM + index.read_bytes())
    recalled = api.build_recall(project)
    assert "# Memory index" not in recalled
    assert "terraform apply" in recalled
    api.remember("The ledger service uses PostgreSQL 16 in production", type="project")
    text = index.read_text(encoding="utf-8")
    assert text.count("# Memory index") == 1


def test_a_bom_before_a_topic_frontmatter_is_not_damage(project):
    api.remember("We deploy with terraform apply from the infra folder", type="project")
    topic = next(p for p in _folder(project).glob("*.md") if p.name != "MEMORY.md")
    topic.write_bytes(BOM + topic.read_bytes())
    result = api.remember("The ledger service uses PostgreSQL 16 in production", type="project")
    assert not [w for w in result.warnings if "damaged" in w]
    assert not list(_folder(project).glob("*.corrupt-*"))
    text = topic.read_text(encoding="utf-8")
    assert text.count("\ntype:") + text.startswith("type:") == 1 and "type: project" in text
    assert text.count("---\n") == 2


def test_an_index_holding_only_a_byte_order_mark_reads_like_an_empty_one(project):
    api.remember("We deploy with terraform apply from the infra folder", type="project")
    (_folder(project) / "MEMORY.md").write_bytes(BOM)
    assert "terraform apply" in api.build_recall(project)
