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

from kioku.evaluation import transcript as tr
from kioku.evaluation.lessons import lessons_from_turn
from kioku.evaluation.per_turn import evaluate_path

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
    fresh = evaluate_path(out / "bash_fail_then_success.jsonl")
    stored = evaluate_path(transcripts / "bash_fail_then_success.jsonl")
    assert len(fresh.verdicts) == len(stored.verdicts) == 1
    for field in ("outcome", "agent_errors", "recovered_errors", "retries", "tool_calls", "feedback_on_previous"):
        assert getattr(fresh.verdicts[0], field) == getattr(stored.verdicts[0], field), field
    assert fresh.verdicts[0].tokens.non_cache == stored.verdicts[0].tokens.non_cache
    assert ([lesson.text for lesson in lessons_from_turn(fresh.turns[0])]
            == [lesson.text for lesson in lessons_from_turn(stored.turns[0])])
    sub = tr.parse(tr.read_from(out / "subagent.agent-1.jsonl")[0])
    assert sub.is_sidechain and [c.input.get("command") for c in sub.tool_calls] == ["cat README.md"]
    # sanitised: the recorder's temporary home/project paths do not leak into the files
    for path in out.glob("*.jsonl"):
        text = path.read_text(encoding="utf-8")
        assert "kioku-rec-" not in text and "/home/user/project" in text
