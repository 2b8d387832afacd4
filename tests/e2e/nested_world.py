"""The world a nested ``claude -p`` run of Kioku's is tested in: the pinned binary, a marker hook on
every event in the user's settings.json (so any hook that fires inside the run leaves a line), no
login of the machine's own, no worker spawned, and a model timeout the mock can meet."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_e2e_claude import find_claude

from kioku.infra import paths

EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "SessionEnd", "PreToolUse")


def nested_claude_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Set the world up; returns ``fired`` (the marker hooks' log), ``claude_dir`` and ``tmp``."""
    binary = find_claude()
    if not binary and "KIOKU_CLAUDE_BIN" not in os.environ:
        pytest.skip("no Claude Code binary: set KIOKU_CLAUDE_BIN (bash scripts/test.sh installs it into .cache/)")
    assert binary, f"KIOKU_CLAUDE_BIN={os.environ['KIOKU_CLAUDE_BIN']} does not exist"
    claude_dir = paths.claude_dir()
    claude_dir.mkdir(parents=True, exist_ok=True)
    fired = tmp_path / "hooks-fired.log"
    marker = {event: [{"hooks": [{"type": "command", "command": f"echo {event} >> '{fired}'", "timeout": 5}]}]
              for event in EVENTS}
    (claude_dir / "settings.json").write_text(json.dumps({"hooks": marker}), encoding="utf-8")
    for key in [k for k in os.environ if k.startswith(("ANTHROPIC_", "CLAUDE_CODE"))]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("KIOKU_MODEL_BACKEND", "claude")
    monkeypatch.setenv("KIOKU_CLAUDE_BIN", binary)
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("DISABLE_TELEMETRY", "1")
    config = paths.kioku_home() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[model]\ntimeout_s = 60\n", encoding="utf-8")
    return {"fired": fired, "claude_dir": claude_dir, "tmp": tmp_path}
