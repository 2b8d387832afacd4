"""An agent's quality criteria, from the Memory Configuration section of its agent file.

``load_criteria(agent, project_root)`` reads ``.claude/agents/<agent>.md`` (the project's first,
then the user's Claude folder; a file whose frontmatter ``name`` matches is found too) and
returns the criteria with their weights, ``None`` when the agent has no section;
``load_section`` gives the whole section (criteria and insight categories).
"""

from __future__ import annotations

from pathlib import Path

from kioku.infra import paths
from kioku.render.section import parse_section
from kioku.render.spec import SectionConfig
from kioku.render.splice import frontmatter_name


def find_agent_file(agent: str, project_root: Path | None = None) -> Path | None:
    root = project_root or paths.find_project_root()
    for base in (root / ".claude" / "agents", paths.claude_dir() / "agents"):
        direct = base / f"{agent}.md"
        if direct.is_file():
            return direct
        if base.is_dir():
            for candidate in sorted(base.rglob("*.md")):
                try:
                    head = candidate.read_text(encoding="utf-8", errors="replace")[:2000]
                except OSError:
                    continue
                if frontmatter_name(head) == agent:
                    return candidate
    return None


def load_section(agent: str, project_root: Path | None = None) -> SectionConfig | None:
    """The agent's Memory Configuration (criteria and insight categories), None without one."""
    path = find_agent_file(agent, project_root)
    if path is None:
        return None
    try:
        return parse_section(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


def load_criteria(agent: str, project_root: Path | None = None) -> dict[str, int] | None:
    config = load_section(agent, project_root)
    return dict(config.criteria) if config and config.criteria else None
