"""``kioku organize --repair``: lines written by hand stay in MEMORY.md, a ``.corrupt-*`` copy
is written only of a file that was damaged, and a topic file's broken frontmatter never
becomes memory text (search does not return it)."""

from __future__ import annotations

from pathlib import Path

from memtest_fixtures import pmem  # noqa: F401
from kioku.memory import api

HAND_LINES = ("Ask Dana before changing the release process.",
              "- [project] Wiki pages for onboarding → onboarding-wiki.md")


def _corrupt(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.corrupt-*"))


def test_repair_keeps_hand_written_lines_and_backs_up_nothing_healthy(project, pmem, kioku):
    api.remember("We use bun for installs", type="project")
    api.remember("Don't rewrite files wholesale", type="feedback")
    index = pmem / "MEMORY.md"
    text = index.read_text(encoding="utf-8")
    text = text.replace("## Project\n", "## Project\n" + "\n".join(HAND_LINES) + "\n")
    text += "\n## Team notes\n- standup at 10:00\n"
    index.write_text(text, encoding="utf-8")
    for _ in range(3):
        out = kioku("organize", "--repair")
        assert out.returncode == 0, out.stderr
        repaired = index.read_text(encoding="utf-8")
        for line in (*HAND_LINES, "## Team notes", "- standup at 10:00", "We use bun for installs",
                     "Don't rewrite files wholesale"):
            assert line in repaired
    assert _corrupt(pmem) == []


def test_repair_backs_up_a_damaged_topic_file_once(project, pmem, kioku):
    api.remember("We use bun for installs", type="project")
    topic = pmem / "project-conventions.md"
    topic.write_text(topic.read_text(encoding="utf-8").replace("type: project", "type: [project"), encoding="utf-8")
    assert kioku("organize", "--repair").returncode == 0
    assert [p.name.split(".corrupt-")[0] for p in _corrupt(pmem)] == ["project-conventions.md"]
    assert kioku("organize", "--repair").returncode == 0
    assert len(_corrupt(pmem)) == 1  # the second run found nothing damaged


BROKEN = ("---\ntype: reference\ncreated: 2026-01-05T10:00:00Z\ndescription: Infrastructure notes remembered by Kioku\n"
          "tags: [infra, {{broken\n---\n\n# Infrastructure notes\n\n"
          "## 2026-01-05 Staging runs on the blue cluster\n"
          "<!-- kioku: id=aa11bb22 type=reference created=2026-01-05T10:00:00Z -->\n"
          "Staging runs on the blue cluster.\n")


def test_broken_frontmatter_never_becomes_memory_text(project, pmem, kioku):
    pmem.mkdir(parents=True)
    topic = pmem / "infrastructure-notes.md"
    topic.write_text(BROKEN, encoding="utf-8")
    for step in ("before repair", "after repair"):
        hits = api.search("infrastructure notes remembered by kioku description", dense=False)
        assert not any("description:" in h.text or "{{broken" in h.text for h in hits), step
        assert kioku("organize", "--repair").returncode == 0
    text = topic.read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1]
    assert "description:" not in body and "{{broken" not in body and "tags:" not in body
    assert text.startswith("---\ntype: reference\ncreated: 2026-01-05T10:00:00Z\n")  # salvaged from the broken block
    assert "Staging runs on the blue cluster." in body
    backups = _corrupt(pmem)
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == BROKEN  # the original is kept
    assert [h.text for h in api.search("blue cluster staging", dense=False)]


def test_frontmatter_without_closing_line_is_not_body_text(project, pmem):
    pmem.mkdir(parents=True)
    topic = pmem / "infrastructure-notes.md"
    topic.write_text("---\ntype: reference\ndescription: Infrastructure notes remembered by Kioku\n\n"
                     "# Infrastructure notes\n\nLoose note: the VPN config lives in the ops repo.\n", encoding="utf-8")
    api.remember("Staging runs on the blue cluster", type="reference", topic="infrastructure-notes")
    text = topic.read_text(encoding="utf-8")
    assert text.count("description:") == 1 and text.startswith("---\ntype: reference\n")
    assert "Loose note: the VPN config lives in the ops repo." in text  # body text after the block is kept
    assert not any("description:" in h.text for h in api.search("infrastructure notes remembered", dense=False))
