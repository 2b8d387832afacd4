"""Helpers for hook and install tests (imported by tests/hooks/conftest.py and test modules)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hook_inputs"
REPO_ROOT = Path(__file__).resolve().parents[2]


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



def install_for_tests(claude_dir: Path, home: Path, *extra: str) -> None:
    """Run the real install.py into ``claude_dir`` (dev option: venv reuses our site-packages)."""
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude_dir),
           "KIOKU_USER_HOME": str(home)}
    env.pop("KIOKU_HOME", None)
    res = subprocess.run([sys.executable, str(REPO_ROOT / "install.py"), "--reuse-site-packages", *extra],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
