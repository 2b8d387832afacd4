"""A settings.json the user made a symbolic link stays a link: the write goes through to its
target, or is refused when the target is not a regular file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.install.files import write_preserving_mode
from kioku.install.settings import SettingsError

REPO = Path(__file__).resolve().parents[2]


def test_write_goes_through_the_link_and_keeps_it(tmp_path, capsys):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_bytes(b'{"model": "opus"}\n')
    os.chmod(real, 0o640)
    link = tmp_path / "claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    write_preserving_mode(link, b'{"model": "opus", "hooks": {}}\n')
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b'{"model": "opus", "hooks": {}}\n'
    assert (real.stat().st_mode & 0o777) == 0o640
    assert "wrote through to its target" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["dangling", "folder"])
def test_link_to_a_missing_file_or_a_folder_is_refused(tmp_path, kind):
    target = tmp_path / "elsewhere"
    if kind == "folder":
        target.mkdir()
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    with pytest.raises(SettingsError, match="symbolic link"):
        write_preserving_mode(link, b"{}\n")
    assert link.is_symlink() and (not target.exists() or target.is_dir())


def test_install_and_uninstall_keep_a_symlinked_settings_file(isolated_home, project):
    claude = isolated_home / ".claude"
    claude.mkdir()
    real = isolated_home / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_bytes(b'{\n  "model": "opus"\n}\n')
    (claude / "settings.json").symlink_to(real)
    run = [sys.executable, str(REPO / "install.py"), "--reuse-site-packages"]
    first = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert (claude / "settings.json").is_symlink() and "kioku" in real.read_text()
    assert "wrote through to its target" in first.stdout
    gone = subprocess.run(run + ["--uninstall"], capture_output=True, text=True, timeout=300)
    assert gone.returncode == 0, gone.stderr
    assert (claude / "settings.json").is_symlink() and real.read_bytes() == b'{\n  "model": "opus"\n}\n'


def test_a_settings_link_that_cannot_be_written_is_refused_before_anything_is_installed(tmp_path, isolated_home):
    import subprocess
    import sys

    claude = isolated_home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "settings.json").symlink_to(tmp_path / "missing" / "settings.json")
    repo = Path(__file__).resolve().parents[2]
    res = subprocess.run([sys.executable, str(repo / "install.py"), "--reuse-site-packages"], capture_output=True,
                         text=True, timeout=300)
    assert res.returncode != 0 and "nothing was written" in res.stderr + res.stdout
    assert sorted(p.name for p in claude.iterdir()) == ["settings.json"]  # no skills, venv or hooks left behind


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_settings_json_that_is_not_a_file_is_refused_in_one_line(isolated_home, kind):
    import subprocess
    import sys

    claude = isolated_home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(claude / "settings.json")
    else:
        (claude / "settings.json").mkdir()
    repo = Path(__file__).resolve().parents[2]
    res = subprocess.run([sys.executable, str(repo / "install.py"), "--reuse-site-packages", "--dry-run"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode != 0 and "not a regular file" in res.stderr and "Traceback" not in res.stderr
