"""End to end with the real Claude Code binary, offline through the mock API in tests/tools/mock_api.py.

One temporary HOME / CLAUDE_CONFIG_DIR with a pre-existing settings.json (another tool's hooks),
one temporary git project, Kioku installed for real by ``install.py`` (the default isolated venv:
pip installs the dependencies), then these scenarios in order (the sessions later tests build on
are module fixtures, so a test selected alone with ``-k`` runs them first):

1. ``claude -p "remember that we always use bun, never npm"`` → the memory and its index line are
   in .agents/memory and the confirmation reached the model (request log); both skills are in the
   skill listing the client sent;
2. a second session → its SessionStart context, as the model received it, contains the memory;
3. a scripted Bash call that fails, then a different one that succeeds → an evaluation for agent
   ``main`` with the tool error counted, visible through ``kioku dashboard --agent main --json``;
4. "remember my key sk-ant-…" → nothing stored, the key is in no Kioku file;
4b. memories committed by two other people → the harmless one reaches the model with its author
   and commit, the hostile one does not until ``kioku trust`` allows it;
5. ``install.py --uninstall`` → settings.json byte-identical to before the install.

The binary comes from KIOKU_CLAUDE_BIN (scripts/test.sh always sets it, so there a missing
binary fails), else from .cache/claude-code-*/ or PATH; without any, the module is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from kioku.install.plugin_env import lock_held

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
MOCK = REPO / "tests" / "tools" / "mock_api.py"
SECRET = "sk-ant-api03-" + "T3stK3yN0tR3al_9xQ2mZ7vL4pW8sD1fG6hJ0kB5nC" + "-xyzABC12345678AA"
PRE_SETTINGS = (b'{\n  "cleanupPeriodDays": 30,\n  "hooks": {\n    "PreToolUse": [\n      {\n'
                b'        "matcher": "Bash",\n        "hooks": [{"type": "command", "command": "true", '
                b'"timeout": 5}]\n      }\n    ]\n  }\n}\n')


def find_claude() -> str | None:
    env = os.environ.get("KIOKU_CLAUDE_BIN")
    if env and Path(env).exists():
        return env
    for cand in sorted(REPO.glob(".cache/claude-code-*/node_modules/@anthropic-ai/claude-code/bin/claude.exe")):
        return str(cand)
    return shutil.which("claude")


class World:
    def __init__(self, base: Path, claude_bin: str) -> None:
        self.base, self.claude_bin = base, claude_bin
        self.home = base / "home"
        self.claude_dir = self.home / ".claude"
        self.project = base / "project"
        self.kioku = self.claude_dir / "kioku" / "bin" / "kioku"
        self.runs = 0

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "CLAUDE", "KIOKU_", "PYTHON", "VIRTUAL_ENV"))}
        env.update(HOME=str(self.home), CLAUDE_CONFIG_DIR=str(self.claude_dir), KIOKU_USER_HOME=str(self.home),
                   DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   KIOKU_HOLD_BACK="0",  # every eligible lesson is given; exploration has its own tests
                   **extra)
        return env

    def claude(self, prompt: str, script: list[dict[str, Any]] | None = None,
               args: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
        """One ``claude -p`` session against a fresh mock; returns the process and the request log."""
        self.runs += 1
        return claude_session(self.claude_bin, self.project, self.env, self.base / f"run-{self.runs}",
                              prompt, script, args)

    def kioku_cmd(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.kioku), *args], cwd=self.project, env=self.env(),
                              capture_output=True, text=True, timeout=180)

    def wait_worker_idle(self, timeout: float = 120) -> None:
        """Until the hook job queue is empty and no detached worker holds its lock."""
        state = self.claude_dir / "kioku" / "state"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            queued = list((state / "jobs").glob("*.json")) if (state / "jobs").is_dir() else []
            if not queued and not lock_held(str(state / "locks" / "worker.lock")):
                return
            time.sleep(0.5)
        raise AssertionError(f"the Kioku worker did not finish within {timeout:.0f}s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("mock API did not start")



def claude_session(claude_bin: str, project: Path, env: Callable[..., dict[str, str]], files: Path, prompt: str,
                   script: list[dict[str, Any]] | None = None, args: tuple[str, ...] = (),
                   ) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """``claude -p PROMPT`` in ``project`` against a fresh mock API that answers from ``script``;
    the request log and script live under ``files``. Returns the process and the requests."""
    files.mkdir(parents=True, exist_ok=True)
    log = files / "requests.jsonl"
    script_file = files / "script.json"
    script_file.write_text(json.dumps(script or []))
    port = _free_port()
    mock = subprocess.Popen([sys.executable, str(MOCK), "--port", str(port), "--log", str(log),
                             "--script", str(script_file)])
    try:
        _wait_port(port)
        run_env = env(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="sk-ant-test")
        proc = subprocess.run([claude_bin, "-p", prompt, *args], cwd=project, env=run_env,
                              capture_output=True, text=True, timeout=180)
    finally:
        mock.terminate()
        mock.wait(timeout=10)
    requests = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return proc, requests

def _bodies(requests: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(r.get("body"), ensure_ascii=False) for r in requests
                     if "/messages" in r.get("path", ""))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    claude_bin = find_claude()
    if not claude_bin and "KIOKU_CLAUDE_BIN" not in os.environ:
        pytest.skip("no Claude Code binary: set KIOKU_CLAUDE_BIN (bash scripts/test.sh installs it into .cache/)")
    assert claude_bin, f"KIOKU_CLAUDE_BIN={os.environ['KIOKU_CLAUDE_BIN']} does not exist"
    w = World(tmp_path_factory.mktemp("e2e"), claude_bin)
    w.claude_dir.mkdir(parents=True)
    (w.claude_dir / "settings.json").write_bytes(PRE_SETTINGS)
    w.project.mkdir()
    subprocess.run(["git", "init", "-q", str(w.project)], check=True)
    # The default, isolated install (pip into Kioku's own venv); pip's cache is kept in .cache/.
    env = w.env(PIP_CACHE_DIR=str(REPO / ".cache" / "pip"))
    res = subprocess.run([sys.executable, str(REPO / "install.py")], env=env, capture_output=True,
                         text=True, timeout=1200)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    venv_cfg = (w.claude_dir / "kioku" / "venv" / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in venv_cfg
    return w


Session = tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def remembered(world: World) -> Session:
    """The session that says "remember that we always use bun, never npm": the later sessions
    recall it, search it, and check that uninstalling keeps it. A fixture, so any test can run alone."""
    return world.claude("remember that we always use bun, never npm")


@pytest.fixture(scope="module")
def failed_then_fixed(world: World) -> Session:
    """A session whose first Bash call fails and whose second, different one succeeds; the
    worker has evaluated it when this returns."""
    script = [
        {"tool_use": {"name": "Bash", "input": {"command": "ls /nonexistent-kioku-e2e-dir",
                                                 "description": "List the build folder"}}},
        {"tool_use": {"name": "Bash", "input": {"command": "mkdir -p build && ls build",
                                                 "description": "Create it, then list it"}}},
        {"text": "The folder did not exist, so I created it; it is empty."},
    ]
    session = world.claude("list the build folder", script, ("--allowedTools", "Bash"))
    world.wait_worker_idle()
    return session


def test_1_remember_saves_and_confirmation_reaches_model(world: World, remembered: Session):
    proc, requests = remembered
    assert proc.returncode == 0, proc.stderr
    index = (world.project / ".agents" / "memory" / "MEMORY.md").read_text()
    assert any(line.startswith("- [") and "bun" in line and "→" in line for line in index.splitlines()), index
    bodies = _bodies(requests)
    assert "Saved to memory: " in bodies
    assert "must not be saved again to auto memory" in bodies
    # Both skills are in the skill listing the client sends to the model.
    assert "memory-system" in bodies and "agent-memory" in bodies


def test_2_second_session_recalls_the_memory(world: World, remembered: Session):
    proc, requests = world.claude("which package manager do we use?")
    assert proc.returncode == 0, proc.stderr
    bodies = _bodies(requests)
    assert "SessionStart hook additional context" in bodies
    start = bodies.index("SessionStart hook additional context")
    assert "<kioku-memory>" in bodies[start:] and "never npm" in bodies[start:]


def test_2b_skill_commands_run_as_written_in_bash(world: World, remembered: Session):
    """`kioku ...` as the skills write it works in Claude's Bash tool (PATH set via CLAUDE_ENV_FILE)."""
    script = [
        {"tool_use": {"name": "Bash", "input": {"command": "kioku search bun",
                                                 "description": "Search Kioku memory"}}},
        {"text": "We use bun."},
    ]
    proc, requests = world.claude("what do you remember about bun?", script, ("--allowedTools", "Bash"))
    assert proc.returncode == 0, proc.stderr
    results = [block for req in requests for msg in req["body"].get("messages", [])
               if isinstance(msg.get("content"), list)
               for block in msg["content"] if block.get("type") == "tool_result"]
    assert results, "the scripted Bash call never ran"
    text = json.dumps(results)
    assert "command not found" not in text and "never npm" in text, text[:2000]


