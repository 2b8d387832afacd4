"""Editing, re-typing and restoring memories (kioku.memory.edit) on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from memtest_fixtures import pmem, umem  # noqa: F401

from kioku.infra.errors import KiokuError, SecretRejected
from kioku.memory.api import remember
from kioku.memory.edit import edit_memory, restore_memory
from kioku.memory.forget import forget
from kioku.memory.search import search


def _files(*folders: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for folder in folders if folder.is_dir()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".lock"}


def test_edit_replaces_text_summary_and_index_line_and_keeps_the_id(project: Path, pmem: Path) -> None:
    saved = remember("We always use bun, never npm", type="project", project_root=project)
    other = remember("Integration tests run against a real database", type="project", project_root=project)
    result = edit_memory(saved.id, text="We always use pnpm, never npm", project_root=project)
    assert (result.id, result.status, result.type) == (saved.id, "edited", "project")
    topic = (pmem / "project-conventions.md").read_text()
    index = (pmem / "MEMORY.md").read_text()
    assert f"id={saved.id}" in topic and "We always use pnpm, never npm" in topic and "bun" not in topic
    assert "- [project] We always use pnpm, never npm → project-conventions.md" in index
    assert "bun" not in index and other.summary in index
    assert [h.file for h in search("pnpm", project_root=project, dense=False)][0].endswith("project-conventions.md")


def test_type_change_in_the_same_folder_moves_the_index_line(project: Path, pmem: Path) -> None:
    saved = remember("Never force-push to main", type="project", project_root=project)
    edit_memory(saved.id, type="feedback", project_root=project)
    index = (pmem / "MEMORY.md").read_text()
    feedback_section = index.split("## Feedback", 1)[1].split("##", 1)[0]
    assert "- [feedback] Never force-push to main" in feedback_section
    assert "[project] Never force-push" not in index
    assert f"id={saved.id} type=feedback" in (pmem / "project-conventions.md").read_text()


def test_type_change_to_user_moves_the_memory_to_the_user_folder(project: Path, pmem: Path, umem: Path) -> None:
    saved = remember("Answers should be short and start with the command", type="project", project_root=project)
    result = edit_memory(saved.id, type="user", project_root=project)
    assert (result.status, result.scope, result.id) == ("moved", "user", saved.id)
    assert "short and start" not in (pmem / "project-conventions.md").read_text()
    assert "short and start" not in (pmem / "MEMORY.md").read_text()
    assert f"id={saved.id} type=user" in (umem / "user-preferences.md").read_text()
    assert "- [user] Answers should be short" in (umem / "MEMORY.md").read_text()
    back = edit_memory(saved.id, type="project", project_root=project)
    assert (back.status, back.scope) == ("moved", "project")
    assert "short and start" not in (umem / "MEMORY.md").read_text()


def test_a_secret_in_an_edit_is_refused_before_anything_is_written(project: Path, pmem: Path, umem: Path) -> None:
    saved = remember("Deploys go through the release script", type="project", project_root=project)
    before = _files(pmem, umem)
    with pytest.raises(SecretRejected):
        edit_memory(saved.id, text="Deploy token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", project_root=project)
    assert _files(pmem, umem) == before


def test_unknown_ids_and_types_change_nothing(project: Path, pmem: Path) -> None:
    saved = remember("Use UTC timestamps in logs", type="project", project_root=project)
    before = _files(pmem)
    with pytest.raises(KiokuError):
        edit_memory("ffffffff", text="anything", project_root=project)
    with pytest.raises(KiokuError):
        edit_memory(saved.id, type="secret-type", project_root=project)
    with pytest.raises(KiokuError):
        restore_memory(saved.id, project_root=project)  # active, not in the archive
    assert _files(pmem) == before


def test_restore_undoes_forget(project: Path, pmem: Path) -> None:
    saved = remember("The staging API lives on port 8443", type="reference", project_root=project)
    topic_name = Path(saved.topic_file).name
    index_before = (pmem / "MEMORY.md").read_text()
    forget(id=saved.id, project_root=project)
    assert "8443" not in (pmem / topic_name).read_text()
    assert "8443" in (pmem / "archive" / topic_name).read_text()
    result = restore_memory(saved.id, project_root=project)
    assert (result.status, result.id) == ("restored", saved.id)
    assert "8443" in (pmem / topic_name).read_text()
    assert "8443" not in (pmem / "archive" / topic_name).read_text()
    assert (pmem / "MEMORY.md").read_text() == index_before
    assert "(archived" not in (pmem / topic_name).read_text()
