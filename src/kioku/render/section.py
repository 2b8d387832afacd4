"""Render an agent's "Memory Configuration" section, and read it back.

- ``render_section(name, criteria, categories, project_learning)`` → the Markdown section
  (``templates/agent_section.md.j2``), validated first: bad input raises ``UsageError``.
- ``parse_section(agent_md_text)`` → ``SectionConfig`` or ``None``: the evaluator calls it on an
  agent file, so the criteria and weights it scores with are exactly the ones the agent reads.
  It reads the managed block (or, failing that, a hand-copied section under the same heading)
  and never raises on odd input; it does not import jinja2.

The parsed parts are the visible ones: the "Agent: `name` | Project learning: **on**" line, the
criteria table and the categories table. The template and this parser change together (the
round-trip and golden tests hold them to that).
"""

from __future__ import annotations

import re
from typing import Any

from kioku.lessons.store.names import KINDS, collection_name
from kioku.infra import paths
from kioku.render.spec import SectionConfig, category_scope, make_config
from kioku.render.splice import find_block, frontmatter_name

HEADING = "## Memory Configuration (uses agent-memory-skills)"
HOLDS = {
    "improvements": "learned improvements (lessons, patterns) with usage statistics",
    "evaluations": "self-evaluations of finished tasks",
    "performance": "performance snapshots (success rate, quality trend)",
}
KIOKU_FALLBACK = "~/.claude/kioku/bin/kioku"

_AGENT_LINE = re.compile(r"^Agent: `([^`]+)`\s*\|\s*Project learning: \*\*(on|off)\*\*\s*$", re.M)
_CRITERION_ROW = re.compile(r"^\|\s*(?P<name>[^|`]+?)\s*\|\s*(?P<weight>\d+)\s*%?\s*\|\s*$")
_CATEGORY_ROW = re.compile(
    r"^\|\s*`(?P<key>[a-z][a-z0-9_]*)`\s*\|\s*(?P<desc>[^|]+?)\s*\|\s*(?P<scope>[a-z]+)\s*\|\s*$"
)


def collection_names(name: str, project_id: str | None = None) -> dict[str, str]:
    """kind → collection name, exactly as the store names them."""
    return {kind: collection_name(name, kind, project_id) for kind in KINDS}


def section_context(config: SectionConfig, project_id: str | None = None,
                    kioku: str = "kioku") -> dict[str, Any]:
    """Everything the template needs, computed here so the template stays declarative."""
    if config.project_learning and project_id is None:
        project_id = paths.project_identity()
    collections = [
        {"scope": "global", "name": collection, "holds": HOLDS[kind]}
        for kind, collection in collection_names(config.name).items()
    ]
    if config.project_learning:
        collections += [
            {"scope": "project", "name": collection, "holds": HOLDS[kind]}
            for kind, collection in collection_names(config.name, project_id).items()
        ]
    return {
        "name": config.name,
        "criteria": config.criteria,
        "categories": config.categories,
        "scopes": {key: category_scope(key) for key in config.categories},
        "project_learning": config.project_learning,
        "project_id": project_id if config.project_learning else "",
        "collections": collections,
        "example_category": next(iter(config.categories)),
        "kioku": kioku,
        "kioku_fallback": KIOKU_FALLBACK,
    }


def render_config(config: SectionConfig, *, project_id: str | None = None,
                  kioku: str = "kioku") -> str:
    from kioku.render.templating import SECTION_TEMPLATE, render_template

    text = render_template(SECTION_TEMPLATE, section_context(config, project_id, kioku))
    return text if text.endswith("\n") else text + "\n"


def render_section(name: str, criteria: dict[str, int], categories: dict[str, str],
                   project_learning: bool, *, project_id: str | None = None,
                   kioku: str = "kioku") -> str:
    """The Markdown section for agent ``name`` (``UsageError`` on invalid input).

    ``project_id`` defaults to ``kioku.infra.paths.project_identity()`` of the current project
    when project learning is on; tests pass a fixed one.
    """
    config = make_config(name, criteria, categories, project_learning)
    return render_config(config, project_id=project_id, kioku=kioku)


def _section_body(text: str) -> str | None:
    try:
        span = find_block(text)
    except Exception:  # damaged markers: fall back to the heading, never fail the evaluator
        span = None
    if span is not None:
        return text[span[0]:span[1]]
    start = text.find(HEADING)
    if start < 0:
        return None
    rest = text[start + len(HEADING):]
    following = re.search(r"^## ", rest, re.M)
    return HEADING + (rest[: following.start()] if following else rest)


def _subsection(body: str, title: str) -> list[str]:
    match = re.search(rf"^### {re.escape(title)}\s*$", body, re.M)
    if not match:
        return []
    rest = body[match.end():]
    following = re.search(r"^#{1,3} ", rest, re.M)
    return (rest[: following.start()] if following else rest).splitlines()


def parse_section(agent_md_text: str) -> SectionConfig | None:
    """The memory configuration in an agent file, or None if it has none (or no criteria)."""
    if not isinstance(agent_md_text, str):
        return None
    text = agent_md_text.replace("\r\n", "\n")
    body = _section_body(text)
    if body is None:
        return None
    criteria: dict[str, int] = {}
    for line in _subsection(body, "Quality criteria"):
        row = _CRITERION_ROW.match(line.strip())
        if row and row.group("name") != "Criterion":
            criteria[row.group("name")] = int(row.group("weight"))
    categories: dict[str, str] = {}
    for line in _subsection(body, "Insight categories"):
        row = _CATEGORY_ROW.match(line.strip())
        if row:
            categories[row.group("key")] = row.group("desc")
    if not criteria:
        return None
    agent_line = _AGENT_LINE.search(body)
    name = agent_line.group(1) if agent_line else (frontmatter_name(text) or "")
    project_learning = bool(agent_line and agent_line.group(2) == "on")
    return SectionConfig(name=name, criteria=criteria, categories=categories,
                         project_learning=project_learning)
