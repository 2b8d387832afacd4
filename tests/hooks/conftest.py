"""Fixtures for hook tests: recorded hook inputs with real temp paths substituted in.

The JSON files in tests/fixtures/hook_inputs/ were recorded from the real Claude Code binary
by tests/fixtures/hook_inputs/record.py and sanitised to placeholders; ``hook_input`` puts
this test's project, Claude folder and ids back in, so field names are never hand-typed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hook_inputs"


def load_hook_input(name: str, project: Path, claude_dir: Path, session_id: str = "sess-0001",
                    agent_id: str = "agent-0001", home: Path | None = None) -> dict[str, Any]:
    text = (FIXTURES / f"{name}.json").read_text(encoding="utf-8")
    subs = {"${PROJECT}": str(project), "${CLAUDE_DIR}": str(claude_dir), "${HOME}": str(home or claude_dir.parent),
            "${SESSION_ID}": session_id, "${AGENT_ID}": agent_id, "${PROMPT_ID}": "prompt-0001",
            "${PROJECT_KEY}": re.sub(r"[^A-Za-z0-9]", "-", str(project)), "${TMP}": str(project.parent)}
    for key, value in subs.items():
        text = text.replace(key, json.dumps(value)[1:-1])
    assert "${" not in text, f"unknown placeholder left in {name}.json"
    return json.loads(text)


@pytest.fixture
def hook_input(project: Path, isolated_home: Path) -> Callable[..., dict[str, Any]]:
    def load(name: str, **changes: Any) -> dict[str, Any]:
        data = load_hook_input(name, project, isolated_home / ".claude", home=isolated_home)
        data.update(changes)
        return data

    return load
