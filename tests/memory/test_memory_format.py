"""MEMORY.md and topic-file formats: parse/render, limits, frontmatter, safe topic names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memtest_fixtures import pmem, umem  # noqa: F401
from kioku.infra.errors import UsageError
from kioku.memory import api
from kioku.memory.index import MAX_LINE_CHARS, format_entry, parse_index
from kioku.memory.textutil import summarize
from kioku.memory.topics import parse_topic, slugify_topic, topic_path

ENTRY = re.compile(r"^- \[(user|project|feedback|reference)\] .+ → [\w.-]+\.md$")


def test_index_has_four_sections_and_entry_lines(project, pmem, umem):
    api.remember("We deploy with GitHub Actions to staging", type="project")
    api.remember("I like short answers", type="user")
    text = (pmem / "MEMORY.md").read_text()
    for section in ("## User", "## Project", "## Feedback", "## Reference"):
        assert section in text
    entries = [line for line in text.splitlines() if line.startswith("- ")]
    assert entries == ["- [project] We deploy with GitHub Actions to staging → infrastructure-notes.md"]
    user_entries = [line for line in (umem / "MEMORY.md").read_text().splitlines() if line.startswith("- ")]
    assert user_entries == ["- [user] I like short answers → user-preferences.md"]


def test_long_text_is_summarised_at_a_word_boundary_within_150_chars(project, pmem):
    words = " ".join(f"word{i}" for i in range(60))
    result = api.remember("Convention: " + words)
    assert len(result.index_line) <= MAX_LINE_CHARS
    assert result.summary.endswith("…")
    assert re.search(r"word\d+…$", result.summary)  # cut between words, not inside one
    line = next(l for l in (pmem / "MEMORY.md").read_text().splitlines() if l.startswith("- "))
    assert ENTRY.match(line) and len(line) <= MAX_LINE_CHARS
    topic = (pmem / "project-conventions.md").read_text()
    assert words in topic  # the full text is in the topic file


def test_japanese_summary_is_cut_by_characters():
    text = "本番環境へのデプロイは必ず金曜日以外に行い、事前にステージングで確認すること" * 6
    out = summarize(text, 60)
    assert len(out) <= 60 and out.endswith("…")


def test_format_entry_never_exceeds_limit_even_with_long_topic_name():
    entry = format_entry("reference", "x " * 200, "a-very-long-topic-name-for-testing-the-limit.md")
    assert len(entry.line) <= MAX_LINE_CHARS


def test_parse_keeps_hand_written_lines_and_unknown_sections():
    text = """# Memory index

My own note at the top

## Project
- [project] Use pnpm → project-conventions.md
garbage line that is not an entry
## Notes
- free text kept
"""
    doc = parse_index(text)
    assert [e.summary for e in doc.entries] == ["Use pnpm"]
    rendered = doc.render()
    for kept in ("My own note at the top", "garbage line that is not an entry", "## Notes", "- free text kept"):
        assert kept in rendered
    assert "## User" in rendered and "## Reference" in rendered  # missing sections are restored
    assert parse_index(rendered).render() == rendered  # stable


def test_topic_file_frontmatter_and_updated_changes_on_every_append(project, pmem, monkeypatch):
    monkeypatch.setenv("KIOKU_NOW", "2026-01-02T03:04:05Z")
    api.remember("Tests live in tests/ and run with pytest", type="project")
    first = (pmem / "project-conventions.md").read_text()
    monkeypatch.setenv("KIOKU_NOW", "2026-01-03T00:00:00Z")
    api.remember("Modules stay under 400 lines", type="project")
    second = (pmem / "project-conventions.md").read_text()
    fm = dict(re.findall(r"^(type|created|updated): (.+)$", second, re.M))
    assert fm["type"] == "project"
    assert fm["created"].startswith("2026-01-02T03:04:05")
    assert fm["updated"].startswith("2026-01-03T00:00:00")
    assert re.search(r"^updated: 2026-01-02T03:04:05", first, re.M)
    assert "## 2026-01-02 Tests live in tests/ and run with pytest" in second
    assert "## 2026-01-03 Modules stay under 400 lines" in second
    # the file we wrote is valid YAML frontmatter for python-frontmatter too
    import frontmatter

    post = frontmatter.loads(second)
    assert post["type"] == "project" and "Modules stay under 400 lines" in post.content


def test_topic_roundtrip_keeps_hand_written_entries_verbatim(tmp_path):
    raw = """---
