"""A topic file renamed by hand: its memories are found once, forget takes a memory's old index
line with it, and `organize --repair` points the old lines at the new file."""

from __future__ import annotations

from memtest_fixtures import pmem  # noqa: F401
from kioku.memory import api


def _rename(pmem) -> None:
    (pmem / "infrastructure-notes.md").rename(pmem / "infra.md")


def _save(project) -> None:
    api.remember("The staging server needs the VPN to be connected", type="project", topic="infrastructure-notes")
    api.remember("Prod deploys need two approvals", type="project", topic="infrastructure-notes")


def test_renamed_topic_file_memories_are_found_once(project, pmem):
    _save(project)
    _rename(pmem)
    hits = api.search("staging server VPN", dense=False)
    assert len(hits) == 1 and hits[0].file.endswith("infra.md")
    assert "infrastructure-notes.md" in hits[0].context  # the old line, as context


def test_forget_takes_the_old_line_of_a_renamed_file_too(project, pmem, kioku):
    _save(project)
    _rename(pmem)
    out = kioku("forget", "staging server needs the VPN")
    assert out.returncode == 0, out.stderr
    assert "staging" not in (pmem / "MEMORY.md").read_text(encoding="utf-8").lower()
    assert "staging" not in kioku("recall").stdout.lower()
    assert "Prod deploys need two approvals" in kioku("recall").stdout


def test_organize_names_the_renamed_file_and_repair_points_the_lines_there(project, pmem, kioku):
    _save(project)
    _rename(pmem)
    report = kioku("organize")
    assert "their memories are in infra.md (renamed?)" in report.stdout
    repaired = kioku("organize", "--repair")
    assert repaired.returncode == 0, repaired.stderr
    index = (pmem / "MEMORY.md").read_text(encoding="utf-8")
    assert index.count("→ infra.md") == 2 and "infrastructure-notes.md" not in index
    assert "Nothing to organize" in kioku("organize").stdout


def test_a_line_whose_wording_two_files_hold_is_not_guessed(project, pmem, kioku):
    _save(project)
    _rename(pmem)
    (pmem / "other.md").write_text((pmem / "infra.md").read_text(encoding="utf-8").replace("id=", "id=9"),
                                   encoding="utf-8")
    assert kioku("organize", "--repair").returncode == 0
    assert "infrastructure-notes.md" in (pmem / "MEMORY.md").read_text(encoding="utf-8")  # kept as a note
