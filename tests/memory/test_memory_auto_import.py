"""``kioku import-auto-memory``: each note goes through exactly the checks of ``kioku remember``
on its own text (code and over-long notes are refused with the reason, never cut or collapsed),
links and non-regular files are skipped with a one-line reason, and ``--dry-run`` reports the
same refusals while writing nothing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from memtest_fixtures import pmem  # noqa: F401

CODE = "\n".join(f"    total_{i} = compute({i})" for i in range(20))
LONG = "The staging cluster runbook covers restarts, failovers and the on-call rota. " * 40  # ~3,000 chars


def _auto_dir(home: Path, project: Path) -> Path:
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project)) / "memory"
    folder.mkdir(parents=True)
    return folder


def _note(folder: Path, name: str, body: str, type_: str = "project") -> Path:
    path = folder / name
    path.write_text(f"---\nname: {name[:-3]}\ndescription: a note\ntype: {type_}\n---\n\n{body}\n", encoding="utf-8")
    return path


def _lines(stdout: str) -> dict[str, str]:
    """file name -> its outcome line."""
    out = {}
    for line in stdout.splitlines():
        match = re.match(r"^\S+\s+(\S+\.md): ", line)
        if match:
            out[match.group(1)] = line
    return out


def _memory_text(project: Path, home: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for root in (project, home) for p in (root / ".agents").rglob("*") if p.is_file())


def test_code_and_long_notes_are_refused_with_the_remember_reason_never_cut(project, isolated_home, kioku):
    folder = _auto_dir(isolated_home, project)
    _note(folder, "build.md", f"How the build computes totals:\n```python\n{CODE}\n```")
    _note(folder, "runbook.md", LONG.strip(), type_="reference")
    _note(folder, "tools.md", "We build with bun.\nTests use Vitest on port 3001.")
    for args in (("--dry-run",), ()):
        out = kioku("import-auto-memory", *args, cwd=project)
        assert out.returncode == 0, out.stderr
        lines = _lines(out.stdout)
        assert lines["build.md"].startswith("skipped") and "long code" in lines["build.md"]
        assert lines["runbook.md"].startswith("skipped")
        assert f"{len(LONG.strip())} characters is too long" in lines["runbook.md"]
    # the same words `kioku remember` uses for the same text
    for name, body in (("build.md", f"How the build computes totals:\n```python\n{CODE}\n```"),
                       ("runbook.md", LONG.strip())):
        refused = kioku("remember", "-", input=body, cwd=project)
        assert refused.returncode != 0
        assert refused.stderr.strip().removeprefix("kioku: error: ") in lines[name]
    stored = _memory_text(project, isolated_home)
    assert "compute(" not in stored and "on-call rota" not in stored
    assert "We build with bun.\nTests use Vitest on port 3001." in stored  # line breaks kept


def test_dry_run_reports_the_same_refusals_and_writes_nothing(project, isolated_home, kioku):
    folder = _auto_dir(isolated_home, project)
    _note(folder, "build.md", f"```\n{CODE}\n```")
    _note(folder, "tone.md", "Keep answers short, no emojis.", type_="feedback")
    dry = kioku("import-auto-memory", "--dry-run", cwd=project)
    assert dry.returncode == 0 and "Dry run: 1 skipped, 1 would-import" in dry.stdout
    assert not (project / ".agents").exists()
    real = kioku("import-auto-memory", cwd=project)
    assert "1 saved, 1 skipped" in real.stdout
    assert _lines(dry.stdout)["build.md"] == _lines(real.stdout)["build.md"]


def test_symlinked_note_is_skipped_with_a_reason_and_its_target_never_read(project, isolated_home, tmp_path, kioku):
    folder = _auto_dir(isolated_home, project)
    outside = tmp_path / "outside.md"
    outside.write_text("---\ntype: project\n---\nOutside fact that must never be imported\n", encoding="utf-8")
    (folder / "linked.md").symlink_to(outside)
    _note(folder, "tools.md", "We build with bun.")
    for args in (("--dry-run",), ()):
        out = kioku("import-auto-memory", *args, cwd=project)
        assert out.returncode == 0, out.stderr
        line = _lines(out.stdout)["linked.md"]
        assert line.startswith("skipped") and "symbolic link" in line and str(outside) in line
    assert "Outside fact" not in _memory_text(project, isolated_home)
    assert "We build with bun." in _memory_text(project, isolated_home)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_note_is_skipped_without_blocking(project, isolated_home, kioku):
    folder = _auto_dir(isolated_home, project)
    os.mkfifo(folder / "pipe.md")
    _note(folder, "tools.md", "We build with bun.")
    for args in (("--dry-run",), ()):
        out = kioku("import-auto-memory", *args, cwd=project, timeout=60)  # a blocking open would hang here
        assert out.returncode == 0, out.stderr
        line = _lines(out.stdout)["pipe.md"]
        assert line.startswith("skipped") and "not a regular file" in line
    assert "We build with bun." in _memory_text(project, isolated_home)
