"""The hook launchers as Claude Code runs them: real processes, real stdin, installed copy.

Every hook runs from a copy of the installed tree in a differently named folder, with the
installed venv's python, exactly as the settings.json command does.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hook_helpers import load_hook_input

HOOKS = {"SessionStart": "session_start_startup", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop",
         "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop"}
LAUNCHER = "kioku_hook.py"
HEAVY = ("chromadb", "numpy", "jinja2", "onnxruntime")
# Standard-library modules the every-prompt path (UserPromptSubmit with lessons, no save) does
# without: each costs milliseconds of start-up on every prompt.
PROMPT_PATH_AVOIDS = ("hashlib", "typing", "threading", "dataclasses", "json", "pathlib", "contextlib")
# ... and, when no lesson is given (nothing to defang or redact), the regular expression engine.
PROMPT_WITHOUT_LESSONS_AVOIDS = PROMPT_PATH_AVOIDS + ("re", "enum")
# A save loads the trigger detector and the Markdown memory (re, pathlib), but not these.
SAVE_PATH_AVOIDS = ("hashlib", "typing", "threading", "dataclasses", "json", "contextlib")
# The launcher runs as __main__ through exec, not runpy: runpy imports pkgutil, which imports
# typing, and would hide whether the hook itself does. json is imported only after the check.
PROBE = r"""
import os, sys
hook, event = sys.argv[1], sys.argv[2]
sys.argv = [hook, event]
with open(hook, encoding="utf-8") as handle:
    code = compile(handle.read(), hook, "exec")
