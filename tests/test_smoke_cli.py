# Uses the `kioku` fixture rather than `from conftest import run_kioku`: with several
# tests/<area>/conftest.py files, the module named "conftest" is whichever was imported last.


def test_version_and_help(project, kioku):
    out = kioku("--version")
    assert out.returncode == 0 and out.stdout.startswith("kioku ")


def test_unknown_command_is_a_usage_error(project, kioku):
    out = kioku("no-such-command")
    assert out.returncode == 2
    assert "invalid choice" in out.stderr


def test_a_reader_that_goes_away_stops_the_command_quietly(project, kioku):
    import os
    import subprocess
    import sys
    from pathlib import Path

    for n in range(30):
        assert kioku("remember", f"build agent {n} uses the arm64 runner pool", cwd=project).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "kioku", "search", "--lexical", "runner pool", "--limit", "30"],
                            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # like `| head -0`: nothing reads what the command prints
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


def test_a_file_system_error_is_one_line_that_says_the_command_stopped(project, monkeypatch, capsys):
    import errno
    import os

    from kioku.cli import main as cli
    from kioku.memory import api

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(project / ".agents" / "memory" / "MEMORY.md"))

    monkeypatch.setattr(api, "remember", full)
    monkeypatch.delenv("KIOKU_DEBUG", raising=False)
    assert cli.main(["remember", "We deploy on Fridays", "--type", "project"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kioku: error: No space left on device: ")
    assert "MEMORY.md; the command did not complete" in err


def test_a_failed_command_with_json_prints_json_too(project, kioku):
    import json

    out = kioku("remember", "my password is hunter2-XYZ-998", "--json", cwd=project)
    assert out.returncode == 3
    answer = json.loads(out.stdout)
    assert answer["exit_code"] == 3 and "password" in answer["error"] and "hunter2" not in out.stdout
    assert "kioku: error:" in out.stderr
    plain = kioku("remember", "my password is hunter2-XYZ-998", cwd=project)
    assert plain.returncode == 3 and plain.stdout == ""
