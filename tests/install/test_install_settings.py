"""settings.json merge/strip: other tools' entries untouched, idempotent, malformed refused."""

from __future__ import annotations

import json

import pytest

from kioku.install import settings
from kioku.install.layout import Target

TARGET = Target(__import__("pathlib").Path("/home/u/.claude"))
GROUPS = settings.kioku_groups(TARGET.hook_command)
MARKER = TARGET.marker()
FOREIGN = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git *)"]},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
}


def test_every_kioku_handler_has_explicit_timeout_and_matcher():
    want = {"SessionStart": 15, "UserPromptSubmit": 10, "Stop": 10, "SubagentStart": 10, "SubagentStop": 10,
            "SessionEnd": 5}
    assert {e: g["hooks"][0]["timeout"] for e, g in GROUPS.items()} == want
    assert GROUPS["SessionStart"]["matcher"] == "startup|resume|clear|compact"
    for group in GROUPS.values():
        assert MARKER in group["hooks"][0]["command"] and group["hooks"][0]["type"] == "command"


def test_merge_keeps_foreign_entries_and_appends_ours():
    merged = settings.merge(FOREIGN, GROUPS, MARKER)
    assert merged["model"] == "opus" and merged["permissions"] == FOREIGN["permissions"]
    assert merged["hooks"]["PreToolUse"] == FOREIGN["hooks"]["PreToolUse"]
    assert merged["hooks"]["Stop"][0] == FOREIGN["hooks"]["Stop"][0]
    assert merged["hooks"]["Stop"][1] == GROUPS["Stop"]
    assert settings.merge(merged, GROUPS, MARKER) is merged  # idempotent: nothing to change
    assert settings.strip_kioku(merged, MARKER, keep_events={"Stop", "PreToolUse"}) == FOREIGN


def test_merge_replaces_an_older_kioku_entry_instead_of_adding_a_second():
    old = settings.merge(FOREIGN, GROUPS, MARKER)
    old["hooks"]["Stop"][1]["hooks"][0]["timeout"] = 60  # e.g. an older version's value
    again = settings.merge(old, GROUPS, MARKER)
    ours = [g for g in again["hooks"]["Stop"] if MARKER in json.dumps(g)]
    assert ours == [GROUPS["Stop"]]


def test_strip_keeps_other_handlers_sharing_a_group():
    shared = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "other"},
                                             GROUPS["Stop"]["hooks"][0]]}]}}
    assert settings.strip_kioku(shared, MARKER) == {"hooks": {"Stop": [{"hooks": [{"type": "command",
                                                                                    "command": "other"}]}]}}


@pytest.mark.parametrize("raw", [b"{", b'{"a": 1,}', b"// comment\n{}", b"[]", b'"text"',
                                 b'{"hooks": []}', b'{"hooks": {"Stop": {}}}', b"\xff\xfe{}"])
def test_malformed_settings_are_refused(raw):
    with pytest.raises(settings.SettingsError, match="did not change it"):
        settings.parse(raw, "settings.json")


def test_blank_or_missing_is_empty():
    assert settings.parse(None, "x") == {} and settings.parse(b"  \n", "x") == {}


@pytest.mark.parametrize("indent", [2, 4, "\t", None])
def test_serialisation_keeps_the_files_style(indent):
    raw = (json.dumps(FOREIGN, indent=indent) + "\n").encode()
    assert settings.dumps(settings.parse(raw, "x"), raw) == raw


@pytest.mark.parametrize("folder", ["cfg 25", "o'brien home", "日本語 dir", 'a"b$c`d\\e'])
def test_the_kioku_command_defaults_to_its_claude_folder_whatever_the_path(tmp_path, folder):
    import os
    import subprocess

    from kioku.install.layout import Target, launcher_text

    claude_dir = tmp_path / folder / ".claude"
    line = next(ln for ln in launcher_text(Target(claude_dir)).splitlines() if ln.startswith(":"))
    out = subprocess.run(["sh", "-c", line + '\nprintf "%s" "$CLAUDE_CONFIG_DIR"'], capture_output=True,
                         text=True, env={"PATH": os.environ["PATH"]}).stdout
    assert out == str(claude_dir)


def test_an_apostrophe_in_the_claude_folder_still_marks_kiokus_hooks(tmp_path):
    from kioku.install import settings
    from kioku.install.layout import Target

    target = Target(tmp_path / "o'brien home" / ".claude")
    handler = {"type": "command", "command": target.hook_command("Stop")}
    assert settings.is_kioku_handler(handler, target.marker())
    assert not settings.is_kioku_handler({"type": "command", "command": "echo 'other tool'"}, target.marker())


def test_a_project_installs_kioku_command_still_runs_after_the_project_moved(tmp_path):
    import os
    import subprocess

    from kioku.install.layout import Target, launcher_text

    project = tmp_path / "old place" / "proj"
    target = Target(project / ".claude", project=project)
    bin_dir, venv_bin = target.kioku_dir / "bin", target.venv / "bin"
    bin_dir.mkdir(parents=True)
    venv_bin.mkdir(parents=True)
    (bin_dir / "kioku").write_text(launcher_text(target))
    (venv_bin / "python").write_text('#!/bin/sh\nprintf "%s|" "$0" "$@"\n')
    for f in (bin_dir / "kioku", venv_bin / "python"):
        f.chmod(0o755)
    assert str(project) not in launcher_text(target)
    moved = tmp_path / "new place" / "renamed proj"
    moved.parent.mkdir()
    project.rename(moved)
    env = {"PATH": os.environ["PATH"]}
    out = subprocess.run([str(moved / ".claude/kioku/bin/kioku"), "search", "a b"], capture_output=True,
                         text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith("-m|kioku|search|a b|")
    assert os.path.realpath(out.stdout.split("|")[0]) == os.path.realpath(moved / ".claude/kioku/venv/bin/python")
    # through a link on PATH, as a user might put it in ~/bin
    link_dir = tmp_path / "bin"
    link_dir.mkdir()
    (link_dir / "kioku").symlink_to(moved / ".claude/kioku/bin/kioku")
    out = subprocess.run(["kioku", "--version"], capture_output=True, text=True,
                         env={"PATH": f"{link_dir}:{os.environ['PATH']}"})
    assert out.returncode == 0 and out.stdout.endswith("-m|kioku|--version|"), out.stderr


def test_an_empty_event_list_of_the_user_is_not_taken_for_kioku():
    # "Stop": [] is what is left after deleting one's last Stop hook; it holds nothing of Kioku's
    data = {"model": "opus", "hooks": {"Stop": [], "PreToolUse": FOREIGN["hooks"]["PreToolUse"]}}
    assert not settings.has_kioku(data, MARKER)
    assert settings.strip_kioku(data, MARKER) == data
    merged = settings.merge(data, GROUPS, MARKER)
    assert settings.strip_kioku(merged, MARKER, keep_events={"Stop", "PreToolUse"}) == data


def test_a_user_hook_without_its_environment_exits_0_and_session_start_says_what_to_run(tmp_path):
    import json
    import subprocess

    from kioku.install.layout import Target

    target = Target(tmp_path / "o'brien home" / ".claude")  # no venv: removed, or never built
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"):
        out = subprocess.run(["sh", "-c", target.hook_command(event)], capture_output=True, text=True,
                             input="{}")
        assert out.returncode == 0 and out.stderr == "", (event, out.stderr)
        if event == "SessionStart":
            assert "run install.py again" in json.loads(out.stdout)["systemMessage"].lower()
        else:
            assert out.stdout == ""
        assert settings.is_kioku_handler({"type": "command", "command": target.hook_command(event)},
                                         target.marker())
