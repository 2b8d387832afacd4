"""Settings files: only small regular files are read, and a repository cannot redirect storage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.infra import config, paths
from kioku.hooks import common as _common

REPO_ROOT = Path(__file__).resolve().parents[2]


def _project_file(project: Path) -> Path:
    (project / ".agents").mkdir(exist_ok=True)
    return project / ".agents" / "kioku.toml"


def test_both_files_merge_and_the_project_wins(project: Path) -> None:
    user = paths.kioku_home() / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('main_agent = "alice"\nrelevance_threshold = 0.2\n')
    _project_file(project).write_text('main_agent = "builder"\n')
    cfg = config.load_config(project)
    assert cfg.main_agent == "builder" and cfg.extra["relevance_threshold"] == 0.2 and not cfg.disabled


@pytest.mark.parametrize("make", ["fifo", "dev_zero_link", "huge"])
def test_project_file_that_is_not_a_small_regular_file_is_refused_quickly(project: Path, tmp_path: Path,
                                                                            make: str) -> None:
    target = _project_file(project)
    if make == "fifo":
        os.mkfifo(target)
    elif make == "dev_zero_link":
        target.symlink_to("/dev/zero")
    else:
        target.write_text("# padding\n" * 20_000)
    with pytest.raises(config.ConfigError) as err:
        config.load_config(project)
    assert str(target) in str(err.value) and "\n" not in str(err.value)
    assert _common.main_agent(project) == "main"  # the hooks go on with the default


def test_user_file_may_be_a_link_to_a_dotfiles_checkout(project: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "kioku.toml"
    real.parent.mkdir()
    real.write_text('main_agent = "alice"\n')
    user = paths.kioku_home() / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.symlink_to(real)
    assert config.load_config(project).main_agent == "alice"


@pytest.mark.parametrize("written,disabled", [("true", True), ('"true"', True), ("1", True), ('"on"', True),
                                              ("false", False), ('"false"', False), ("0", False), ('"no"', False)])
def test_disabled_takes_the_usual_spellings_of_a_boolean(project: Path, written: str, disabled: bool) -> None:
    _project_file(project).write_text(f"disabled = {written}\n")
    assert config.load_config(project).disabled is disabled


def test_disabled_that_is_no_boolean_is_an_error(project: Path) -> None:
    _project_file(project).write_text('disabled = "sometimes"\n')
    with pytest.raises(config.ConfigError, match="disabled must be true or false"):
        config.load_config(project)


def test_a_project_file_linked_to_a_shared_one_is_read(project: Path, tmp_path: Path) -> None:
    real = tmp_path / "shared.toml"
    real.write_text('disabled = true\n')
    _project_file(project).symlink_to(real)
    assert config.load_config(project).disabled is True


def test_a_repository_cannot_send_agent_memory_to_its_own_server(project: Path) -> None:
    _project_file(project).write_text('[chroma]\nhost = "203.0.113.9"\nport = 8000\n')
    cfg = config.load_config(project)
    assert cfg.chroma_host is None and cfg.chroma_port is None
    user = paths.kioku_home() / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('[chroma]\nhost = "127.0.0.1"\nport = 8123\n')
    cfg = config.load_config(project)
    assert (cfg.chroma_host, cfg.chroma_port) == ("127.0.0.1", 8123)


def test_hooks_do_not_hang_on_a_fifo_or_dev_zero_config(project: Path) -> None:
    target = _project_file(project)
    target.symlink_to("/dev/zero")
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1",
                          "cwd": str(project), "transcript_path": str(project / "t.jsonl")})
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), "KIOKU_NO_WORKER": "1"}
    for event in ("SessionStart", "UserPromptSubmit"):
        ran = subprocess.run([sys.executable, str(REPO_ROOT / "hooks" / "kioku_hook.py"), event],
                             input=payload.replace("SessionStart", event), capture_output=True, text=True,
                             env=env, cwd=project, timeout=30)
        assert ran.returncode == 0, ran.stderr
        assert ran.stderr.startswith("kioku: settings ignored:") and ran.stderr.count("\n") == 1, ran.stderr
