"""Memory files and folders that are symbolic links are never followed: nothing is read from
them into a session, nothing is written through them, and the error names the link."""

from __future__ import annotations

import os
import stat

import pytest

from kioku.infra.errors import SymlinkRefused
from kioku.memory import api

OUTSIDE_INDEX = ("# Memory index\n\n- [project] deploy with AKIA" + "Q7RZ2M9PL4KT8WZ1 → infra.md\n"
                 "- [project] outside fact that must not be recalled → notes.md\n")


def test_symlinked_index_is_not_read_or_copied(project, tmp_path, kioku):
    outside = tmp_path / "outside" / "MEMORY.md"
    outside.parent.mkdir()
    outside.write_text(OUTSIDE_INDEX, encoding="utf-8")
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").symlink_to(outside)
    assert "outside fact" not in api.build_recall()
    with pytest.raises(SymlinkRefused, match="MEMORY.md"):
        api.remember("We use bun for installs")
    out = kioku("remember", "We use bun for installs")
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1
    assert "symbolic link" in out.stderr and "MEMORY.md" in out.stderr
    assert (memory / "MEMORY.md").is_symlink() and outside.read_text(encoding="utf-8") == OUTSIDE_INDEX
    assert sorted(p.name for p in memory.iterdir()) == ["MEMORY.md"]


@pytest.mark.parametrize("linked", ["memory", ".agents"])
def test_symlinked_memory_folder_is_not_written_through(project, tmp_path, linked):
    outside = tmp_path / "shared-folder"
    outside.mkdir()
    os.chmod(outside, 0o755)
    if linked == "memory":
        (project / ".agents").mkdir()
        link = project / ".agents" / "memory"
    else:
        link = project / ".agents"
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(SymlinkRefused, match=linked):
        api.remember("We use bun for installs")
    assert list(outside.iterdir()) == []
    assert stat.S_IMODE(outside.stat().st_mode) == 0o755


def test_orphan_temp_file_is_removed_at_the_next_write(project):
    api.remember("We use bun for installs")
    memory = project / ".agents" / "memory"
    orphan = memory / ".project-conventions.md.0123456789ab.tmp"
    orphan.write_text("copy of the memories left by a killed writer", encoding="utf-8")
    unrelated = memory / "notes.tmp"
    unrelated.write_text("the user's own file", encoding="utf-8")
    api.remember("Run the linter before committing")
    assert not orphan.exists() and unrelated.exists()


@pytest.mark.parametrize("where", ["topic", "archive"])
def test_symlinked_topic_file_error_says_it_is_a_link(project, tmp_path, kioku, where):
    api.remember("We use bun for installs", type="project", topic="tooling")
    memory = project / ".agents" / "memory"
    outside = tmp_path / "outside.md"
    outside.write_text("---\ntype: project\n---\n", encoding="utf-8")
    if where == "topic":
        link = memory / "release.md"
        link.symlink_to(outside)
        out = kioku("remember", "Releases are cut on Fridays", "--topic", "release")
    else:
        (memory / "archive").mkdir()
        link = memory / "archive" / "tooling.md"
        link.symlink_to(outside)
        out = kioku("forget", "bun")
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "symbolic link" in out.stderr and str(link) in out.stderr and "invalid topic file" not in out.stderr
    assert outside.read_text(encoding="utf-8") == "---\ntype: project\n---\n"
    assert "We use bun for installs" in (memory / "tooling.md").read_text(encoding="utf-8")


def test_organize_mentions_a_missing_index_and_skipped_topic_files(project, tmp_path, kioku):
    api.remember("We use bun for installs", type="project")
    memory = project / ".agents" / "memory"
    (memory / "MEMORY.md").unlink()
    outside = tmp_path / "outside.md"
    outside.write_text("---\ntype: project\n---\n\n## 2026-01-01 outside fact\noutside fact\n", encoding="utf-8")
    (memory / "linked.md").symlink_to(outside)
    (memory / "archive").mkdir()
    (memory / "archive" / "old.md").symlink_to(outside)
    if hasattr(os, "mkfifo"):
        os.mkfifo(memory / "pipe.md")
    out = kioku("organize", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "MEMORY.md is missing" in out.stdout and "kioku organize --repair" in out.stdout
    assert "Nothing to organize" not in out.stdout
    assert "linked.md: it is a symbolic link" in out.stdout and "archive/old.md: it is a symbolic link" in out.stdout
    if hasattr(os, "mkfifo"):
        assert "pipe.md: it is not a regular file" in out.stdout
    assert not (memory / "MEMORY.md").exists()  # the report changes nothing
    repaired = kioku("organize", "--repair", timeout=60)
    assert "rebuilt MEMORY.md from the topic files (it was missing)" in repaired.stdout
    assert "We use bun for installs" in (memory / "MEMORY.md").read_text(encoding="utf-8")
    assert "outside fact" not in (memory / "MEMORY.md").read_text(encoding="utf-8")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_index_never_blocks_recall_or_a_save(project, kioku):
    memory = project / ".agents" / "memory"
    assert kioku("remember", "We deploy on Fridays", "--type", "project").returncode == 0
    (memory / "MEMORY.md").unlink()
    os.mkfifo(memory / "MEMORY.md")
    assert "Fridays" in api.build_recall()  # never read (nothing blocks): recalled from the topic files
    saved = kioku("remember", "We use bun for installs", "--type", "project", timeout=30)
    assert saved.returncode == 0, saved.stderr
    assert "MEMORY.md is not a regular file" in saved.stderr and len(saved.stderr.strip().splitlines()) == 1
    index = (memory / "MEMORY.md").read_text(encoding="utf-8")
    assert "Fridays" in index and "bun" in index  # rebuilt from the topic files
    [aside] = memory.glob("MEMORY.md.corrupt-*")
    assert stat.S_ISFIFO(os.lstat(aside).st_mode)  # moved aside whole, never read


def test_a_folder_in_place_of_a_topic_file_is_refused_in_one_clear_line(project, kioku):
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "deploys.md").mkdir()
    out = kioku("remember", "We deploy on Fridays", "--topic", "deploys", timeout=30)
    assert out.returncode != 0 and len(out.stderr.strip().splitlines()) == 1
    assert "deploys.md is not a regular file; Kioku leaves it alone" in out.stderr
    assert (memory / "deploys.md").is_dir()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_topic_file_named_by_a_save_is_refused(project, kioku):
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    os.mkfifo(memory / "deploys.md")
    out = kioku("remember", "We deploy on Fridays", "--topic", "deploys", timeout=30)
    assert out.returncode != 0 and "deploys.md" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(memory / "deploys.md").st_mode)
