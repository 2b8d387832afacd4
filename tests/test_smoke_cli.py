# Uses the `kioku` fixture rather than `from conftest import run_kioku`: with several
# tests/<area>/conftest.py files, the module named "conftest" is whichever was imported last.


def test_version_and_help(project, kioku):
    out = kioku("--version")
    assert out.returncode == 0 and out.stdout.startswith("kioku ")


def test_unknown_command_is_a_usage_error(project, kioku):
    out = kioku("no-such-command")
    assert out.returncode == 2
    assert "invalid choice" in out.stderr