def test_3_failed_then_different_bash_call_is_evaluated(world: World, failed_then_fixed: Session):
    proc, requests = failed_then_fixed
    assert proc.returncode == 0, proc.stderr
    assert '"is_error": true' in _bodies(requests)  # the failing call really failed
    dash = world.kioku_cmd("dashboard", "--agent", "main", "--json")
    assert dash.returncode == 0, dash.stderr
    assert json.loads(dash.stdout)["total_evaluations"] >= 1
    out = world.base / "main-export.json"
    exported = world.kioku_cmd("lessons", "export", "--agent", "main", "--format", "json", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    evaluations = json.loads(out.read_text())["evaluations"]
    assert any(e["metadata"].get("tool_errors", 0) >= 1 and e["metadata"].get("agent_name") == "main"
               for e in evaluations), [e["metadata"] for e in evaluations]


def test_3b_dashboard_shows_the_counted_tool_error(world: World, failed_then_fixed: Session):
    data = json.loads(world.kioku_cmd("dashboard", "--agent", "main", "--json").stdout)
    errors = _find_numbers(data, "tool_error")
    assert errors, f"dashboard JSON exposes no tool-error figure: {sorted(data)}"
    assert max(errors) >= 1, data


def _find_numbers(obj: Any, needle: str) -> list[float]:
    found: list[float] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            if needle in str(key) and isinstance(value, (int, float)) and not isinstance(value, bool):
                found.append(float(value))
            found += _find_numbers(value, needle)
    elif isinstance(obj, list):
        for value in obj:
            found += _find_numbers(value, needle)
    return found


def test_4_secret_is_not_stored_anywhere(world: World, remembered: Session):
    index_before = (world.project / ".agents" / "memory" / "MEMORY.md").read_text()
    proc, requests = world.claude(f"remember my key {SECRET}")
    assert proc.returncode == 0, proc.stderr
    assert "did NOT save" in _bodies(requests)
    world.wait_worker_idle()  # the Stop job for this session has been evaluated too
    assert (world.project / ".agents" / "memory" / "MEMORY.md").read_text() == index_before
    # Claude Code's own transcripts/history hold the prompt; Kioku's files must not.
    kioku_roots = [world.claude_dir / "kioku", world.claude_dir / "chroma_data",
                   world.claude_dir / "chroma_data.kioku-journal", world.claude_dir / "skills",
                   world.project / ".agents", world.project / ".claude", world.home / ".agents"]
    leaks = []
    for root in kioku_roots:
        if not root.exists():
            continue
        grep = subprocess.run(["grep", "-rlF", "--", SECRET[:40], str(root)], capture_output=True, text=True)
        leaks += grep.stdout.split()
    assert leaks == []


def test_4b_a_hostile_memory_from_a_clone_never_reaches_the_model(world: World, remembered: Session,
                                                                   tmp_path: Path):
    from provenance_support import HOSTILE, shared_by

    alice = shared_by(world.project, tmp_path, "Alice", "The API docs are written in British English")
    shared_by(world.project, tmp_path, "Mallory", HOSTILE)
    proc, requests = world.claude("which spelling do the API docs use?")
    assert proc.returncode == 0, proc.stderr
    bodies = _bodies(requests)
    start = bodies.index("SessionStart hook additional context")
    line = next(part for part in bodies[start:].split("\\n") if "British English" in part)
    assert line.endswith(f"(from git: Alice, {alice[:7]})"), line
    assert "never npm" in bodies[start:]  # saved on this machine: as before, no provenance
    assert "evil.example" not in bodies and "1 project memory not written on this machine was withheld" in bodies
    listed = world.kioku_cmd("trust", "--json")
    entry_id = json.loads(listed.stdout)[0]["id"]
    assert world.kioku_cmd("trust", entry_id).returncode == 0
    proc, requests = world.claude("hello again")
    bodies = _bodies(requests)
    assert "evil.example/x.sh" in bodies[bodies.index("SessionStart hook additional context"):]
    assert world.kioku_cmd("trust", "--revoke", entry_id).returncode == 0


def test_5_uninstall_restores_settings_byte_for_byte(world: World, remembered: Session):
    res = subprocess.run([sys.executable, str(REPO / "install.py"), "--uninstall"], env=world.env(),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert (world.claude_dir / "settings.json").read_bytes() == PRE_SETTINGS
    assert not (world.claude_dir / "kioku" / "venv").exists()
    assert not (world.claude_dir / "skills" / "memory-system").exists()
    assert "never npm" in (world.project / ".agents" / "memory" / "MEMORY.md").read_text()
