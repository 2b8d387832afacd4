"""kioku.cli.memory: the everyday commands' options beyond what tests/memory covers (--json)."""

from __future__ import annotations

import json
from pathlib import Path


def test_recall_json_is_the_text_a_session_starts_with(project: Path, kioku) -> None:
    assert kioku("remember", "We use pnpm, never npm", cwd=project).returncode == 0
    text = kioku("recall", cwd=project)
    data = kioku("recall", "--json", cwd=project)
    assert data.returncode == 0 and json.loads(data.stdout) == {"text": text.stdout.rstrip("\n")}
    assert "<kioku-memory>" not in data.stdout  # the fence is escaped inside JSON strings, same data


def test_forget_json_reports_the_archived_memory(project: Path, kioku) -> None:
    assert kioku("remember", "Release notes live in docs/releases", "--type", "reference", cwd=project).returncode == 0
    out = kioku("forget", "release notes", "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["summary"] == "Release notes live in docs/releases" and report["scope"] == "project"
    assert Path(report["archive_file"]).is_file() and report["id"]
    missing = kioku("forget", "release notes", "--json", cwd=project)
    assert missing.returncode != 0 and json.loads(missing.stdout)["exit_code"] == missing.returncode
