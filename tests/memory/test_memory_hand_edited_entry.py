"""An entry edited by hand (heading and text) leaves its old MEMORY.md line behind until
`kioku organize --repair`: search shows one memory as it is now, organize names the old line."""

from __future__ import annotations

from memtest_fixtures import pmem  # noqa: F401
from kioku.memory import api


def test_an_entry_edited_by_hand_is_one_search_result_and_organize_names_the_old_line(project, pmem, kioku):
    api.remember("We use pnpm as the package manager", type="project")
    topic = pmem / "project-conventions.md"
    topic.write_text(topic.read_text(encoding="utf-8").replace("pnpm", "yarn"), encoding="utf-8")

    hits = api.search("which package manager do we use", dense=False)
    assert len(hits) == 1
    assert "yarn" in hits[0].text and "pnpm" in hits[0].context  # the old line, shown as context
    assert api.search("pnpm", dense=False) == []

    report = kioku("organize")
    assert report.returncode == 0, report.stderr
    assert "1 line of MEMORY.md points to no memory in its topic file" in report.stdout
    assert "1 written by hand" not in report.stdout  # the line is not counted as a note

    assert kioku("organize", "--repair").returncode == 0
    index = (pmem / "MEMORY.md").read_text(encoding="utf-8")
    assert "yarn" in index and "pnpm" not in index
    clean = kioku("organize").stdout
    assert "points to no memory" not in clean and "1 written by hand" not in clean


def test_two_entries_edited_in_one_file_are_not_guessed_apart(project, pmem):
    api.remember("We use pnpm as the package manager", type="project", topic="project-conventions")
    api.remember("Our CI runs on GitHub Actions", type="project", topic="project-conventions")
    topic = pmem / "project-conventions.md"
    text = topic.read_text(encoding="utf-8").replace("pnpm", "yarn").replace("GitHub Actions", "Buildkite")
    topic.write_text(text, encoding="utf-8")
    hits = api.search("which package manager do we use", dense=False)
    texts = " | ".join(h.text for h in hits)
    assert "yarn" in texts and "pnpm" in texts  # which old line belongs to which entry is not guessed


def test_an_entry_deleted_and_another_added_by_hand_are_not_taken_for_an_edit(project, pmem):
    api.remember("Releases are cut every second Tuesday", type="project", topic="process")
    topic = pmem / "process.md"
    text = topic.read_text(encoding="utf-8")
    head, _entry = text.split("\n## ", 1)
    topic.write_text(head + "\n## 2026-01-05 Oncall rota lives in the team calendar\n"
                     "Oncall rota lives in the team calendar\n", encoding="utf-8")
    hits = api.search("releases second tuesday", dense=False)
    assert hits and "Releases are cut" in hits[0].text  # the deleted entry's line, still recalled, is found
    oncall = api.search("oncall rota calendar", dense=False)
    assert oncall and not oncall[0].context  # and is not shown as the new entry's line


def test_a_line_pasted_twice_is_not_taken_for_another_entry(project, pmem):
    api.remember("Use tabs for indentation in Go files", type="project", topic="style")
    index = pmem / "MEMORY.md"
    line = next(x for x in index.read_text(encoding="utf-8").splitlines() if "Use tabs" in x)
    index.write_text(index.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")  # a merge of two branches
    topic = pmem / "style.md"
    topic.write_text(topic.read_text(encoding="utf-8")
                     + "\n## 2026-01-05 Releases are cut every second Tuesday\nReleases are cut every second Tuesday\n",
                     encoding="utf-8")
    [hit] = [h for h in api.search("releases second tuesday", dense=False) if "Releases" in h.text]
    assert "Use tabs" not in hit.context
