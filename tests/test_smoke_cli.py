from conftest import run_kioku


def test_version_and_help(project):
    out = run_kioku("--version")
    assert out.returncode == 0 and out.stdout.startswith("kioku ")


def test_unknown_command_is_a_usage_error(project):
    out = run_kioku("no-such-command")
    assert out.returncode == 2
    assert "invalid choice" in out.stderr
