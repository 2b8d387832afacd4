"""kioku.cli.dashboard: `kioku dashboard`, the main agent's unless --agent says otherwise."""

from __future__ import annotations

import json
from pathlib import Path


def test_dashboard_without_agent_is_the_main_agents(project: Path, kioku) -> None:
    out = kioku("dashboard", "--json", cwd=project)
    assert out.returncode == 0 and json.loads(out.stdout)["agent"] == "main"
    text = kioku("dashboard", cwd=project)
    assert text.returncode == 0 and "main" in text.stdout.splitlines()[0]
    assert "agent 'main' has no lessons or evaluations here" in text.stderr


def test_dashboard_html_writes_the_report(project: Path, kioku) -> None:
    out = kioku("dashboard", "--html", str(project / "report.html"), cwd=project)
    assert out.returncode == 0 and out.stdout.startswith("wrote ")
    assert (project / "report.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")
