"""``kioku dashboard --agent NAME --html OUT``: one self-contained HTML file for a review or a PR.

The file holds the agent view of the web app (summary figures, lessons with their evidence,
trend charts as inline SVG, latest turns) with its stylesheet inlined. It loads nothing from
anywhere and needs no JavaScript; its own Content-Security-Policy forbids every script, so
text that looks like markup in a lesson or a task could not run even if opened elsewhere.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from kioku.ui import data
from kioku.ui.agent_views import evaluations_section, lessons_section, summary_section, trends_section
from kioku.ui.html import e
from kioku.ui.server import STATIC_DIR
from kioku.infra import clock



def report_csp(css: str) -> str:
    """No scripts at all; the one inline stylesheet is allowed by its hash, nothing else."""
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; form-action 'none'; base-uri 'none'"


def build_report(agent: str, project_root: Path | None = None, evaluations_limit: int = 50) -> str:
    from kioku.lessons.dashboard import build_dashboard

    dashboard = build_dashboard(agent, project_root)
    agent = dashboard["agent"]
    lessons = data.lessons(agent, project_root)
    rows = data.evaluation_rows(agent, project_root, limit=None)
    trend = data.trends(agent, project_root, evaluations=rows, lesson_rows=lessons)
    css = (STATIC_DIR / "app.css").read_text(encoding="utf-8")
    generated = clock.utc_minute() + " UTC"
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta http-equiv="Content-Security-Policy" content="{report_csp(css)}">'
            f"<title>Kioku dashboard: {e(agent)}</title><style>{css}</style></head><body>"
            f'<header><span class="brand">Kioku</span><span>Agent dashboard: {e(agent)}</span></header>'
            f"<main><h1>{e(agent)}</h1><p class=\"generated\">Generated {e(generated)}</p>"
            + summary_section(dashboard) + lessons_section(agent, lessons, None) + trends_section(agent, trend)
            + evaluations_section(agent, rows[:evaluations_limit], total=len(rows)) + "</main></body></html>")


def write_report(agent: str, out: Path, project_root: Path | None = None) -> Path:
    from kioku.infra import fsutil

    html = build_report(agent, project_root)
    out = out.expanduser()
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    fsutil.atomic_write_text(out, html)
    return out
