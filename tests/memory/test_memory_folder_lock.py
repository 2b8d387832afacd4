"""The memory folder's lock: a busy folder is a one-line KiokuError, the lock is released on
every way out, and the links are checked again once it is held."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtest_fixtures import pmem  # noqa: F401
from kioku.infra import fsutil
from kioku.infra.errors import KiokuError, SymlinkRefused
from kioku.memory import api, store
from kioku.memory.store import LOCK_NAME, MemoryDir


def test_a_busy_folder_is_a_clear_error_and_nothing_is_written(project, pmem, monkeypatch):
    api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    before = {p.name: p.read_bytes() for p in pmem.glob("*.md")}
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    with fsutil.exclusive_lock(pmem / LOCK_NAME):  # another session holds the folder
        with pytest.raises(KiokuError, match="memory folder is busy"):
            api.remember("release notes are drafted by the docs team", project_root=project)
    assert {p.name: p.read_bytes() for p in pmem.glob("*.md")} == before
    assert api.remember("release notes are drafted by the docs team", project_root=project).status == "saved"


def test_the_lock_is_released_after_an_error_inside(project, pmem):
    api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    md = MemoryDir(pmem, "project")
    with pytest.raises(ValueError):
        with md.lock():
            raise ValueError("inside")
    with fsutil.try_lock(pmem / LOCK_NAME) as got:  # free again
        assert got
    with pytest.raises(KiokuError, match="memory folder is busy"):
        with md.lock():
            raise fsutil.LockTimeout("a lock taken inside timed out")
    with md.lock():
        pass


def test_a_link_swapped_in_is_refused_under_the_lock_and_the_lock_is_released(project, pmem, tmp_path, monkeypatch):
    api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    md = MemoryDir(pmem, "project")
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("x")
    calls = []
    real = MemoryDir.check_links

    def swap_then_check(self, *files):
        calls.append(files)
        if len(calls) == 2:  # the check made once the lock is held
            os.replace(pmem / "MEMORY.md", tmp_path / "MEMORY.md.orig")
            os.symlink(elsewhere, pmem / "MEMORY.md")
        return real(self, *files)

    monkeypatch.setattr(MemoryDir, "check_links", swap_then_check)
    with pytest.raises(SymlinkRefused):
        with md.lock():
            pytest.fail("the body must not run")
    with fsutil.try_lock(pmem / LOCK_NAME) as got:
        assert got
    assert Path(elsewhere).read_text() == "x"


def test_a_new_folder_gets_a_gitignore_for_its_lock_and_temp_files(project, pmem):
    api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    ignore = (pmem / store.GITIGNORE_NAME).read_text()
    assert f"/{LOCK_NAME}\n" in ignore and "/.*.tmp\n" in ignore
    assert (pmem / LOCK_NAME).exists()
    import subprocess

    (project / ".git").mkdir(exist_ok=True)
    if not (project / ".git" / "HEAD").exists():
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    ignored = subprocess.run(["git", "-C", str(project), "check-ignore", "--no-index",
                              ".agents/memory/MEMORY.md.corrupt-20261201T000000000Z", ".agents/memory/.lock",
                              ".agents/memory/MEMORY.md", ".agents/memory/reference-notes.md"],
                             capture_output=True, text=True)
    assert ignored.stdout.split() == [".agents/memory/MEMORY.md.corrupt-20261201T000000000Z", ".agents/memory/.lock"]


def test_a_deleted_gitignore_stays_deleted(project, pmem):
    api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    (pmem / store.GITIGNORE_NAME).unlink()
    api.remember("release notes are drafted by the docs team", project_root=project)
    assert not (pmem / store.GITIGNORE_NAME).exists()


def test_a_gitignore_link_is_refused_and_nothing_is_written(project, pmem, tmp_path):
    pmem.mkdir(parents=True)
    target = tmp_path / "elsewhere"
    os.symlink(target, pmem / store.GITIGNORE_NAME)
    with pytest.raises(SymlinkRefused):
        api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    assert not target.exists()
    assert not list(pmem.glob("*.md"))
