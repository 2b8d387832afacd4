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
