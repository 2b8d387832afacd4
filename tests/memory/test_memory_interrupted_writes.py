"""A forget, organize or save killed between writing the topic files and the index: the next
forget, organize or save of the same memory finishes the job, and nothing is recalled that was
already archived."""

from __future__ import annotations

import pytest

from kioku.memory import api, store
from kioku.memory.forget import forget
from kioku.memory.organize import organize


class Killed(BaseException):
    """Stands for the process dying: nothing after it runs, no handler sees it."""


@pytest.fixture
def interrupted():
    """``interrupted(call)`` runs ``call`` as a process killed at its index write would: the
    topic and archive files are written, MEMORY.md is not."""
    original = store.MemoryDir.write_index

    def die(self, doc):
        raise Killed()

    def run(call):
        store.MemoryDir.write_index = die
        try:
            with pytest.raises(Killed):
                call()
        finally:
            store.MemoryDir.write_index = original
    return run


def _index(project) -> str:
    return (project / ".agents" / "memory" / "MEMORY.md").read_text(encoding="utf-8")


def test_a_forget_killed_before_its_index_write_is_finished_by_a_retry(project, interrupted):
    api.remember("the legacy billing cron runs at midnight UTC", type="project")
    api.remember("we deploy on Fridays", type="project")
    interrupted(lambda: forget("legacy billing cron", project_root=project))
    assert "legacy billing cron" in _index(project)  # the dead line is still there
    result = forget("legacy billing cron", project_root=project)
    assert "legacy billing cron" in result.summary
    assert "legacy billing cron" not in _index(project) and "Fridays" in _index(project)
    assert "legacy billing cron" not in api.build_recall()


def test_organize_reports_and_removes_lines_of_archived_memories(project, interrupted):
    api.remember("the legacy billing cron runs at midnight UTC", type="project")
    api.remember("we deploy on Fridays", type="project")
    interrupted(lambda: forget("legacy billing cron", project_root=project))
    report = organize(project_root=project)
    assert any("already archived or superseded" in n for n in report.notices), report.notices
    assert not any(f.hand_written for f in report.folders), "a dead line is not a hand-written one"
    applied = organize(apply=True, project_root=project)
    assert any("already archived or superseded" in a for a in applied.applied), applied.applied
    assert "legacy billing cron" not in _index(project) and "Fridays" in _index(project)


def test_a_save_killed_before_its_index_write_is_listed_by_the_retry(project, interrupted):
    interrupted(lambda: api.remember("the gamma batch job runs nightly at two", type="project"))
    assert "gamma" not in (_index(project) if (project / ".agents/memory/MEMORY.md").exists() else "")
    again = api.remember("the gamma batch job runs nightly at two", type="project")
    assert again.status == "duplicate"
    assert "gamma batch job" in _index(project)
    assert "gamma batch job" in api.build_recall()


def test_a_killed_save_into_an_existing_index_is_added_back_by_the_retry(project, interrupted):
    api.remember("we deploy on Fridays", type="project")
    interrupted(lambda: api.remember("the gamma batch job runs nightly at two", type="project"))
    assert "gamma" not in _index(project)
    again = api.remember("the gamma batch job runs nightly at two", type="project")
    assert again.status == "duplicate" and any("added back" in w for w in again.warnings), again.warnings
    assert "gamma batch job" in _index(project) and "Fridays" in _index(project)


def test_temporary_files_a_killed_writer_left_in_the_archive_are_removed(project, kioku):
    api.remember("we deploy on Fridays", type="project")
    archive = project / ".agents" / "memory" / "archive"
    archive.mkdir(exist_ok=True)
    leftover = archive / ".project-conventions.md.0123456789ab.tmp"
    leftover.write_text("half a file")
    assert "temporary file" in kioku("doctor").stdout
    api.remember("we use bun for installs", type="project")
    assert not leftover.exists()


def test_a_killed_superseding_save_retried_leaves_no_line_of_the_old_memory(project, interrupted):
    api.remember("we use yarn for installs", type="project")
    interrupted(lambda: api.remember("we switched from yarn to pnpm for installs", type="project"))
    api.remember("we switched from yarn to pnpm for installs", type="project")
    index = _index(project)
    assert "pnpm" in index and "we use yarn for installs" not in index
    assert "we use yarn for installs" not in api.build_recall()


def test_a_forget_by_id_killed_before_its_index_write_is_finished_by_a_retry(project, interrupted):
    saved = api.remember("the legacy billing cron runs at midnight UTC", type="project")
    interrupted(lambda: forget(id=saved.id, project_root=project))
    result = forget(id=saved.id, project_root=project)
    assert "legacy billing cron" in result.summary and "legacy billing cron" not in _index(project)


def test_forget_matches_whole_words(project):
    api.remember("we use pnpm for installs", type="project")
    with pytest.raises(Exception, match="no memory matches"):
        forget("npm", project_root=project)
    assert "pnpm" in _index(project)
    assert "pnpm" in forget("pnpm", project_root=project).summary