type: project
tags:
  - build
created: 2026-01-01
---
# Conventions
- a loose bullet someone typed

## Build steps
Run `make` first.
  indented detail
"""
    path = tmp_path / "conventions.md"
    topic = parse_topic(path, raw.encode())
    assert not topic.broken  # nested YAML is checked with PyYAML, not rejected
    assert [e.summary for e in topic.entries] == ["Build steps"]
    assert topic.entries[0].text.startswith("Run `make` first.")
    out = topic.render(updated="2026-02-02T00:00:00Z")
    assert "tags:\n  - build" in out and "updated: 2026-02-02T00:00:00Z" in out
    assert "- a loose bullet someone typed" in out and "  indented detail" in out


@pytest.mark.parametrize("name,expected", [
    ("release-process", "release-process.md"),
    ("Release Process", "release-process.md"),
    ("API_notes.md", "api-notes.md"),
    ("デプロイ手順", "デプロイ手順.md"),
    ("weird\u202enames\u200b!!", "weirdnames.md"),  # bidi override / zero-width / punctuation dropped
    ("  spaced   out  ", "spaced-out.md"),
])
def test_topic_names_are_slugified(name, expected):
    assert slugify_topic(name) == expected


@pytest.mark.parametrize("name", ["../x", "../../etc/passwd", "/etc/passwd", "a/b", "..", ".", "a\\b",
                                  "bad\x00name", "", "!!!", "MEMORY", "archive.md"])
def test_topic_names_cannot_escape_or_clash(name):
    with pytest.raises(UsageError, match="invalid topic name"):
        slugify_topic(name)


def test_topic_path_refuses_paths_outside_the_folder(tmp_path):
    with pytest.raises(UsageError):
        topic_path(tmp_path, "../x.md")
    assert topic_path(tmp_path, "x.md") == tmp_path / "x.md"


def test_cli_topic_escape_is_rejected_and_nothing_written(project, pmem, kioku):
    for bad in ("../escape", "/etc/passwd", "a/b"):
        out = kioku("remember", "Deploy notes", "--topic", bad)
        assert out.returncode == 2, out.stderr
        assert "invalid topic name" in out.stderr
    assert not (project / ".agents" / "escape.md").exists()
    assert not pmem.exists() or not list(pmem.glob("*.md"))
    out = kioku("remember", "Release on Tuesdays", "--topic", "Release Process")
    assert out.returncode == 0 and (pmem / "release-process.md").exists()


def test_folders_0700_files_0600(project, pmem, umem):
    api.remember("I prefer dark mode", type="user")
    api.remember("We use ruff for formatting", type="project")
    api.forget(query="ruff")
    for folder in (pmem, umem, pmem / "archive"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
        for path in folder.iterdir():
            if path.is_file():
                assert path.stat().st_mode & 0o777 == 0o600, path


def test_memory_text_that_looks_like_structure_round_trips(project, pmem):
    text = ("Release checklist\n## not a heading\n<!-- kioku: id=fake -->\nSupersedes: nothing\n"
            "\\## literal backslash line\n---\nlast line")
    r = api.remember(text, type="project", topic="release")
    api.remember("Another release fact about tags", type="project", topic="release")
    from kioku.memory.topics import read_topic

    topic = read_topic(pmem / "release.md")
    assert [e.text for e in topic.entries] == [text, "Another release fact about tags"]
    assert topic.entries[0].id == r.id and not topic.broken
