"""The flat command names of 0.1 still work, print where the command moved, and change nothing else.

For each old name the same command runs twice in one seeded project, once by its old name and
once by its new one: the exit codes and standard output are the same (after the parts that
differ by nature, such as a clone's target name, are put equal), and standard error differs
only by the one notice line that comes first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import pytest

from kioku.cli import main as cli

TRANSCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "plain_success.jsonl"
LESSON = "Check the CI log before re-running a failed job"


def _seed(project: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A lesson in each store and one evaluated turn of the main agent; returns the global lesson's id."""
    assert cli.main(["lessons", "learn", LESSON, "--category", "testing_patterns", "--confidence", "0.8",
                     "--json"]) == 0
    [lesson] = json.loads(capsys.readouterr().out)["ids"]
    assert cli.main(["lessons", "learn", "Services are registered in src/app/container.py", "--category",
                     "architecture_patterns", "--confidence", "0.9"]) == 0
    assert cli.main(["eval", "transcript", str(TRANSCRIPT)]) == 0
    assert cli.main(["lessons", "export", "--out", str(project / "main.md")]) == 0
    capsys.readouterr()
    return lesson


def _deprecate(lesson: str, project: Path) -> None:
    from kioku.lessons.lesson_state import set_deprecated

    set_deprecated("main", lesson, True, project, reason="deprecated for the test")


def _same(text: str) -> str:
    return text


def _one_name(text: str) -> str:
    return re.sub(r"\b(twin|copy)-[ab]\b", r"\1", text)


def _no_aside_folder(text: str) -> str:
    return re.sub(r"replaced-[0-9TZ-]+", "replaced-TIME", text)


# old argv, new argv, what to do before each run, what may differ
CASES: dict[str, tuple[list[str], list[str], Callable[[str, Path], None] | None, Callable[[str], str]]] = {
    "learn": (["learn", LESSON, "--category", "testing_patterns", "--confidence", "0.8"],
              ["lessons", "learn", LESSON, "--category", "testing_patterns", "--confidence", "0.8"], None, _same),
    "improvements": (["improvements", "--agent", "main", "re-run a failed CI job"],
                     ["lessons", "search", "re-run a failed CI job"], None, _same),
    "restore": (["restore", "--agent", "main", "{lesson}"], ["lessons", "restore", "{lesson}"], _deprecate, _same),
    "rollback": (["rollback", "--agent", "main", "--to", "2000-01-01", "--dry-run"],
                 ["lessons", "rollback", "--to", "2000-01-01", "--dry-run"], None, _same),
    "clone": (["clone", "--agent", "main", "--to", "twin-a"], ["lessons", "clone", "--to", "twin-b"], None, _one_name),
    "export": (["export", "--agent", "main", "--format", "json"], ["lessons", "export", "--format", "json"], None,
               _same),
    "import": (["import", "{project}/main.md", "--agent", "copy-a"],
               ["lessons", "import", "{project}/main.md", "--agent", "copy-b"], None, _one_name),
    "consolidate": (["consolidate", "--dry-run"], ["lessons", "consolidate", "--dry-run"], None, _same),
    "maintain": (["maintain", "--agent", "main", "--weekly"], ["lessons", "maintain", "--weekly"], None, _same),
    "evaluate": (["evaluate", "--agent", "main", "--transcript", str(TRANSCRIPT), "--no-store"],
                 ["eval", "transcript", str(TRANSCRIPT), "--no-store"], None, _same),
    "sync": (["sync"], ["store", "sync"], None, _same),
    "rebuild": (["rebuild", "--scope", "global"], ["store", "rebuild", "--scope", "global"], None, _no_aside_folder),
}


def test_every_moved_name_has_a_case_and_a_home():
    assert set(CASES) == set(cli.MOVED)
    for old, new in cli.MOVED.items():
        group, verb = new.split()
        assert cli.COMMANDS[group].section and old not in cli.COMMANDS
        assert CASES[old][1][:2] == [group, verb]


@pytest.mark.slow
@pytest.mark.parametrize("old", list(CASES))
def test_the_old_name_runs_the_command_and_says_where_it_moved(old, project, capsys):
    lesson = _seed(project, capsys)
    old_argv, new_argv, prepare, normalize = CASES[old]
    runs = []
    for argv in (old_argv, new_argv):
        if prepare:
            prepare(lesson, project)
        code = cli.main([a.format(lesson=lesson, project=project) for a in argv])
        out, err = capsys.readouterr()
        runs.append((code, normalize(out), err))
    (old_code, old_out, old_err), (new_code, new_out, new_err) = runs
    assert old_code == new_code == 0, old_err
    assert old_out == new_out and old_out.strip()
    notice = f"kioku: `kioku {old}` is now `kioku {cli.MOVED[old]}`; the old name goes away in 0.3\n"
    assert old_err == notice + new_err


def test_the_notice_is_one_line_on_stderr_of_a_real_process(project, kioku):
    old, new = kioku("sync", cwd=project), kioku("store", "sync", cwd=project)
    assert old.returncode == new.returncode == 0 and old.stdout == new.stdout
    assert old.stderr == "kioku: `kioku sync` is now `kioku store sync`; the old name goes away in 0.3\n"
    assert new.stderr == ""


def test_an_old_name_with_a_usage_error_fails_as_before(project, kioku):
    out = kioku("learn", "--confidence", "0.9", cwd=project)
    assert out.returncode == 2
    notice, *rest = out.stderr.splitlines()
    assert notice.startswith("kioku: `kioku learn` is now `kioku lessons learn`")
    assert rest[-1].startswith("kioku lessons learn: error: the following arguments are required")


def test_the_old_help_of_a_moved_name_is_the_new_one(kioku):
    old, new = kioku("improvements", "--help"), kioku("lessons", "search", "--help")
    assert old.returncode == new.returncode == 0 and old.stdout == new.stdout


def test_a_moved_name_is_routed_only_as_the_command_word():
    assert cli.moved_to(["lessons", "import", "sync"]) == (["lessons", "import", "sync"], None)
    assert cli.moved_to(["remember", "learn", "the lesson"]) == (["remember", "learn", "the lesson"], None)
    routed, notice = cli.moved_to(["import", "x.md", "--agent", "rebuild"])
    assert routed == ["lessons", "import", "x.md", "--agent", "rebuild"] and "`kioku import`" in notice
