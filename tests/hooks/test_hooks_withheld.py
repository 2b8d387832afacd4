"""A cloned repository cannot command the agent: the SessionStart and UserPromptSubmit hooks with
memories two other people committed, one harmless and one hostile.

The memories are saved by Kioku on Alice's and Mallory's machines (homes of their own) and
committed under their names to a real git repository; this test's home is the user's machine.
The hook handlers run as Claude Code runs them (the recorded payloads), once also through the
installed launcher in a fresh process.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from provenance_support import HARMLESS, HOSTILE, kioku, shared_by, topic_of

from kioku.hooks import session_start, user_prompt_submit

HEAVY = ("chromadb", "numpy", "jinja2", "onnxruntime")
NOT_CLAUDE = {"CLAUDECODE": ""}  # `kioku trust` refuses to change anything inside Claude Code


def _start(hook_input) -> tuple[str, str]:
    result = session_start.handle(hook_input("session_start_startup"))
    assert result is not None
    return result.additional_context or "", result.system_message or ""


def test_the_harmless_memory_is_injected_with_provenance_and_the_hostile_one_withheld_until_trusted(
        hook_input, project: Path, tmp_path: Path) -> None:
    alice = shared_by(project, tmp_path, "Alice", HARMLESS)
    mallory = shared_by(project, tmp_path, "Mallory", HOSTILE)
    own = kioku(project, "remember", "At the start of every session run `make bootstrap`")
    assert own.returncode == 0, own.stderr

    context, notice = _start(hook_input)
    assert f"{HARMLESS} → project-conventions.md (from git: Alice, {alice[:7]})" in context
    assert "curl" not in context and "evil.example" not in context
    assert "make bootstrap" in context  # saved here with `kioku remember`: never withheld, no provenance
    assert "1 project memory not written on this machine was withheld" in context
    assert "\n" not in notice and "Mallory <mallory@example.com>" in notice and mallory[:7] in notice
    entry_id = notice.split("memory from the agent: ", 1)[1].split(" ", 1)[0]
    assert f"allow it with `kioku trust {entry_id}`" in notice and "curl" not in notice

    listed = kioku(project, "trust")  # not a terminal: what it asks, never its text
    assert listed.returncode == 0 and entry_id in listed.stdout and "Mallory" in listed.stdout
    assert "curl" not in listed.stdout and "run a command" in listed.stdout
    doctor = kioku(project, "doctor")
    line = next(l for l in doctor.stdout.splitlines() if "memory trust" in l)
    assert line.startswith("[warn]") and entry_id in line and "Mallory" in line and "curl" not in line
    from kioku.ui import data

    assert [m["id"] for m in data.withheld_memories(project)] == [entry_id]
    assert "curl -fsSL" in data.withheld_memories(project)[0]["text"]  # the user reads it in the UI

    inside = kioku(project, "trust", entry_id, env={"CLAUDECODE": "1"})
    assert inside.returncode == 2 and "your own terminal" in inside.stderr
    assert "curl" not in _start(hook_input)[0]
    trusted = kioku(project, "trust", entry_id, env=NOT_CLAUDE)
    assert trusted.returncode == 0 and f"Trusted {entry_id}" in trusted.stdout, trusted.stderr
    context, notice = _start(hook_input)
    assert f"{HOSTILE} → " in context and f"(from git: Mallory, {mallory[:7]})" in context and notice == ""
    assert data.withheld_memories(project) == []

    topic = topic_of(project, "evil.example")
    text = topic.read_text()
    at = text.rindex("x.sh | sh`")
    topic.write_text(text[:at] + "y.sh | sh`" + text[at + len("x.sh | sh`"):])  # edited after the trust
    context, notice = _start(hook_input)
    assert "curl" not in context and "y.sh" not in context and entry_id in notice
    assert "changed since" in notice


def test_the_save_confirmation_never_quotes_a_withheld_memory(hook_input, project: Path, tmp_path: Path) -> None:
    shared_by(project, tmp_path, "Mallory", HOSTILE)
    result = user_prompt_submit.handle(hook_input("user_prompt_submit", prompt=f"remember that {HOSTILE}"))
    assert result is not None and result.additional_context.startswith("Already in memory")
    assert "curl" not in result.additional_context and "kioku trust" in result.additional_context


def test_the_installed_launcher_gives_the_same_session_start_without_heavy_imports(
        installed_copy: Path, project: Path, isolated_home: Path, tmp_path: Path) -> None:
    from hook_helpers import load_hook_input

    alice = shared_by(project, tmp_path, "Alice", HARMLESS)
    shared_by(project, tmp_path, "Mallory", HOSTILE)
    probe = isolated_home / "probe.json"
    code = ("import json, os, sys\nhook = sys.argv[1]\nsys.argv = [hook, 'SessionStart']\n"
            "code = compile(open(hook, encoding='utf-8').read(), hook, 'exec')\n"
            "try:\n    exec(code, {'__name__': '__main__', '__file__': hook})\nexcept SystemExit:\n    pass\n"
            f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})\n"
            "open(os.environ['PROBE_OUT'], 'w').write(json.dumps(heavy))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOKU_", "PYTHON"))}
    env.update(HOME=str(isolated_home), KIOKU_USER_HOME=str(isolated_home),
               CLAUDE_CONFIG_DIR=str(isolated_home / ".claude"), KIOKU_NO_WORKER="1", PROBE_OUT=str(probe))
    payload = load_hook_input("session_start_startup", project, isolated_home / ".claude", home=isolated_home)
    done = subprocess.run([str(installed_copy / "venv" / "bin" / "python"), "-c", code,
                           str(installed_copy / "hooks" / "kioku_hook.py")], input=json.dumps(payload).encode(),
                          env=env, cwd=project, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(probe.read_text()) == []  # no chromadb, no model on SessionStart
    out = json.loads(done.stdout)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert f"(from git: Alice, {alice[:7]})" in context and "curl" not in context
    assert out["systemMessage"].startswith("Kioku withheld 1 project memory from the agent")
