"""kioku.cli.main: the command table, ``kioku --help``, lazy loading and the error boundary.

Uses the `kioku` fixture rather than `from conftest import run_kioku`: with several
tests/<area>/conftest.py files, the module named "conftest" is whichever was imported last.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.cli import main as cli
from kioku.cli.args import sentence

SRC = Path(__file__).resolve().parents[2] / "src"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    return dict(action.choices) if action else {}


def test_version_prints_the_version(project, kioku):
    out = kioku("--version")
    assert out.returncode == 0 and out.stdout.startswith("kioku ")


def test_help_fits_one_screen_and_lists_the_everyday_commands_first(kioku):
    out = kioku("--help")
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80, out.stdout
    listed = [line.split()[0] for line in lines if line.startswith("  ")]
    assert listed[:5] == ["remember", "recall", "search", "forget", "organize"]
    assert {"lessons", "eval", "store", "dashboard", "doctor", "ui", "agent-section", "import-auto-memory"} <= set(listed)
    assert not {"hook", "worker"} & set(listed) and "hook" not in out.stdout
    assert not set(cli.MOVED) & set(listed)
    assert kioku().stdout == out.stdout  # `kioku` alone shows the same help


def test_help_lists_every_visible_command_once_with_its_summary(kioku):
    text = kioku("--help").stdout
    for name, command in cli.COMMANDS.items():
        line = [row for row in text.splitlines() if row.split()[:1] == [name]]
        if command.section is None:
            assert line == []
        else:
            assert len(line) == 1 and line[0].split(None, 1)[1] == command.summary


def test_each_summary_is_also_the_description_of_its_own_help():
    """One string per command: its line in the list above and the first line of `kioku NAME --help`."""
    top = _subparsers(cli.build_parser())
    assert set(top) == set(cli.COMMANDS)
    for name, command in cli.COMMANDS.items():
        assert top[name].description == sentence(command.summary), name
        for verb_name, verb in _subparsers(top[name]).items():
            module = __import__(f"kioku.cli.{command.setup.partition(':')[0]}", fromlist=["VERBS"])
            assert verb.description == sentence(module.VERBS[verb_name].summary), f"{name} {verb_name}"


@pytest.mark.parametrize("group", ["lessons", "eval", "store"])
def test_group_help_lists_its_verbs(kioku, group):
    module = __import__(f"kioku.cli.{cli.COMMANDS[group].setup.partition(':')[0]}", fromlist=["VERBS"])
    out = kioku(group, "--help")
    assert out.returncode == 0
    assert out.stdout.startswith(f"usage: kioku {group} [-h] VERB ...\n")
    listed = out.stdout.split("verbs:\n", 1)[1].splitlines()
    for name, verb in module.VERBS.items():
        assert f"  {name:<{max(map(len, module.VERBS))}}  {verb.summary}" in listed
    alone = kioku(group)
    assert alone.returncode == 0 and alone.stdout == out.stdout  # the group alone shows its help


def test_every_table_entry_names_a_setup_function_that_configures_a_command():
    for name, command in cli.COMMANDS.items():
        parser = cli.build_parser(name)
        sub = _subparsers(parser)[name]
        assert sub._actions[1:] or _subparsers(sub), f"{name}: {command.setup} added no arguments"
        assert sub.get_default("func") is not None, f"{name} runs nothing"


def test_agent_defaults_to_main_wherever_it_is_taken():
    """Every command and verb with --agent means the main session's agent when it is left out,
    except `lessons import`, which keeps the agent named in the export."""
    seen = []
    for name in cli.COMMANDS:
        parser = _subparsers(cli.build_parser(name))[name]
        for verb_name, verb in (_subparsers(parser) or {"": parser}).items():
            agent = next((a for a in verb._actions if "--agent" in a.option_strings), None)
            if agent is not None:
                seen.append(f"{name} {verb_name}".strip())
                assert agent.required is False
                assert agent.default == ("main" if (name, verb_name) != ("lessons", "import") else None)
    assert {"lessons learn", "lessons search", "lessons restore", "lessons rollback", "lessons clone",
            "lessons export", "lessons maintain", "eval transcript", "dashboard"} <= set(seen)


def test_json_is_offered_by_every_command_that_reports():
    no_report = {("hook", ""), ("mcp", "")}  # the hook protocol's and the MCP protocol's own stdout
    missing = []
    for name in cli.COMMANDS:
        parser = _subparsers(cli.build_parser(name))[name]
        for verb_name, verb in (_subparsers(parser) or {"": parser}).items():
            has_json = any("--json" in a.option_strings for a in verb._actions)
            if not has_json and (name, verb_name) not in no_report:
                missing.append(f"{name} {verb_name}".strip())
    assert missing == []


def _modules_loaded_by(*argv: str) -> dict:
    code = ("import json, sys, runpy\n"
            "sys.argv = ['kioku', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('kioku', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "mods = sorted(m for m in sys.modules if m.startswith('kioku.cli.'))\n"
            "heavy = sorted(m for m in ('chromadb', 'numpy', 'onnxruntime', 'jinja2', 'yaml') if m in sys.modules)\n"
            "print(json.dumps({'cli': mods, 'heavy': heavy}), file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, timeout=120)
    return json.loads(out.stderr.strip().splitlines()[-1])


def test_only_the_module_of_the_requested_command_is_imported(project):
    recall = _modules_loaded_by("recall")
    assert recall["cli"] == ["kioku.cli.args", "kioku.cli.main", "kioku.cli.memory"]
    assert recall["heavy"] == []
    assert _modules_loaded_by("--help")["cli"] == ["kioku.cli.args", "kioku.cli.main"]
    assert _modules_loaded_by("store", "--help")["cli"] == ["kioku.cli.args", "kioku.cli.main", "kioku.cli.store"]
    assert _modules_loaded_by("learn", "--help")["cli"] == ["kioku.cli.args", "kioku.cli.lessons", "kioku.cli.main"]


def test_unknown_command_is_a_usage_error_that_lists_no_internal_command(project, kioku):
    out = kioku("no-such-command")
    assert out.returncode == 2
    assert "invalid choice" in out.stderr and "'remember'" in out.stderr
    assert "'hook'" not in out.stderr and "'worker'" not in out.stderr


def test_a_reader_that_goes_away_stops_the_command_quietly(project, kioku):
    for n in range(30):
        assert kioku("remember", f"build agent {n} uses the arm64 runner pool", cwd=project).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "kioku", "search", "--lexical", "runner pool", "--limit", "30"],
                            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # like `| head -0`: nothing reads what the command prints
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


def test_a_file_system_error_is_one_line_that_says_the_command_stopped(project, monkeypatch, capsys):
    import errno

    from kioku.memory import api

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(project / ".agents" / "memory" / "MEMORY.md"))

    monkeypatch.setattr(api, "remember", full)
    monkeypatch.delenv("KIOKU_DEBUG", raising=False)
    assert cli.main(["remember", "We deploy on Fridays", "--type", "project"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kioku: error: No space left on device: ")
    assert "MEMORY.md; the command did not complete" in err


def test_an_unexpected_error_in_a_verb_is_logged_under_the_verbs_name(project, monkeypatch, capsys):
    from kioku.cli import store
    from kioku.infra import paths

    def broken(_args):
        raise RuntimeError("the store went away")

    monkeypatch.setitem(store.VERBS, "sync", dataclasses.replace(store.VERBS["sync"], run=broken))
    monkeypatch.delenv("KIOKU_DEBUG", raising=False)
    assert cli.main(["store", "sync", "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"error": "RuntimeError: the store went away", "exit_code": 1}
    assert captured.err.startswith("kioku: error: RuntimeError: the store went away (details in ")
    log = (paths.logs_dir() / "cli.log").read_text(encoding="utf-8")
    assert " kioku store sync\n" in log and "the store went away" in log


def test_a_failed_command_with_json_prints_json_too(project, kioku):
    out = kioku("remember", "my password is hunter2-XYZ-998", "--json", cwd=project)
    assert out.returncode == 3
    answer = json.loads(out.stdout)
    assert answer["exit_code"] == 3 and "password" in answer["error"] and "hunter2" not in out.stdout
    assert "kioku: error:" in out.stderr
    plain = kioku("remember", "my password is hunter2-XYZ-998", cwd=project)
    assert plain.returncode == 3 and plain.stdout == ""
    refused = kioku("lessons", "search", " ", "--json", cwd=project)
    assert refused.returncode == 2 and json.loads(refused.stdout)["exit_code"] == 2
