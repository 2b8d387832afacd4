"""``kioku import-auto-memory`` and ``kioku doctor``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from kioku.install import automemory

KEY = "ghp_" + "R8s7T6u5V4w3X2y1Z0a9B8c7D6e5F4g3H2i1"


def _auto_dir(claude: Path, project: Path) -> Path:
    folder = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project)) / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [build.md](build.md): build with bun\n")
    (folder / "build.md").write_text("---\nname: build\ndescription: how to build\ntype: project\n---\n\n"
                                     "We build with bun run build; tests use Vitest on port 3001.\n")
    (folder / "tone.md").write_text("---\nname: tone\ndescription: reply style\ntype: feedback\n"
                                    "modified: 2026-11-01T10:00:00Z\n---\nKeep answers short, no emojis.\n")
    (folder / "token.md").write_text(f"---\nname: token\ntype: reference\n---\nThe deploy token is {KEY}\n")
    return folder


def test_parse_note_reads_type_and_body(tmp_path):
    note = tmp_path / "n.md"
    note.write_text("---\nname: x\ndescription: d\ntype: User\n---\nI am a data engineer.\n")
    parsed = automemory.parse_note(note)
    assert parsed.type == "user" and parsed.text == "I am a data engineer."
    bare = tmp_path / "b.md"
    bare.write_text("no frontmatter here\n")
    assert automemory.parse_note(bare).type is None


def test_import_auto_memory_dry_run_then_import_then_duplicates(kioku, project, isolated_home):
    claude = isolated_home / ".claude"
    folder = _auto_dir(claude, project)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    dry = kioku("import-auto-memory", "--dry-run", cwd=project)
    assert dry.returncode == 0 and "would-import" in dry.stdout and "Dry run" in dry.stdout
    assert not (project / ".agents").exists()
    res = kioku("import-auto-memory", cwd=project)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("skipped ") == 1 and "2 saved, 1 skipped" in res.stdout and KEY not in res.stdout
    index = (project / ".agents" / "memory" / "MEMORY.md").read_text()
    assert "bun" in index and "[project]" in index and "[feedback]" in index
    again = kioku("import-auto-memory", cwd=project)
    assert again.returncode == 0 and "duplicate" in again.stdout
    assert (project / ".agents" / "memory" / "MEMORY.md").read_text() == index
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # auto memory untouched
    for path in [*(project / ".agents").rglob("*"), *(isolated_home / ".agents").rglob("*")]:
        assert not path.is_file() or KEY not in path.read_text(errors="replace")


def test_import_auto_memory_without_folder(kioku, project):
    res = kioku("import-auto-memory", cwd=project)
    assert res.returncode == 0 and "nothing to import" in res.stdout


def test_doctor_reports_install_and_breakage(project, isolated_home):
    repo = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, str(repo / "install.py"), "--reuse-site-packages"],
                          capture_output=True, timeout=300).returncode == 0
    kioku = isolated_home / ".claude" / "kioku" / "bin" / "kioku"
    ok = subprocess.run([str(kioku), "doctor", "--json"], capture_output=True, text=True, cwd=project)
    checks = {c["check"]: c for c in json.loads(ok.stdout)}
    assert ok.returncode == 0, ok.stdout
    assert checks["hook UserPromptSubmit"]["ok"] and checks["dependency chromadb"]["ok"]
    (isolated_home / ".claude" / "kioku" / "hooks" / "kioku_hook.py").unlink()
    bad = subprocess.run([str(kioku), "doctor"], capture_output=True, text=True, cwd=project)
    assert bad.returncode == 1 and "[FAIL] hook Stop" in bad.stdout


def test_a_removed_environment_is_named_by_the_command_and_by_doctor(project, isolated_home):
    repo = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, str(repo / "install.py"), "--reuse-site-packages"],
                          capture_output=True, timeout=300).returncode == 0
    kioku_dir = isolated_home / ".claude" / "kioku"
    (kioku_dir / "venv").rename(kioku_dir / "venv.moved")
    out = subprocess.run([str(kioku_dir / "bin" / "kioku"), "doctor"], capture_output=True, text=True, cwd=project)
    assert out.returncode == 1 and "Python environment" in out.stderr and "install.py again" in out.stderr
    doctor = subprocess.run([sys.executable, "-m", "kioku", "doctor"], capture_output=True, text=True, cwd=project,
                            env={**os.environ, "PYTHONPATH": str(repo / "src")})
    assert "[FAIL] hook interpreter" in doctor.stdout and "[FAIL] hook Stop" in doctor.stdout
    assert "install.py again" in doctor.stdout
