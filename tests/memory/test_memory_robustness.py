"""Concurrency and damaged files: no lost or interleaved entries, no crash, no data loss."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memtest_fixtures import pmem, umem  # noqa: F401
from kioku.memory import api
from kioku.memory.topics import read_topic

REPO_ROOT = Path(__file__).resolve().parents[2]
WORKER = """
import sys
from kioku.cli.main import main
w = int(sys.argv[1])
for i in range(int(sys.argv[2])):
    args = ["remember", f"worker{w} note{i}: component{w}x{i} handles queue{w}y{i} with retries{i}{w}"]
    if i % 3 == 2:
        args += ["--type", "user"]
    elif i % 3 == 1:
        args += ["--topic", "shared-notes"]
    rc = main(args)
    assert rc == 0, rc
"""


def _entries(index: Path) -> list[str]:
    return [l for l in index.read_text().splitlines() if l.startswith("- ")]


@pytest.mark.slow
def test_parallel_remember_processes_lose_nothing(project, pmem, umem):
    workers, per_worker = 8, 6
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(w), str(per_worker)], cwd=project, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(workers)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.count("Saved to memory:") == per_worker
    expected = {f"worker{w} note{i}:" for w in range(workers) for i in range(per_worker)}
    index_lines = _entries(pmem / "MEMORY.md") + _entries(umem / "MEMORY.md")
    assert len(index_lines) == len(expected)
    assert {re.search(r"worker\d+ note\d+:", l).group(0) for l in index_lines} == expected
    bodies = []
    for folder in (pmem, umem):
        for path in folder.glob("*.md"):
            if path.name == "MEMORY.md":
                continue
            topic = read_topic(path)
            assert not topic.broken, path
            bodies += [e.text for e in topic.entries]
            text = path.read_text()
            assert text.startswith("---\n") and text.count("\n---\n") == 1  # one frontmatter, not interleaved
    assert len(bodies) == len(expected)
    assert {re.match(r"worker\d+ note\d+:", b).group(0) for b in bodies} == expected
    leftovers = [p for f in (pmem, umem) for p in f.iterdir() if p.name.endswith(".tmp")]
    assert not leftovers


def test_invalid_utf8_index_is_backed_up_and_rebuilt(project, pmem, kioku):
    api.remember("We use bun for installs")
    api.remember("Tests run with pytest -q")
    (pmem / "MEMORY.md").write_bytes(b"# Memory index\n\xff\xfe\xfa broken\n")
    out = kioku("remember", "Docs are built with mkdocs")
    assert out.returncode == 0, out.stderr
    assert "unreadable" in out.stderr and "rebuilt from topic files" in out.stderr
    index = (pmem / "MEMORY.md").read_text()
    for fact in ("We use bun for installs", "Tests run with pytest -q", "Docs are built with mkdocs"):
        assert fact in index
    backups = list(pmem.glob("MEMORY.md.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_bytes().startswith(b"# Memory index\n\xff")
    assert backups[0].stat().st_mode & 0o777 == 0o600


def test_huge_index_is_backed_up_and_rebuilt(project, pmem):
    api.remember("We use bun for installs")
    (pmem / "MEMORY.md").write_text("- [project] junk → a.md\n" * 40000)
    assert "junk" in api.build_recall()  # recall reads what it can, within budget
    api.remember("Tests run with pytest -q")
    index = (pmem / "MEMORY.md").read_text()
    assert "We use bun for installs" in index and "junk" not in index and index.count("\n") < 200
    assert list(pmem.glob("MEMORY.md.corrupt-*"))


def test_garbage_lines_and_missing_sections_are_kept_and_fixed(project, pmem):
    api.remember("We use bun for installs")
    (pmem / "MEMORY.md").write_text("random text someone typed\n- [project] We use bun for installs → project-conventions.md\n")
    api.remember("Tests run with pytest -q")
    index = (pmem / "MEMORY.md").read_text()
    assert "random text someone typed" in index  # not ours to delete
    assert "## Project" in index and "## Feedback" in index
    assert len(_entries(pmem / "MEMORY.md")) == 2


def test_bad_frontmatter_topic_file_is_repaired_without_losing_text(project, pmem, kioku):
    pmem.mkdir(parents=True)
    (pmem / "project-conventions.md").write_text(
        "---\ntype: [project\ncreated: {{oops\n---\n# Conventions\n\n## Old rule\nKeep functions short.\n")
    out = kioku("remember", "Use pathlib, not os.path")
    assert out.returncode == 0, out.stderr
    assert "damaged" in out.stderr
    text = (pmem / "project-conventions.md").read_text()
    assert text.startswith("---\ntype: project\n")
    assert "Keep functions short." in text and "Use pathlib, not os.path" in text
    # the broken frontmatter is settings, not a memory: kept only in the backup, not in the body
    assert "type: [project" not in text and "{{oops" not in text
    import frontmatter

    assert frontmatter.loads(text)["type"] == "project"
    backup = list(pmem.glob("project-conventions.md.corrupt-*"))
    assert backup and b"{{oops" in backup[0].read_bytes()
    assert "Old rule" in (pmem / "MEMORY.md").read_text()  # the hand-written entry got indexed


def test_non_utf8_topic_file_is_repaired_with_backup(project, pmem):
    pmem.mkdir(parents=True)
    (pmem / "project-conventions.md").write_bytes(
        b"---\ntype: project\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n\n## Encoding \xe9t\xe9\nLatin-1 text caf\xe9\n")
    api.remember("Use pathlib everywhere")
    text = (pmem / "project-conventions.md").read_text(encoding="utf-8")
    assert "Latin-1 text caf" in text and "Use pathlib everywhere" in text
    assert list(pmem.glob("project-conventions.md.corrupt-*"))[0].read_bytes().endswith(b"caf\xe9\n")


def test_topic_file_without_frontmatter_gets_one(project, pmem):
    pmem.mkdir(parents=True)
    (pmem / "project-conventions.md").write_text("# My notes\n- loose bullet\n")
    api.remember("Use pathlib everywhere")
    text = (pmem / "project-conventions.md").read_text()
    assert text.startswith("---\ntype: project\n") and "- loose bullet" in text and "Use pathlib everywhere" in text


def test_huge_topic_file_gives_one_line_error_and_writes_nothing(project, pmem, kioku):
    pmem.mkdir(parents=True)
    big = pmem / "project-conventions.md"
    big.write_text("---\ntype: project\n---\n" + ("filler line\n" * 500_000))
    before = big.stat().st_mtime_ns
    out = kioku("remember", "Use pathlib everywhere", "--topic", "project-conventions")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "too large" in out.stderr
    assert big.stat().st_mtime_ns == before and not (pmem / "MEMORY.md").exists()
    assert kioku("recall").returncode == 0
    assert kioku("remember", "Use pathlib everywhere", "--topic", "python-style").returncode == 0


def test_organize_repair_rebuilds_index_from_topic_files(project, pmem, kioku):
    api.remember("We use bun for installs")
    api.remember("Don't push directly to main")
    (pmem / "MEMORY.md").write_text("## Project\nnonsense\n")
    out = kioku("organize", "--repair")
    assert out.returncode == 0, out.stderr
    assert "added 2 entries missing from MEMORY.md" in out.stdout
    entries = _entries(pmem / "MEMORY.md")
    assert len(entries) == 2 and "nonsense" in (pmem / "MEMORY.md").read_text()  # written by hand: kept
    assert not list(pmem.glob("MEMORY.md.corrupt-*"))  # nothing was damaged or lost


def test_organize_repair_removes_lines_pointing_to_nothing_and_keeps_a_copy(project, pmem, kioku):
    api.remember("We use bun for installs")
    index = pmem / "MEMORY.md"
    original = index.read_text().replace("We use bun for installs", "We use yarn for installs")
    index.write_text(original)  # the summary no longer matches the topic file's entry
    out = kioku("organize", "--repair")
    assert out.returncode == 0, out.stderr
    assert "removed 1 line from MEMORY.md that points to no memory in its topic file" in out.stdout
    text = index.read_text()
    assert "We use bun for installs" in text and "yarn" not in text
    backups = list(pmem.glob("MEMORY.md.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text() == original


def test_organize_without_repair_reports_unreadable_index(project, pmem, kioku):
    api.remember("We use bun for installs")
    (pmem / "MEMORY.md").write_bytes(b"\xff\xfe\x00")
    out = kioku("organize")
    assert out.returncode == 0 and "kioku organize --repair" in out.stdout
    assert (pmem / "MEMORY.md").read_bytes() == b"\xff\xfe\x00"  # report mode changes nothing


def test_hand_edited_index_over_the_limit_moves_hand_lines_out(project, pmem, kioku):
    api.remember("We use bun for installs")
    index = pmem / "MEMORY.md"
    index.write_text(index.read_text() + "".join(f"hand note {i}\n" for i in range(300)))
    out = kioku("remember", "Tests run with pytest -q")
    assert out.returncode == 0 and "300 hand-written lines (not Kioku entries) moved to" in out.stderr
    text = index.read_text()
    assert text.count("\n") <= 200 and "We use bun for installs" in text and "Tests run with pytest -q" in text
    assert "hand note" not in text
    moved = list(pmem.glob("MEMORY.md.hand-written-*"))
    assert len(moved) == 1 and moved[0].name in out.stderr
    assert all(f"hand note {i}\n" in moved[0].read_text() for i in range(300))
    assert moved[0].stat().st_mode & 0o777 == 0o600
    assert not list(pmem.glob("MEMORY.md.corrupt-*"))  # over-long is not damaged


def test_unwritable_memory_folder_gives_one_line_error(project, pmem, kioku):
    api.remember("We use bun for installs")
    before = {p.name: p.read_bytes() for p in pmem.iterdir() if p.is_file()}
    # the folder refuses new entries, renames and removals as ``chmod 0500`` does, for root too
    denial = str(Path(__file__).parent / "unwritable_folder")
    out = kioku("remember", "Tests run with pytest -q",
                env={"KIOKU_TEST_UNWRITABLE": str(pmem), "PYTHONPATH": denial})
    assert out.returncode == 1 and out.stderr.startswith("kioku: error:") and out.stderr.count("\n") == 1
    assert "Permission denied" in out.stderr
    assert {p.name: p.read_bytes() for p in pmem.iterdir() if p.is_file()} == before  # nothing half-written


def test_os_errors_become_one_line_errors_and_recall_still_works(project, pmem, kioku):
    api.remember("I prefer short answers")  # user memory, so recall has something to show
    pmem.mkdir(parents=True)
    (pmem / "project-conventions.md").mkdir()  # something very wrong on disk
    out = kioku("remember", "Tests run with pytest -q")
    assert out.returncode == 1 and out.stderr.startswith("kioku: error: ") and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr
    recall = kioku("recall")
    assert recall.returncode == 0 and "I prefer short answers" in recall.stdout


def test_a_folder_in_place_of_the_index_is_moved_aside_and_the_index_rebuilt(project, pmem, kioku):
    assert kioku("remember", "We deploy on Fridays", "--type", "project").returncode == 0
    (pmem / "MEMORY.md").unlink()
    (pmem / "MEMORY.md").mkdir()
    assert "Fridays" in api.build_recall()  # recalled from the topic files meanwhile
    assert "MEMORY.md is a folder" in kioku("doctor").stdout
    out = kioku("remember", "Tests run with pytest -q")
    assert out.returncode == 0 and "is a folder" in out.stderr and out.stderr.count("\n") == 1
    index = (pmem / "MEMORY.md").read_text(encoding="utf-8")
    assert "Fridays" in index and "pytest -q" in index
    assert [p for p in pmem.glob("MEMORY.md.corrupt-*") if p.is_dir()]
