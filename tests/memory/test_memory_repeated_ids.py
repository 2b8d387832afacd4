"""A block copied by hand keeps its ``<!-- kioku: id=... -->`` line. Two memories must never
share an id: forgetting, merging or editing one would take the other with it."""

from __future__ import annotations

import re
from pathlib import Path

from memtest_fixtures import pmem, umem  # noqa: F401
from kioku.memory import api

_ID = re.compile(r"\[id ([0-9a-z]+)\]")


def _copy_entry(topic: Path, old: str, new: str, into: Path | None = None) -> None:
    """Append a copy of the entry whose heading holds ``old``, with ``old`` replaced by ``new``."""
    text = topic.read_text(encoding="utf-8")
    block = re.search(rf"^## [^\n]*{re.escape(old)}.*?(?=^## |\Z)", text, re.S | re.M).group(0)
    target = into or topic
    target.write_text(target.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + block.replace(old, new),
                      encoding="utf-8")


def _ids(query: str) -> list[str]:
    return [_ID.search(h.text).group(1) for h in api.search(query, dense=False)]


def test_a_copied_block_gets_its_own_id_and_forget_takes_only_it(project, pmem, kioku):
    api.remember("Use tabs for indentation in Go files", type="project")
    topic = pmem / "project-conventions.md"
    _copy_entry(topic, "Go files", "Makefiles")
    ids = _ids("tabs indentation")
    assert len(ids) == 2 and len(set(ids)) == 2
    assert ids == _ids("tabs indentation")  # the same new id on every read

    out = kioku("forget", "Makefiles")
    assert out.returncode == 0, out.stderr
    kept = topic.read_text(encoding="utf-8")
    assert "Go files" in kept and "Makefiles" not in kept
    archived = (pmem / "archive" / "project-conventions.md").read_text(encoding="utf-8")
    assert "Makefiles" in archived and "Go files" not in archived
    assert "Go files" in kioku("recall").stdout


def test_forget_by_the_new_id_and_by_the_kept_one(project, pmem):
    api.remember("Use tabs for indentation in Go files", type="project")
    topic = pmem / "project-conventions.md"
    _copy_entry(topic, "Go files", "Makefiles")
    by_summary = {h.text.split(" [id ")[0].rsplit(": ", 1)[-1]: _ID.search(h.text).group(1)
                  for h in api.search("tabs indentation", dense=False)}
    original = next(v for k, v in by_summary.items() if "Go files" in k)
    copy = next(v for k, v in by_summary.items() if "Makefiles" in k)
    assert original in topic.read_text(encoding="utf-8") and copy not in topic.read_text(encoding="utf-8")
    api.forget(id=copy)
    assert "Makefiles" not in topic.read_text(encoding="utf-8")
    api.forget(id=original)
    assert "Go files" not in topic.read_text(encoding="utf-8")


def test_organize_names_the_repeated_id_and_repair_writes_the_new_one(project, pmem, kioku):
    api.remember("Use tabs for indentation in Go files", type="project")
    topic = pmem / "project-conventions.md"
    _copy_entry(topic, "Go files", "Go source files")  # near enough to be proposed for a merge
    old = re.search(r"id=([0-9a-f]{8})", topic.read_text(encoding="utf-8")).group(1)

    report = kioku("organize")
    assert report.returncode == 0, report.stderr
    assert "repeated another entry's id" in report.stdout + report.stderr
    merges = [line for line in report.stdout.splitlines() if " + " in line]
    assert merges  # the two are proposed for a merge, as two memories, not one memory with itself
    for line in merges:
        ids = re.findall(r"\b[0-9a-f]{8}\b", line)
        assert len(ids) == len(set(ids)) == 2, line

    repaired = kioku("organize", "--repair")
    assert repaired.returncode == 0, repaired.stderr
    ids = re.findall(r"id=([0-9a-f]{8})", topic.read_text(encoding="utf-8"))
    assert len(ids) == 2 and ids[0] == old and ids[1] != old
    again = kioku("organize")
    assert "repeated another entry's id" not in again.stdout + again.stderr


