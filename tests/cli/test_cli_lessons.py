"""kioku.cli.lessons: the `kioku lessons` verbs, their default agent and their JSON reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kioku.cli.main import main

LESSON = "Check the CI log before re-running a failed job"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _learn(capsys, *extra: str) -> str:
    code, out, err = _run(capsys, "lessons", "learn", LESSON, "--category", "testing_patterns",
                          "--confidence", "0.8", "--json", *extra)
    assert code == 0, err
    [lesson] = json.loads(out)["ids"]
    return lesson


def test_without_agent_the_lessons_are_the_main_sessions(project: Path, capsys) -> None:
    lesson = _learn(capsys)
    code, out, _ = _run(capsys, "lessons", "search", "re-run a failed CI job", "--json")
    assert code == 0 and [hit["id"] for hit in json.loads(out)] == [lesson]
    code, out, _ = _run(capsys, "lessons", "search", "--agent", "main", "re-run a failed CI job", "--json")
    assert [hit["id"] for hit in json.loads(out)] == [lesson]
    code, out, _ = _run(capsys, "dashboard", "--json")
    assert json.loads(out)["total_improvements"] == 1
    code, out, _ = _run(capsys, "lessons", "search", "--agent", "builder", "re-run a failed CI job", "--json")
    assert json.loads(out) == []


def test_a_deprecated_lesson_learned_again_names_the_new_restore_command(project: Path, capsys) -> None:
    from kioku.lessons.lesson_state import set_deprecated

    lesson = _learn(capsys)
    set_deprecated("main", lesson, True, project, reason="hurt in tests")
    code, out, _ = _run(capsys, "lessons", "learn", LESSON, "--category", "testing_patterns", "--confidence", "0.8")
    assert code == 0 and f"`kioku lessons restore --agent main {lesson}`" in out


def test_restore_json_reports_the_state_it_returned_to(project: Path, capsys) -> None:
    from kioku.lessons.lesson_state import set_deprecated

    lesson = _learn(capsys)
    set_deprecated("main", lesson, True, project, reason="hurt in tests")
    code, out, _ = _run(capsys, "lessons", "restore", lesson, "--json")
    assert code == 0 and json.loads(out) == {"id": lesson, "state": "active"}
    code, out, err = _run(capsys, "lessons", "restore", lesson, "--json")
    assert code == 1 and json.loads(out)["exit_code"] == 1 and err.startswith("kioku: error: ")


def test_clone_and_import_json_report_their_counts(project: Path, capsys) -> None:
    _learn(capsys)
    code, out, _ = _run(capsys, "lessons", "clone", "--to", "twin", "--json")
    assert code == 0
    cloned = json.loads(out)
    assert cloned["from"] == "main" and cloned["to"] == "twin" and cloned["copied"]["global.improvements"] == 1
    export = project / "main.json"
    code, out, _ = _run(capsys, "lessons", "export", "--out", str(export), "--json")
    assert code == 0 and json.loads(out) == {"agent": "main", "format": "json", "out": str(export)}
    assert json.loads(export.read_text())["improvements"][0]["improvement"] == LESSON
    code, out, _ = _run(capsys, "lessons", "import", str(export), "--agent", "copy", "--json")
    assert code == 0 and json.loads(out) == {"agent": "copy", "imported": {"global.improvements": 1},
                                             "updated": 0, "unchanged": 0, "skipped": 0}
    code, out, _ = _run(capsys, "lessons", "import", str(export), "--json")  # into the exported agent
    assert json.loads(out)["agent"] == "main" and json.loads(out)["unchanged"] == 1


def test_export_json_prints_the_export_and_refuses_markdown(project: Path, capsys) -> None:
    _learn(capsys)
    code, out, _ = _run(capsys, "lessons", "export", "--json")
    assert code == 0 and json.loads(out)["improvements"][0]["improvement"] == LESSON
    again = _run(capsys, "lessons", "export", "--format", "json")[1]
    stamp = re.compile(r'"exported_at": "[^"]*"')  # the clock may tick a second between the two runs
    assert stamp.sub("", again) == stamp.sub("", out)
    code, out, err = _run(capsys, "lessons", "export", "--format", "md", "--json")
    assert code == 2 and json.loads(out)["exit_code"] == 2 and "--json" in err
    code, out, _ = _run(capsys, "lessons", "export")
    assert code == 0 and out.startswith("#") and LESSON in out  # Markdown stays the default


def test_the_background_maintenance_runs_the_command_by_its_current_name(project: Path, monkeypatch) -> None:
    """The daily run a hook starts writes its stderr to maintenance.log: no notice may land there."""
    import subprocess

    from kioku.cli.main import build_parser, command_of, moved_to
    from kioku.lessons import maintenance

    started: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **_kwargs: started.append(argv))
    monkeypatch.setenv("KIOKU_BACKGROUND_MAINTENANCE", "1")
    assert maintenance.run_due_in_background("main", project) is True
    [argv] = started
    assert argv[1:3] == ["-m", "kioku"]
    assert moved_to(argv[3:]) == (argv[3:], None)
    args = build_parser(command_of(argv[3:])).parse_args(argv[3:])
    assert (args.command, args.verb, args.agent, args.daily, args.if_due) == ("lessons", "maintain", "main", True, True)
