"""Run from the home folder (the project root resolves to ``$HOME``), the project's
``.agents/memory`` is the user-wide folder: a project-scoped memory saved there would be
recalled in every project. It is refused in one line, through the CLI and the hook; user
memories still save there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memtest_fixtures import umem  # noqa: F401
from kioku.infra.errors import UsageError
from kioku.memory import api


@pytest.fixture(params=["plain home", "home is a git repository"])
def home_cwd(request, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if request.param == "home is a git repository":  # dotfiles kept in git: the git root is the home
        subprocess.run(["git", "init", "-q", str(isolated_home)], check=True)
    monkeypatch.chdir(isolated_home)
    return isolated_home


def _written(home: Path) -> list[str]:
    memory = home / ".agents" / "memory"
    return sorted(p.name for p in memory.glob("*.md")) if memory.exists() else []


@pytest.mark.parametrize("args", [("--type", "project"), ("--type", "feedback"), ("--type", "reference"), ()])
def test_project_scoped_save_from_home_is_refused_in_one_line(home_cwd, kioku, args):
    out = kioku("remember", "We deploy from the release branch", *args, cwd=home_cwd)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("kioku: error: not saved:")
    assert "home folder" in out.stderr and "project folder" in out.stderr and "--type user" in out.stderr
    assert _written(home_cwd) == []


def test_user_memory_from_home_still_saves(home_cwd, umem, kioku):
    out = kioku("remember", "I prefer short answers without summaries", "--type", "user", cwd=home_cwd)
    assert out.returncode == 0, out.stderr
    assert "I prefer short answers" in (umem / "MEMORY.md").read_text(encoding="utf-8")
    with pytest.raises(UsageError, match="home folder"):
        api.remember("Tests run with pytest -q", type="project")
    assert "pytest" not in (umem / "MEMORY.md").read_text(encoding="utf-8")


def test_hook_from_home_saves_nothing_and_tells_claude_why(home_cwd, kioku):
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s-home", "cwd": str(home_cwd),
               "prompt": "remember that we deploy from the release branch"}
    out = kioku("hook", "UserPromptSubmit", input=json.dumps(payload), cwd=home_cwd,
                env={"KIOKU_NO_WORKER": "1"})
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    context = data["hookSpecificOutput"]["additionalContext"]
    assert "could not save this to memory" in context and "home folder" in context
    assert "not saved to memory" in data.get("systemMessage", "")
    assert _written(home_cwd) == []


def test_a_project_below_home_still_saves(isolated_home, kioku):
    project = isolated_home / "code" / "app"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    out = kioku("remember", "We deploy from the release branch", "--type", "project", cwd=project)
    assert out.returncode == 0, out.stderr
    assert (project / ".agents" / "memory" / "MEMORY.md").exists() and _written(isolated_home) == []


def test_a_project_folder_that_no_longer_exists_is_never_created(tmp_path):
    from kioku.infra.errors import UsageError
    from kioku.memory import api

    gone = tmp_path / "deleted-worktree"
    with pytest.raises(UsageError, match="does not exist"):
        api.remember("we use pnpm", type="project", project_root=gone)
    assert not gone.exists()


def test_a_project_save_with_the_file_system_root_as_project_is_refused(isolated_home):
    before = sorted(p.name for p in Path("/").iterdir())
    with pytest.raises(UsageError, match="file system's root"):
        api.remember("We deploy from the release branch", type="project", project_root=Path("/"))
    assert sorted(p.name for p in Path("/").iterdir()) == before  # no /.agents left behind
