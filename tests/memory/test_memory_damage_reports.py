"""Damage is reported, not hidden: doctor names a symlinked memory folder, a MEMORY.md with
invalid UTF-8, leftover temp files and an agent store that differs from its journal; organize
does not call a half-empty index "full" after a mid-line cut."""

from __future__ import annotations

from pathlib import Path

from kioku.install.doctor import run_checks
from kioku.memory import api
from kioku.memory.organize import organize


def _checks(project: Path) -> dict[str, dict]:
    return {c["check"]: c for c in run_checks(project)}


def test_doctor_reports_invalid_utf8_index(project):
    for i in range(3):
        api.remember(f"fact number {i} about the build system")
    index = project / ".agents" / "memory" / "MEMORY.md"
    data = index.read_bytes()
    index.write_bytes(data[: data.rfind("→".encode()) + 1])  # cut inside "→"
    check = _checks(project)["project memory encoding"]
    assert not check["ok"] and "MEMORY.md" in check["detail"] and "UTF-8" in check["detail"]


def test_doctor_reports_a_symlinked_memory_folder(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".agents").mkdir()
    (project / ".agents" / "memory").symlink_to(outside, target_is_directory=True)
    check = _checks(project)["project memory links"]
    assert not check["ok"] and "symbolic link" in check["detail"] and "memory" in check["detail"]


def test_doctor_reports_orphan_temp_files(project):
    api.remember("We use bun for installs")
    (project / ".agents" / "memory" / ".project-conventions.md.0123456789ab.tmp").write_text("x")
    check = _checks(project)["project memory temp files"]
    assert check["warning"] and ".project-conventions.md.0123456789ab.tmp" in check["detail"]


def test_organize_after_a_mid_line_cut_is_not_full(project):
    for i in range(15):
        api.remember(f"fact number {i} about the build system")
    index = project / ".agents" / "memory" / "MEMORY.md"
    data = index.read_bytes()
    index.write_bytes(data[: data.rfind("→".encode()) - 5])  # last line cut in the middle
    folder = next(f for f in organize().folders if f.scope == "project")
    assert folder.index_lines < 50 and folder.unindexed == 1
    assert folder.status == "unindexed"
    folder = next(f for f in organize(repair=True).folders if f.scope == "project")
    assert folder.status == "ok" and folder.unindexed == 0


def test_doctor_reports_a_damaged_and_a_too_large_topic_file(project):
    from kioku.memory.topics import MAX_TOPIC_BYTES

    api.remember("the staging database runs on port 5433", type="project")
    memory = project / ".agents" / "memory"
    [topic] = [p for p in memory.glob("*.md") if p.name != "MEMORY.md"]
    topic.write_text(topic.read_text().replace("description:", "description: [broken", 1))
    (memory / "huge-notes.md").write_text("---\ntype: project\n---\n\n" + "x" * (MAX_TOPIC_BYTES + 10))
    checks = _checks(project)
    damaged = checks["project memory topic files"]
    assert not damaged["ok"] and topic.name in damaged["detail"] and "organize --repair" in damaged["detail"]
    large = checks["project memory topic size"]
    assert large["ok"] and large["warning"] and "huge-notes.md" in large["detail"]


def test_doctor_names_where_a_secret_was_written_by_hand_never_the_secret(project):
    api.remember("We deploy on Fridays")
    value = "Xk9#mP2$" + "qL7!vR4@"
    index = project / ".agents" / "memory" / "MEMORY.md"
    index.write_text(index.read_text() + f"- The admin password is\n  {value}\n")
    checks = _checks(project)
    found = checks["project memory secrets"]
    assert not found["ok"] and "MEMORY.md:" in found["detail"] and "password" in found["detail"]
    assert value not in found["detail"]
    index.write_text(index.read_text().replace(f"- The admin password is\n  {value}\n", ""))
    assert "project memory secrets" not in _checks(project)


def test_doctor_warns_about_an_onnxruntime_usage_event_store(project, isolated_home):
    assert "onnxruntime usage events" not in _checks(project)
    (isolated_home / ".cache" / "Microsoft" / "DeveloperTools" / ".onnxruntime").mkdir(parents=True)
    check = _checks(project)["onnxruntime usage events"]
    assert check["warning"] and "upload" in check["detail"]


def test_doctor_reports_a_broken_config_instead_of_stopping(project):
    from kioku.infra import paths

    paths.global_chroma_dir().mkdir(parents=True)  # an agent store to check
    (project / ".agents").mkdir(exist_ok=True)
    (project / ".agents" / "kioku.toml").write_text('disabled = "maybe"\n')
    checks = _checks(project)
    assert not checks["config"]["ok"] and "disabled must be true or false" in checks["config"]["detail"]
    assert "not checked" in checks["agent store (global)"]["detail"]
    assert "hook jobs" in checks  # the checks after it still ran


def test_a_file_in_place_of_the_memory_folder_is_named_by_save_and_doctor(project, kioku):
    (project / ".agents").mkdir(exist_ok=True)
    (project / ".agents" / "memory").write_text("not a folder")
    out = kioku("remember", "We use pnpm")
    assert out.returncode != 0 and "is a file where the memory folder should be" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "File exists" not in out.stderr
    checks = _checks(project)
    assert not checks["project memory"]["ok"] and not checks["project memory folder"]["ok"]
