"""kioku.cli.section: `kioku agent-section` as JSON (its text forms: tests/render/test_render_cli.py)."""

from __future__ import annotations

import json
from pathlib import Path


def test_agent_section_json_prints_the_section_or_the_write(project: Path, kioku) -> None:
    printed = kioku("agent-section", "code-finder", "--preset", "code-finder", cwd=project)
    data = kioku("agent-section", "code-finder", "--preset", "code-finder", "--json", cwd=project)
    assert data.returncode == 0 and json.loads(data.stdout) == {"name": "code-finder", "section": printed.stdout}
    target = project / ".claude" / "agents" / "code-finder.md"
    args = ("agent-section", "code-finder", "--preset", "code-finder", "--write", str(target), "--json")
    first, again = kioku(*args, cwd=project), kioku(*args, cwd=project)
    assert json.loads(first.stdout) == {"name": "code-finder", "path": str(target), "changed": True}
    assert json.loads(again.stdout)["changed"] is False and target.is_file()
    refused = kioku("agent-section", "Bad Name", "--preset", "general", "--json", cwd=project)
    assert refused.returncode == 2 and json.loads(refused.stdout)["exit_code"] == 2
