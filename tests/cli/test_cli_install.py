"""kioku.cli.install: `kioku doctor` and `kioku import-auto-memory`, in text and as JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

KEY = "ghp_" + "R8s7T6u5V4w3X2y1Z0a9B8c7D6e5F4g3H2i1"


def _auto_memory(home: Path, project: Path) -> Path:
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project)) / "memory"
    folder.mkdir(parents=True)
    (folder / "build.md").write_text("---\nname: build\ntype: project\n---\nWe build with bun run build.\n")
    (folder / "token.md").write_text(f"---\nname: token\ntype: reference\n---\nThe deploy token is {KEY}\n")
    return folder


def test_import_auto_memory_json_lists_each_note(project: Path, isolated_home: Path, kioku) -> None:
    nothing = kioku("import-auto-memory", "--json", cwd=project)
    assert nothing.returncode == 0 and json.loads(nothing.stdout)["notes"] == []
    folder = _auto_memory(isolated_home, project)
    dry = json.loads(kioku("import-auto-memory", "--dry-run", "--json", cwd=project).stdout)
    assert dry["dry_run"] is True and dry["folder"] == str(folder)
    assert {n["file"]: n["status"] for n in dry["notes"]} == {"build.md": "would-import", "token.md": "skipped"}
    out = kioku("import-auto-memory", "--json", cwd=project)
    assert out.returncode == 0 and KEY not in out.stdout
    report = json.loads(out.stdout)
    assert report["counts"] == {"saved": 1, "skipped": 1} and report["dry_run"] is False
    text = kioku("import-auto-memory", cwd=project)
    assert text.stdout.splitlines()[-1] == "1 duplicate, 1 skipped"


def test_doctor_json_is_the_list_of_checks(project: Path, kioku) -> None:
    out = kioku("doctor", "--json", cwd=project)
    checks = json.loads(out.stdout)
    assert checks and all({"check", "ok", "detail", "warning"} <= set(c) for c in checks)
    assert out.returncode == (0 if all(c["ok"] for c in checks) else 1)
