"""SessionStart puts the installed ``kioku`` launcher on PATH through CLAUDE_ENV_FILE."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "hook_inputs" / "session_start_startup.json"


def _layout(base: Path) -> Path:
    kioku_dir = base / "claude dir" / "kioku"  # a space, to check the quoting
    (kioku_dir / "hooks").mkdir(parents=True)
    (kioku_dir / "bin").mkdir()
    shutil.copy(REPO / "hooks" / "kioku_hook.py", kioku_dir / "hooks" / "kioku_hook.py")
    launcher = kioku_dir / "bin" / "kioku"
    launcher.write_text("#!/bin/sh\necho kioku-launcher\n")
    launcher.chmod(0o755)
    return kioku_dir


def _run(hook: Path, env_file: Path | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    env.pop("CLAUDE_ENV_FILE", None)
    if env_file is not None:
        env["CLAUDE_ENV_FILE"] = str(env_file)
    payload = json.loads(FIXTURE.read_text())
    payload["cwd"] = str(cwd)
    return subprocess.run([sys.executable, str(hook), "SessionStart"], input=json.dumps(payload), env=env,
                          capture_output=True, text=True, timeout=60)


def test_session_start_exports_kioku_bin_once(tmp_path: Path, project: Path) -> None:
    kioku_dir = _layout(tmp_path)
    env_file = tmp_path / "session.env"
    for _ in range(2):
        out = _run(kioku_dir / "hooks" / "kioku_hook.py", env_file, project)
        assert out.returncode == 0, out.stderr
    lines = env_file.read_text().splitlines()
    assert lines == [f'export PATH="{kioku_dir / "bin"}:$PATH"']
    # the exported line really puts the launcher on PATH for a shell that sources it
    shell = subprocess.run(["bash", "-c", f'. "{env_file}" && kioku'], capture_output=True, text=True)
    assert shell.stdout.strip() == "kioku-launcher", shell.stderr


def test_no_env_file_or_no_launcher_changes_nothing(tmp_path: Path, project: Path) -> None:
    kioku_dir = _layout(tmp_path)
    assert _run(kioku_dir / "hooks" / "kioku_hook.py", None, project).returncode == 0
    (kioku_dir / "bin" / "kioku").unlink()
    env_file = tmp_path / "session.env"
    assert _run(kioku_dir / "hooks" / "kioku_hook.py", env_file, project).returncode == 0
    assert not env_file.exists()
