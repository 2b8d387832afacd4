"""kioku.cli.evaluate: `kioku eval transcript`, and the spelling scripts used with `kioku evaluate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kioku.cli.main import main

TRANSCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "plain_success.jsonl"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_transcript_takes_the_path_and_the_main_agent_by_default(project: Path, capsys) -> None:
    code, out, err = _run(capsys, "eval", "transcript", str(TRANSCRIPT), "--json", "--no-store")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["stored"] == 0 and [t["outcome"] for t in data["turns"]] == ["success"]
    code, out, _ = _run(capsys, "eval", "transcript", str(TRANSCRIPT))
    assert code == 0 and "stored 1 turn record(s)" in out
    code, out, _ = _run(capsys, "dashboard", "--json")
    assert json.loads(out)["total_evaluations"] == 1  # stored for main


def test_the_old_spelling_gives_the_same_evaluation(project: Path, capsys) -> None:
    new = _run(capsys, "eval", "transcript", str(TRANSCRIPT), "--json", "--no-store")
    old = _run(capsys, "eval", "transcript", "--transcript", str(TRANSCRIPT), "--json", "--no-store")
    assert old == new
    code, out, err = _run(capsys, "eval", "transcript", str(TRANSCRIPT), "--per-turn", "--json", "--no-store")
    assert (code, out) == new[:2]
    assert err == "kioku: warning: --per-turn changes nothing (every evaluation is per turn); leave it out\n"


def test_eval_transcript_needs_one_transcript(project: Path, capsys) -> None:
    code, _, err = _run(capsys, "eval", "transcript")
    assert code == 2 and "needs the transcript" in err
    code, _, err = _run(capsys, "eval", "transcript", str(TRANSCRIPT), "--transcript", str(TRANSCRIPT))
    assert code == 2 and "give the transcript once" in err
    code, out, err = _run(capsys, "eval", "transcript", str(project / "nope.jsonl"), "--json")
    assert code == 2 and "transcript not found" in err and json.loads(out)["exit_code"] == 2