try:
    exec(code, {"__name__": "__main__", "__file__": hook})
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(os.environ["PROBE_HEAVY"].split(",")))
import json
open(os.environ["PROBE_OUT"], "w").write(json.dumps({"heavy": heavy, "kioku": sys.modules["kioku"].__file__}))
"""


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOKU_", "PYTHON"))}
    env.update(HOME=str(home), KIOKU_USER_HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               KIOKU_NO_WORKER="1", KIOKU_HOLD_BACK="0", **extra)  # exploration has its own tests
    return env


def run_hook(tree: Path, event: str, data: bytes, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(tree / "venv" / "bin" / "python"), str(tree / "hooks" / LAUNCHER), event],
                          input=data, env=env, cwd=cwd, capture_output=True, timeout=60)


def assert_documented(event: str, stdout: bytes) -> dict | None:
    text = stdout.decode()
    if not text.strip():
        return None
    assert text.count("\n") <= 1, "exactly one JSON object"
    data = json.loads(text)
    assert isinstance(data, dict) and set(data) <= {"hookSpecificOutput", "systemMessage"}
    if "hookSpecificOutput" in data:
        assert set(data["hookSpecificOutput"]) <= {"hookEventName", "additionalContext"}
        assert data["hookSpecificOutput"]["hookEventName"] == event
        assert event in {"SessionStart", "UserPromptSubmit", "SubagentStart"}
    return data


@pytest.mark.parametrize("event", list(HOOKS))
@pytest.mark.parametrize("kind", ["valid", "empty", "not json", "list", "huge", "unwritable home"])
def test_hook_exits_zero_with_documented_output(installed_copy, project, isolated_home, event, kind):
    fixture = HOOKS[event]
    home = isolated_home
    payload = load_hook_input(fixture, project, home / ".claude", home=home)
    data = {"valid": json.dumps(payload).encode(), "empty": b"", "not json": b"not json", "list": b"[]",
            "huge": json.dumps({**payload, "prompt": "x" * (20 * 1024 * 1024)}).encode(),
            "unwritable home": json.dumps(payload).encode()}[kind]
    env = _env(home)
    if kind == "unwritable home":
        blocker = home / "a-file"
        blocker.write_text("not a folder")  # nothing can be created below a file, even as root
        env.update(HOME=str(blocker / "home"), KIOKU_USER_HOME=str(blocker / "home"),
                   CLAUDE_CONFIG_DIR=str(blocker / "claude"), KIOKU_HOME=str(blocker / "kioku"))
    res = run_hook(installed_copy, event, data, env, project)
    assert res.returncode == 0, res.stderr
    out = assert_documented(event, res.stdout)
    if kind in {"empty", "not json", "list", "huge"}:
        assert out is None
    if kind == "valid" and event == "UserPromptSubmit":
        assert out["hookSpecificOutput"]["additionalContext"].startswith("Saved to memory: ")
    if kind == "unwritable home" and event == "UserPromptSubmit":
        assert b"failed open" in res.stderr or out is not None


def _probe(tree: Path, event: str, payload: dict, home: Path, cwd: Path, heavy: tuple[str, ...] = HEAVY) -> dict:
    out = home / "probe.json"
    env = _env(home, PROBE_OUT=str(out), PROBE_HEAVY=",".join(heavy))
    res = subprocess.run([str(tree / "venv" / "bin" / "python"), "-c", PROBE, str(tree / "hooks" / LAUNCHER), event],
                         input=json.dumps(payload).encode(), env=env, cwd=cwd, capture_output=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return {**json.loads(out.read_text()), "stdout": res.stdout.decode(), "stderr": res.stderr.decode()}


@pytest.mark.slow
def test_fast_paths_never_import_chromadb(installed_copy, project, isolated_home):
    home = isolated_home
    # A real learned improvement (Chroma store + digest), so SessionStart/SubagentStart read one.
    learned = subprocess.run([str(installed_copy / "venv" / "bin" / "python"), "-m", "kioku", "lessons", "learn", "--agent",
                              "main", "Run the linter before committing", "--category", "code_quality",
                              "--confidence", "0.9"], env=_env(home), cwd=project, capture_output=True, timeout=300)
    assert learned.returncode == 0, learned.stderr
    load = lambda name, **kw: {**load_hook_input(name, project, home / ".claude", home=home), **kw}  # noqa: E731
    cases = [
        ("UserPromptSubmit", load("user_prompt_submit", prompt="refactor the parser please")),
        ("UserPromptSubmit", load("user_prompt_submit")),  # a save
        ("SessionStart", load("session_start_startup")),   # with the memory just saved
        ("SubagentStart", load("subagent_start", agent_type="main")),
        ("Stop", load("stop")),
        ("SubagentStop", load("subagent_stop")),
    ]
    for script, payload in cases:
        result = _probe(installed_copy, script, payload, home, project)
        assert result["heavy"] == [], (script, result)
        assert Path(result["kioku"]).is_relative_to(installed_copy), "the installed copy's package ran"
        assert "failed open" not in result["stderr"], result["stderr"]
    assert "bun" in (project / ".agents" / "memory" / "MEMORY.md").read_text()
    prompt = _probe(installed_copy, "UserPromptSubmit", load("user_prompt_submit", prompt="run the linter",
                                                                session_id="another-session"),
                    home, project, heavy=HEAVY + PROMPT_PATH_AVOIDS)
    assert "Run the linter before committing" in prompt["stdout"]  # the lesson was selected and given
    assert prompt["heavy"] == [], prompt
    unrelated = _probe(installed_copy, "UserPromptSubmit", load("user_prompt_submit", prompt="draw a cat",
                                                                   session_id="a-third-session"),
                       home, project, heavy=HEAVY + PROMPT_WITHOUT_LESSONS_AVOIDS)
    assert unrelated["stdout"] == "" and unrelated["heavy"] == [], unrelated
    saved = _probe(installed_copy, "UserPromptSubmit", load("user_prompt_submit", session_id="a-fourth-session",
                                                             prompt="remember that the docs site builds with hugo"),
                   home, project, heavy=HEAVY + SAVE_PATH_AVOIDS)
    assert "Saved to memory" in saved["stdout"] and saved["heavy"] == [], saved
    start = _probe(installed_copy, "SessionStart", load("session_start_startup"), home, project)
    assert "Run the linter before committing" in start["stdout"] and "bun" in start["stdout"]


def test_hook_via_kioku_command(installed_copy, project, isolated_home):
    payload = load_hook_input("user_prompt_submit", project, isolated_home / ".claude", home=isolated_home)
    res = subprocess.run([str(installed_copy / "venv" / "bin" / "python"), "-m", "kioku", "hook", "UserPromptSubmit"],
                         input=json.dumps(payload).encode(), env=_env(isolated_home), cwd=project,
                         capture_output=True, timeout=60)
    assert res.returncode == 0
    assert json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"].startswith("Saved to memory")
    bad = subprocess.run([str(installed_copy / "venv" / "bin" / "python"), "-m", "kioku", "hook", "Nope"],
                         input=b"{}", env=_env(isolated_home), cwd=project, capture_output=True, timeout=60)
    # exit 2 from a hook blocks the user's prompt in Claude Code: a wrong event name is said, not fatal
    assert bad.returncode == 0 and b"unknown hook event" in bad.stderr and bad.stdout == b""
