"""A project's agent-memory folders are git-ignored (kioku.infra.gitignore): `git add -A` after
lessons were learned stages none of the store, its journal or its digests, and a folder an
earlier version made without a `.gitignore` gets one at the store's first use."""

from __future__ import annotations

import subprocess
from pathlib import Path


def _staged(project: Path) -> list[str]:
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    listed = subprocess.run(["git", "-C", str(project), "diff", "--cached", "--name-only"],
                            check=True, capture_output=True, text=True).stdout
    return listed.split()


def _learn(kioku, project: Path, lesson: str) -> None:
    done = kioku("lessons", "learn", lesson, "--category", "testing_patterns", "--confidence", "0.9",
                 "--scope", "project", cwd=project)
    assert done.returncode == 0, done.stderr


def test_git_add_all_stages_nothing_of_the_project_store(project: Path, kioku) -> None:
    (project / "app.py").write_text("print('hi')\n")
    _learn(kioku, project, "Run the database migrations before the integration tests")
    store = project / ".claude" / "chroma_data"
    assert store.is_dir() and any(store.iterdir())
    assert _staged(project) == ["app.py"]


def test_a_folder_of_an_earlier_version_gets_its_gitignore_at_first_use(project: Path, kioku) -> None:
    _learn(kioku, project, "Run the database migrations before the integration tests")
    folders = [p for p in (project / ".claude").iterdir() if (p / ".gitignore").is_file()]
    assert folders, "the store's folders carry a .gitignore"
    for folder in folders:  # as an earlier version left them: no .gitignore, no record of one
        (folder / ".gitignore").unlink()
    for state in (project / ".claude").glob("*.kioku-journal/*state*"):
        state.unlink()
    assert any(name.startswith(".claude/") for name in _staged(project))
    subprocess.run(["git", "-C", str(project), "reset", "-q"], check=True)
    _learn(kioku, project, "Pin the linter's version in the lock file")
    assert not [name for name in _staged(project) if name.startswith(".claude/")]
