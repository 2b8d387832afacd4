"""The learning-loop simulation runs the real code, reports its ceilings and leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_simulation_reports_both_ceilings_and_removes_its_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = tmp_path / "loop.json"
    env = {**os.environ, "TMPDIR": str(scratch)}
    res = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench" / "learning_loop.py"), "--sessions", "12",
         "--helpful", "2", "--harmful", "2", "--neutral", "2", "--seed", "5", "--json", str(out)],
        env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    result = json.loads(out.read_text())
    assert 0.0 < result["eligible_oracle_success_last_100"] <= result["oracle_success"] <= 0.99
    assert result["params"]["sessions"] == 12
    # the temporary store is gone (a third-party library may leave a small marker file of its own)
    assert [p.name for p in scratch.iterdir() if p.is_dir()] == []