def test_an_id_repeated_in_another_topic_file(project, pmem):
    api.remember("Use tabs for indentation in Go files", type="project")
    other = pmem / "zz-notes.md"
    other.write_text("---\ntype: project\ncreated: 2026-01-05T10:00:00Z\n---\n\n# Notes\n", encoding="utf-8")
    _copy_entry(pmem / "project-conventions.md", "Go files", "Makefiles", into=other)
    ids = _ids("tabs indentation")
    assert len(ids) == 2 and len(set(ids)) == 2
    api.forget("Makefiles")
    assert "Makefiles" not in other.read_text(encoding="utf-8")
    assert "Go files" in (pmem / "project-conventions.md").read_text(encoding="utf-8")


def test_an_entry_of_a_file_too_large_to_change_shows_no_id(project, pmem):
    """Search reads a topic file over 4 MB (its first 4 MB); no other command does, so an id shown
    for its entries could only name another memory."""
    api.remember("Use tabs for indentation in Go files", type="project")
    big = pmem / "a-notes.md"
    big.write_text("---\ntype: project\ncreated: 2026-01-01T00:00:00Z\n---\n\n# Notes\n", encoding="utf-8")
    _copy_entry(pmem / "project-conventions.md", "Go files", "Makefiles", into=big)
    with big.open("a", encoding="utf-8") as handle:
        handle.write("\n## Filler\n" + ("x" * 100 + "\n") * 43000)
    hits = {Path(h.file).name: h.text for h in api.search("tabs indentation", dense=False)}
    assert "[id " not in hits["a-notes.md"] and "not changed by Kioku" in hits["a-notes.md"]
    [go_id] = _ID.findall(hits["project-conventions.md"])
    api.forget(id=go_id)
    assert "Go files" not in (pmem / "project-conventions.md").read_text(encoding="utf-8")


def test_entries_written_by_hand_without_an_id_line_are_not_reported_again_and_again(project, pmem, kioku):
    pmem.mkdir(parents=True)
    entry = "## 2026-01-05 Staging runs on the blue cluster\nStaging runs on the blue cluster.\n"
    (pmem / "infra.md").write_text("---\ntype: reference\n---\n\n" + entry + "\n" + entry, encoding="utf-8")
    ids = _ids("staging blue cluster")
    assert len(ids) == 2 and len(set(ids)) == 2  # still two memories with two ids
    for _ in range(2):
        out = kioku("organize", "--repair")
        assert out.returncode == 0 and "repeated another entry's id" not in out.stdout + out.stderr


def test_a_block_copied_from_user_to_project_memory_is_forgotten_by_folder(project, pmem, umem, kioku):
    api.remember("Answer in English unless asked otherwise", type="user")
    [user_topic] = [p for p in umem.glob("*.md") if p.name != "MEMORY.md"]
    pmem.mkdir(parents=True, exist_ok=True)
    copy = pmem / user_topic.name
    copy.write_text(user_topic.read_text(encoding="utf-8"), encoding="utf-8")
    both = kioku("forget", "Answer in English")
    assert both.returncode != 0 and "--scope user" in both.stderr and "nothing was changed" in both.stderr
    done = kioku("forget", "Answer in English", "--scope", "project")
    assert done.returncode == 0, done.stderr
    assert "Answer in English" not in copy.read_text(encoding="utf-8")
    assert "Answer in English" in user_topic.read_text(encoding="utf-8")


def test_forget_in_one_folder_does_not_point_at_a_note_in_the_other(project, umem, kioku):
    api.remember("Answer in English unless asked otherwise", type="user")
    index = umem / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nBritish spelling in all docs\n", encoding="utf-8")
    both = kioku("forget", "British spelling")
    assert both.returncode != 0 and "written by hand" in both.stderr
    project_only = kioku("forget", "British spelling", "--scope", "project")
    assert project_only.returncode != 0 and "no memory matches" in project_only.stderr
    assert "written by hand" not in project_only.stderr
