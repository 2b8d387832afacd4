"""Every ``kioku ...`` command the skills tell Claude to run works as written.

The commands are taken from the fenced ``bash`` blocks of both skills (SKILL.md and every
reference file), so the documentation cannot drift from the CLI:

1. the skills show every command they promise, by its current name;
2. all of them run, in document order, in a temporary home and project, from a sub-folder of the
   project, and each exits 0 (slow: the agent commands load ChromaDB and the embedding model);
3. the workflow commands also run as real ``kioku`` processes.

That every command shown parses with the real argument parser is checked for all the
documentation at once, by tests/cli/test_cli_docs.py.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from kioku.cli.main import COMMANDS, MOVED, build_parser, command_of, main

SKILLS_DIR = Path(__file__).resolve().parents[2] / "skills"
SKILL_NAMES = ["memory-system", "agent-memory"]
SESSION_ID = "0b9e2f4c-docs-test"
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def _doc_files() -> list[Path]:
    files: list[Path] = []
    for skill in SKILL_NAMES:
        folder = SKILLS_DIR / skill
        files.append(folder / "SKILL.md")
        files.extend(sorted((folder / "references").glob("*.md")))
    return files


def doc_commands() -> list[tuple[str, str]]:
    """(where, command line) for every kioku command in a bash block, in document order."""
    found: list[tuple[str, str]] = []
    for path in _doc_files():
        text = path.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            if match.group(1) not in ("bash", "sh", "shell"):
                continue
            block = match.group(2).replace("\\\n", " ")
            for line in block.splitlines():
                line = line.strip()
                if line.startswith("kioku "):
                    where = f"{path.parent.name if path.name == 'SKILL.md' else path.parent.parent.name + '/' + path.name}"
                    found.append((where, line))
    return found


def argv_of(line: str) -> list[str]:
    """The arguments after ``kioku``, with the skill substitution Claude Code performs."""
    return shlex.split(line.replace("${CLAUDE_SESSION_ID}", SESSION_ID))[1:]


COMMAND_LINES = doc_commands()


def command_name(argv: list[str]) -> str:
    """``lessons search`` for a group's verb, ``recall`` for a command."""
    args = build_parser(command_of(argv) or "").parse_args(argv)
    return " ".join(part for part in (args.command, getattr(args, "verb", None)) if part)


def test_the_skills_document_every_command_they_promise() -> None:
    used = {command_name(argv_of(line)) for _, line in COMMAND_LINES}
    memory = {"remember", "recall", "search", "organize", "forget"}
    agent = {"lessons search", "lessons learn", "dashboard", "lessons maintain", "lessons consolidate",
             "lessons rollback", "lessons clone", "lessons export", "lessons import", "agent-section"}
    assert memory | agent <= used, f"not shown in a bash block: {sorted((memory | agent) - used)}"
    assert {name.split()[0] for name in used} <= set(COMMANDS), f"unknown commands: {sorted(used)}"
    old = sorted({argv_of(line)[0] for _, line in COMMAND_LINES} & set(MOVED))
    assert not old, f"the skills show commands by the names they had before they moved: {old}"


SEED = [
    # lessons for the agent the docs use, so retrieval, dashboard, export and clone have data
    ("lessons", "learn", "--agent", "code-finder", "Search for the decorator name before the function name "
     "when routes are registered by decorators", "--category", "search_strategy", "--confidence", "0.8"),
    ("lessons", "learn", "--agent", "code-reviewer", "Check generated code folders last; they duplicate every symbol",
     "--category", "search_strategy", "--confidence", "0.8"),
    # an evaluated turn, so maintenance has something to measure and the agent keeps memory
    # after the documented rollback (which removes the lessons learned since its date)
    ("eval", "transcript", "--agent", "code-finder",
     str(Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "plain_success.jsonl")),
]


@pytest.mark.slow
def test_every_documented_command_runs(project: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """All documented commands, in order, through ``kioku.cli.main.main`` from a project sub-folder.

    In one process so ChromaDB and the model load once (a cold agent command costs 5-10 s here);
    the real-process path is covered by the next test.
    """
    subdir = project / "src" / "deep"
    subdir.mkdir(parents=True)
    monkeypatch.chdir(subdir)
    for args in SEED:
        assert main(list(args)) == 0
    failures: list[str] = []
    for where, line in COMMAND_LINES:
        capsys.readouterr()
        try:
            code = main(argv_of(line))
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:  # a crash is a documentation bug as much as a code bug
            code = f"{type(exc).__name__}: {exc}"
        if code != 0:
            failures.append(f"{where}: `{line}` -> {code}: {capsys.readouterr().err.strip()[-400:]}")
    assert not failures, "\n".join(failures)


# the workflow commands, as real processes: the exact lines Claude runs in Bash
WORKFLOW = ("remember", "search", "recall", "lessons search", "lessons learn", "agent-section")


def _first_line_per_command() -> dict[str, tuple[str, str]]:
    """The first documented line of each command (for agent-section: the first with --write)."""
    lines: dict[str, tuple[str, str]] = {}
    for where, line in COMMAND_LINES:
        name = command_name(argv_of(line))
        if name == "agent-section" and "--write" not in line:
            continue
        lines.setdefault(name, (where, line))
    return lines


@pytest.mark.slow
def test_workflow_commands_run_as_real_processes(kioku, project: Path) -> None:
    subdir = project / "pkg"
    subdir.mkdir()
    lines = _first_line_per_command()
    failures = []
    for name in WORKFLOW:
        where, line = lines[name]
        out = kioku(*argv_of(line), cwd=subdir, timeout=300)
        if out.returncode != 0 or "Traceback" in out.stderr:
            failures.append(f"{where}: `{line}` -> exit {out.returncode}: {out.stderr.strip()[-400:]}")
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_workflow_commands_work_after_install(project: Path, tmp_path: Path) -> None:
    """After ``install.py`` the skills' fallback launcher runs the documented lines from any folder,
    and the installed skills are the ones validated here."""
    import os
    import subprocess
    import sys

    claude_dir = Path(os.environ["CLAUDE_CONFIG_DIR"])
    repo = SKILLS_DIR.parent
    installed = subprocess.run([sys.executable, str(repo / "install.py"), "--reuse-site-packages"],
                               cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-2000:]
    for skill in SKILL_NAMES:
        for source in (SKILLS_DIR / skill).rglob("*.md"):
            copy = claude_dir / "skills" / skill / source.relative_to(SKILLS_DIR / skill)
            assert copy.read_bytes() == source.read_bytes()
    # the path the skills give: ${CLAUDE_SKILL_DIR}/../../kioku/bin/kioku
    launcher = claude_dir / "skills" / "agent-memory" / ".." / ".." / "kioku" / "bin" / "kioku"
    subdir = project / "docs"
    subdir.mkdir()
    lines = _first_line_per_command()
    failures = []
    for name in WORKFLOW:
        where, line = lines[name]
        out = subprocess.run([str(launcher), *argv_of(line)], cwd=subdir, capture_output=True,
                             text=True, timeout=300)
        if out.returncode != 0 or "Traceback" in out.stderr:
            failures.append(f"{where}: `{line}` -> exit {out.returncode}: {out.stderr.strip()[-400:]}")
    assert not failures, "\n".join(failures)
    assert (subdir / ".claude" / "agents" / "code-finder.md").is_file()  # agent-section --write
