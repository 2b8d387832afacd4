"""The project identity reads ``.git/config`` itself and agrees with ``git config --get``.

Every case is a real repository made by ``git init``; the config text is then written as a
person or a tool would leave it, and the answer is compared with what git itself prints.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kioku.infra import paths, pathstr

HEAD = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
CASES = {
    "no remote": HEAD,
    "origin": HEAD + '[remote "origin"]\n\turl = https://example.com/team/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
    "ssh origin": HEAD + '[remote "origin"]\n\turl = git@example.com:team/app.git\n',
    "last url wins": HEAD + '[remote "origin"]\n\turl = https://a.example/x.git\n\tfetch = x\n\turl = https://b.example/y.git\n',
    "other remote only": HEAD + '[remote "upstream"]\n\turl = https://example.com/up.git\n',
    "origin after another remote": HEAD + '[remote "upstream"]\n\turl = https://u.example/u.git\n[remote "origin"]\n\turl = https://o.example/o.git\n',
    "upper-case key and section": HEAD + '[Remote "origin"]\n\tURL = https://example.com/case.git\n',
    "tab in header": HEAD + '[remote\t"origin"]\n\turl = https://example.com/tab.git\n',
    "no spaces around =": HEAD + '[remote "origin"]\nurl=https://example.com/tight.git\n',
    "comments": HEAD + '# a comment\n; another\n[remote "origin"] # trailing\n\turl = https://example.com/c.git\n',
    "Origin is another remote": HEAD + '[remote "Origin"]\n\turl = https://example.com/other.git\n',
    "quoted value": HEAD + '[remote "origin"]\n\turl = "https://example.com/quoted.git"\n',
    "comment after value": HEAD + '[remote "origin"]\n\turl = https://example.com/v.git ; note\n',
    "key on header line": HEAD + '[remote "origin"] url = https://example.com/inline.git\n',
    "old dotted section": HEAD + '[remote.origin]\n\turl = https://example.com/dotted.git\n',
    "continued line": HEAD + '[alias]\n\tx = !echo \\\n[remote "origin"]\n\turl = https://example.com/after.git\n',
}


def _git_answer(repo: Path) -> str | None:
    out = subprocess.run(["git", "-C", str(repo), "config", "--get", "remote.origin.url"],
                         capture_output=True, text=True, check=False)
    return out.stdout.strip() or None


@pytest.mark.parametrize("name", sorted(CASES))
def test_config_reader_agrees_with_git_or_defers_to_it(tmp_path, name):
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / "config").write_text(CASES[name], encoding="utf-8")
    read = pathstr.origin_url_from_config(repo / ".git")
    if read is not pathstr.UNSURE:
        assert read == _git_answer(repo)
    assert pathstr._git_remote(str(repo)) == _git_answer(repo)


def test_simple_configs_never_start_git(tmp_path, monkeypatch):
    import subprocess as sp

    def no_git(*_a, **_k):
        raise AssertionError("git was started")

    monkeypatch.setattr(sp, "run", no_git)
    for name in ("no remote", "origin", "last url wins", "other remote only", "comments", "tab in header"):
        repo = tmp_path / name.replace(" ", "-")
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text(CASES[name], encoding="utf-8")
        paths.project_identity(repo)


def test_include_and_worktree_files_defer_to_git(tmp_path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    extra = tmp_path / "extra.gitconfig"
    extra.write_text('[remote "origin"]\n\turl = https://example.com/included.git\n', encoding="utf-8")
    (repo / ".git" / "config").write_text(HEAD + f"[include]\n\tpath = {extra}\n", encoding="utf-8")
    assert pathstr.origin_url_from_config(repo / ".git") is pathstr.UNSURE
    assert pathstr._git_remote(str(repo)) == "https://example.com/included.git"
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {repo / '.git'}\n", encoding="utf-8")
    assert pathstr.origin_url_from_config(linked / ".git") is pathstr.UNSURE


def test_same_remote_same_identity_in_two_clones(tmp_path):
    ids = []
    for name in ("one", "two"):
        repo = tmp_path / name
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", "https://example.com/shared.git"],
                       check=True)
        ids.append(paths.project_identity(repo))
    assert ids[0] == ids[1]
    assert ids[0] != paths.project_identity(tmp_path)


def test_fifo_or_huge_config_is_not_read_here(tmp_path):
    import os

    repo = tmp_path / "fifo"
    (repo / ".git").mkdir(parents=True)
    os.mkfifo(repo / ".git" / "config")  # opening it for reading would block forever
    assert pathstr.origin_url_from_config(repo / ".git") is pathstr.UNSURE
    big = tmp_path / "big"
    (big / ".git").mkdir(parents=True)
    (big / ".git" / "config").write_text(HEAD + "# padding\n" * 200_000, encoding="utf-8")
    assert pathstr.origin_url_from_config(big / ".git") is pathstr.UNSURE
