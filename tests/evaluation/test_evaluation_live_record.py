"""Re-record the transcripts with the real Claude Code binary and evaluate the fresh files.

Guards against the stored fixtures drifting from what the pinned binary writes today.
Skipped when the binary is not available (``scripts/test.sh`` sets KIOKU_CLAUDE_BIN).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.core import transcript as tr
from kioku.evaluation.api import evaluate_transcript

BIN = os.environ.get("KIOKU_CLAUDE_BIN", "")
RECORDER = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "record.py"

pytestmark = [pytest.mark.e2e, pytest.mark.slow,
              pytest.mark.skipif(not BIN or not Path(BIN).is_file(), reason="KIOKU_CLAUDE_BIN not set")]


def test_fresh_recordings_evaluate_like_the_fixtures(tmp_path: Path, transcripts: Path) -> None:
    out = tmp_path / "fresh"
    env = {**os.environ, "KIOKU_CLAUDE_BIN": BIN}
    run = subprocess.run([sys.executable, str(RECORDER), "bash_fail_then_success", "subagent", "--out", str(out)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    fresh = evaluate_transcript(out / "bash_fail_then_success.jsonl", "main")
    stored = evaluate_transcript(transcripts / "bash_fail_then_success.jsonl", "main")
    for field in ("success", "tool_errors", "retries", "tool_calls", "tokens", "feedback"):
        assert getattr(fresh, field) == getattr(stored, field), field
    assert [i.lesson for i in fresh.insights] == [i.lesson for i in stored.insights]
    sub = tr.parse(tr.read_from(out / "subagent.agent-1.jsonl")[0])
    assert sub.is_sidechain and [c.input.get("command") for c in sub.tool_calls] == ["cat README.md"]
    # sanitised: the recorder's temporary home/project paths do not leak into the files
    for path in out.glob("*.jsonl"):
        text = path.read_text(encoding="utf-8")
        assert "kioku-rec-" not in text and "/home/user/project" in text
