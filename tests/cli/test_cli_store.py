"""kioku.cli.store: `kioku store sync` and `kioku store rebuild`, in text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kioku.cli.main import main


@pytest.fixture
def learned(project: Path, isolated_home: Path, capsys) -> Path:
    assert main(["lessons", "learn", "Run the linter before committing", "--category", "code_quality",
                 "--confidence", "0.9", "--scope", "global"]) == 0
    capsys.readouterr()
    return isolated_home / ".claude" / "chroma_data"


def test_sync_json_reports_what_was_applied_and_verified(learned: Path, capsys) -> None:
    assert main(["store", "sync", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"applied": 0}
    assert main(["store", "sync", "--verify", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verified"]["global"] == {"checked": 1, "indexed_again": 0, "not_reached": 0}
    assert main(["store", "sync", "--verify"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "applied 0 pending journal entries", "global: 1 record(s) checked; vector search reached all of them"]


def test_rebuild_json_reports_each_scope(learned: Path, capsys) -> None:
    assert main(["store", "rebuild", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scopes"]["project"] == {"done": "nothing", "why": "no store"}
    assert report["scopes"]["global"]["done"] == "rebuilt from the journal"
    assert report["scopes"]["global"]["replayed"] >= 1 and Path(report["scopes"]["global"]["moved_aside"]).is_dir()


def test_a_refused_rebuild_with_json_keeps_the_report_beside_the_error(learned: Path, capsys) -> None:
    journal = learned.parent / "chroma_data.kioku-journal" / "journal.jsonl"
    journal.write_bytes(journal.read_bytes() + b"this line was overwritten\n")
    assert main(["store", "rebuild", "--scope", "global", "--json"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["exit_code"] == 1 and report["error"].startswith("global: not rebuilt: ")
    assert "`kioku store rebuild --scope global --from-store`" in report["error"]
    assert report["scopes"] == {} and err.startswith("kioku: error: global: not rebuilt")
    assert main(["store", "rebuild", "--scope", "global"]) == 1  # the same refusal in text
    assert capsys.readouterr().out == ""
