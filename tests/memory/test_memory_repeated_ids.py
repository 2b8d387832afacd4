"""A block copied by hand keeps its ``<!-- kioku: id=... -->`` line. Two memories must never
share an id: forgetting, merging or editing one would take the other with it."""

from __future__ import annotations

import re
from pathlib import Path

from memtest_fixtures import pmem  # noqa: F401
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
    _copy_entry(topic, "Go files", "Makefiles")
    old = re.search(r"id=([0-9a-f]{8})", topic.read_text(encoding="utf-8")).group(1)

    report = kioku("organize")
    assert report.returncode == 0, report.stderr
    assert "repeated another entry's id" in report.stdout + report.stderr
    assert f"{old} + {old}" not in report.stdout  # never proposed as a merge of one memory with itself

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
