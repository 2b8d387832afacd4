"""What every tool call of one ``kioku mcp`` process shares: the project and the session.

The project is fixed when the server starts (``--project``, else the folder Claude Code runs
in, ``CLAUDE_PROJECT_DIR``, else the working directory; each through its git root). The session
id is Claude Code's (``CLAUDE_CODE_SESSION_ID``, set for the MCP servers it starts); other
clients have none, and then nothing is recorded in a session ledger.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kioku.infra import paths

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"


@dataclass(frozen=True)
class Reply:
    """A tool's answer: text for the model, and whether it reports a failure."""

    text: str
    is_error: bool = False


@dataclass(frozen=True)
class Context:
    project_root: Path
    session_id: str = ""

    @classmethod
    def from_environment(cls, project: str | None = None) -> Context:
        start = project or os.environ.get("CLAUDE_PROJECT_DIR") or None
        if start and not os.path.isdir(start) and not project:
            start = None  # a stale variable from a shell: the working directory decides
        return cls(paths.find_project_root(start), os.environ.get(SESSION_ENV, "").strip())

    def main_agent(self) -> str:
        """The project's main agent (``main`` unless the config names another; a broken config
        file falls back to ``main``, as the hooks do)."""
        from kioku.infra.config import ConfigError, load_config

        try:
            return load_config(self.project_root).main_agent
        except ConfigError:
            return "main"
