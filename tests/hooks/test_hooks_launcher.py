"""hooks/kioku_hook.py, the one launcher for every event, run as Claude Code runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hook_helpers import load_hook_input

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "hooks" / "kioku_hook.py"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOKU_", "CLAUDE", "PYTHON"))}
    env.update(HOME=str(home), KIOKU_USER_HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), **extra)
    return env


@pytest.mark.parametrize("args", [[], ["Nope"], ["sessionstart"]])
def test_missing_or_unknown_event_is_a_quiet_no_op(isolated_home: Path, project: Path, args: list[str]) -> None:
    res = subprocess.run([sys.executable, str(LAUNCHER), *args], input=b'{"prompt": "remember x"}',
                         env=_env(isolated_home), cwd=project, capture_output=True, timeout=60)
    assert res.returncode == 0 and res.stdout == b""
    assert not (project / ".agents").exists()


@pytest.mark.slow
def test_plugin_hooks_work_with_a_standard_library_python(isolated_home: Path, project: Path,
                                                         tmp_path: Path) -> None:
    """Before Kioku's environment exists: remember and recall work; evaluations wait in the queue."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = str(bare / "bin" / "python")
    assert subprocess.run([python, "-c", "import yaml"], capture_output=True).returncode != 0
    data = tmp_path / "plugin-data"
    data.mkdir()
    # A failed preparation a moment ago: this test starts no background pip install.
    (data / "prepare-failed.json").write_text(json.dumps({"error": "offline", "time": time.time()}))
    env = _env(isolated_home, CLAUDE_PLUGIN_ROOT=str(REPO), CLAUDE_PLUGIN_DATA=str(data),
               CLAUDE_PROJECT_DIR=str(project))
    claude_dir = isolated_home / ".claude"

    def hook(event: str, fixture: str, **fields: str) -> subprocess.CompletedProcess[bytes]:
        payload = {**load_hook_input(fixture, project, claude_dir, home=isolated_home), **fields}
        return subprocess.run([python, str(LAUNCHER), event], input=json.dumps(payload).encode(), env=env,
                              cwd=project, capture_output=True, timeout=60)

    saved = hook("UserPromptSubmit", "user_prompt_submit", prompt="remember that we always use bun, never npm")
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["hookSpecificOutput"]["additionalContext"].startswith("Saved to memory: ")
    start = hook("SessionStart", "session_start_startup")
    assert "never npm" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    stop = hook("Stop", "stop")
    assert stop.returncode == 0 and stop.stdout == b"", stop.stderr
    jobs = list((claude_dir / "kioku" / "state" / "jobs").glob("*.json"))
    assert len(jobs) == 1  # queued for the environment, no worker started with this python
    time.sleep(1)
    assert list((claude_dir / "kioku" / "state" / "jobs").glob("*.json")) == jobs
    assert not (data / "venv").exists()
