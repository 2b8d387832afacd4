"""Kioku as a Claude Code plugin, end to end with the real binary and tests/tools/mock_api.py.

One temporary HOME, one temporary git project (with a ``reviewer`` subagent), and, in order (each
step a module fixture, so a test selected alone with ``-k`` runs the steps it needs first):

1. ``claude plugin marketplace add <this checkout>`` then ``claude plugin install kioku@kioku``;
2. the first session, before Kioku's full environment exists, with ``python3`` on PATH being
   a bare interpreter (standard library only): "remember ..." is saved and confirmed, and the
   ``kioku`` command works in Claude's Bash tool;
3. the environment is prepared in the background (a detached process started by the first
   hook); ``kioku doctor`` then says it is ready and the self-evaluation queued in the first
   session has run;
4. the next session recalls the memory;
5. a subagent receives the lessons learned for it (SubagentStart);
6. ``claude plugin uninstall`` leaves memories and lessons in place.

Creating the plugin's environment would pip-install chromadb and the model from the network;
here KIOKU_PLUGIN_REUSE_SITE_PACKAGES points the new venv at this checkout's ``.venv``
site-packages instead (a .pth file, no pip). The venv, the background start, the readiness
check and the worker hand-over are the code users run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

from kioku.install.plugin_env import lock_held

from test_e2e_claude import _bodies, claude_session, find_claude

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
LESSON = "Check the CHANGELOG entry before approving a review"
REVIEWER_MD = """---
name: reviewer
description: Reviews the project's files and reports problems. Use for code review tasks.
tools: Bash, Read
---
You review the project's files and report problems briefly.
"""


class PluginWorld:
    def __init__(self, base: Path, claude_bin: str) -> None:
        self.base, self.claude_bin = base, claude_bin
        self.home = base / "home"
        self.claude_dir = self.home / ".claude"
        self.project = base / "project"
        self.pybin = base / "pybin"
        self.data_dir = self.claude_dir / "plugins" / "data" / "kioku-kioku"
        self.runs = 0

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "CLAUDE", "KIOKU_", "PYTHON", "VIRTUAL_ENV"))}
        env.update(HOME=str(self.home), CLAUDE_CONFIG_DIR=str(self.claude_dir), KIOKU_USER_HOME=str(self.home),
                   DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   KIOKU_HOLD_BACK="0",  # every eligible lesson is given; exploration has its own tests
                   PATH=f"{self.pybin}{os.pathsep}{os.environ.get('PATH', '')}",
                   KIOKU_PLUGIN_REUSE_SITE_PACKAGES=sysconfig.get_paths()["purelib"], **extra)
        return env

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.claude_bin, *args], cwd=self.project, env=self.env(),
                              capture_output=True, text=True, timeout=timeout)

    def kioku(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The plugin's own ``kioku`` command, as Claude's Bash tool finds it."""
        return subprocess.run([str(REPO / "bin" / "kioku"), *args], cwd=self.project, env=self.env(),
                              capture_output=True, text=True, timeout=300)

    def session(self, prompt: str, script: list[dict[str, Any]] | None = None,
                args: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
        self.runs += 1
        return claude_session(self.claude_bin, self.project, self.env, self.base / f"run-{self.runs}",
                              prompt, script, args)

    def wait_worker_idle(self, timeout: float = 180) -> None:
        state = self.claude_dir / "kioku" / "state"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            queued = list((state / "jobs").glob("*.json")) if (state / "jobs").is_dir() else []
            if not queued and not lock_held(str(state / "locks" / "worker.lock")):
                return
            time.sleep(0.5)
        raise AssertionError(f"the Kioku worker did not finish within {timeout:.0f}s")


def _tool_results(requests: list[dict[str, Any]]) -> str:
    return json.dumps([block for req in requests for msg in req["body"].get("messages", [])
                       if isinstance(msg.get("content"), list)
                       for block in msg["content"] if block.get("type") == "tool_result"])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> PluginWorld:
    claude_bin = find_claude()
    if not claude_bin and "KIOKU_CLAUDE_BIN" not in os.environ:
        pytest.skip("no Claude Code binary: set KIOKU_CLAUDE_BIN (bash scripts/test.sh installs it into .cache/)")
    assert claude_bin, f"KIOKU_CLAUDE_BIN={os.environ['KIOKU_CLAUDE_BIN']} does not exist"
    w = PluginWorld(tmp_path_factory.mktemp("plugin"), claude_bin)
    w.claude_dir.mkdir(parents=True)
    (w.project / ".claude" / "agents").mkdir(parents=True)
    (w.project / ".claude" / "agents" / "reviewer.md").write_text(REVIEWER_MD)
    subprocess.run(["git", "init", "-q", str(w.project)], check=True)
    # `python3` for the plugin's hooks: an interpreter with the standard library only.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(w.base / "barepy")], check=True)
    w.pybin.mkdir()
    # a wrapper, not a symlink: through a symlink Python would not find the venv's pyvenv.cfg
    (w.pybin / "python3").write_text(f'#!/bin/sh\nexec "{w.base / "barepy" / "bin" / "python"}" "$@"\n')
    (w.pybin / "python3").chmod(0o755)
    bare = subprocess.run([str(w.pybin / "python3"), "-c", "import yaml"], capture_output=True)
    assert bare.returncode != 0, "the bare python3 must not see third-party packages"
    return w


Session = tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def installed(world: PluginWorld) -> list[subprocess.CompletedProcess[str]]:
    """``claude plugin marketplace add CHECKOUT``, ``plugin install kioku@kioku``, ``plugin list``."""
    return [world.cli("plugin", "marketplace", "add", str(REPO)), world.cli("plugin", "install", "kioku@kioku"),
            world.cli("plugin", "list")]


@pytest.fixture(scope="module")
def first_session(world: PluginWorld, installed: list) -> tuple[bool, Session]:
    """The first session ("remember that we always use bun, never npm", then ``kioku recall`` in
    Bash), and whether Kioku's environment already existed when it started."""
    env_before = (world.data_dir / "venv").exists()
    script = [{"tool_use": {"name": "Bash", "input": {"command": "kioku recall",
                                                     "description": "Show what Kioku remembers"}}},
              {"text": "Noted: bun, never npm."}]
    return env_before, world.session("remember that we always use bun, never npm", script,
                                     ("--allowedTools", "Bash"))


@pytest.fixture(scope="module")
def prepared(world: PluginWorld, first_session: tuple) -> str:
    """Waits (up to 10 minutes) for the environment the first hooks started preparing; its log."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not (world.data_dir / "venv" / ".kioku-venv.json").exists():
        time.sleep(1)
    log = (world.data_dir / "prepare.log").read_text()
    assert (world.data_dir / "venv" / ".kioku-venv.json").exists(), log
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "ready:" not in log:
        time.sleep(0.5)
        log = (world.data_dir / "prepare.log").read_text()
    return log


@pytest.fixture(scope="module")
def reviewer_lesson(world: PluginWorld, prepared: str) -> subprocess.CompletedProcess[str]:
    """``kioku lessons learn`` of :data:`LESSON` for the project's reviewer agent."""
    return world.kioku("lessons", "learn", "--agent", "reviewer", LESSON, "--category", "code_quality", "--confidence", "0.9")


def test_1_marketplace_add_and_install_from_the_checkout(installed: list) -> None:
    added, install, listed = installed
    assert added.returncode == 0 and "Successfully added marketplace: kioku" in added.stdout, added.stdout + added.stderr
    assert install.returncode == 0 and "Successfully installed plugin: kioku@kioku" in install.stdout, \
        install.stdout + install.stderr
    assert "kioku@kioku" in listed.stdout and "enabled" in listed.stdout


def test_2_first_session_saves_before_the_environment_exists(world: PluginWorld, first_session: tuple) -> None:
    env_before, (proc, requests) = first_session
    assert not env_before
    assert proc.returncode == 0, proc.stderr
    index = (world.project / ".agents" / "memory" / "MEMORY.md").read_text()
    assert any(line.startswith("- [") and "never npm" in line for line in index.splitlines()), index
    bodies = _bodies(requests)
    assert "Saved to memory: " in bodies
    assert "kioku:memory-system" in bodies and "kioku:agent-memory" in bodies  # the plugin's skills
    results = _tool_results(requests)
    assert "command not found" not in results and "never npm" in results, results[:2000]
    # The Stop hook queued the self-evaluation and the first hook started the preparation.
    assert (world.data_dir / "prepare.log").exists()


def test_3_environment_prepared_in_background_and_doctor_says_ready(world: PluginWorld, prepared: str) -> None:
    assert "ready:" in prepared, prepared
    doctor = world.kioku("doctor", "--json")
    checks = {c["check"]: c for c in json.loads(doctor.stdout)}
    plugin = checks["plugin kioku@kioku"]
    assert plugin["ok"] and not plugin["warning"] and "ready" in plugin["detail"], plugin
    assert checks["dependency chromadb"]["ok"], checks["dependency chromadb"]
    world.wait_worker_idle()
    dash = world.kioku("dashboard", "--agent", "main", "--json")
    assert dash.returncode == 0, dash.stderr
    assert json.loads(dash.stdout)["total_evaluations"] >= 1


def test_4_next_session_recalls(world: PluginWorld, first_session: tuple, prepared: str) -> None:
    proc, requests = world.session("which package manager do we use?")
    assert proc.returncode == 0, proc.stderr
    bodies = _bodies(requests)
    start = bodies.index("SessionStart hook additional context")
    assert "<kioku-memory>" in bodies[start:] and "never npm" in bodies[start:]


def test_5_subagent_receives_its_lessons(world: PluginWorld, reviewer_lesson: subprocess.CompletedProcess[str]) -> None:
    assert reviewer_lesson.returncode == 0, reviewer_lesson.stderr
    script = [{"tool_use": {"name": "Agent", "input": {"description": "Review the project",
                                                      "prompt": "Review the project's files.",
                                                      "subagent_type": "reviewer"}}},
              {"text": "Nothing to report."},
              {"text": "The reviewer found nothing to report."}]
    proc, requests = world.session("Ask the reviewer agent to review the project.", script,
                                   ("--allowedTools", "Bash", "Agent"))
    assert proc.returncode == 0, proc.stderr
    with_lesson = [i for i, req in enumerate(requests) if LESSON in json.dumps(req.get("body"))]
    assert with_lesson, "the lesson never reached the model"
    first_agent_call = next(i for i, req in enumerate(requests) if '"subagent_type": "reviewer"' in
                            json.dumps(req.get("body")) or '"subagent_type":"reviewer"' in json.dumps(req.get("body")))
    assert min(with_lesson) >= first_agent_call, "the main agent must not receive the reviewer's lessons"


def test_6_uninstall_keeps_memories_and_lessons(world: PluginWorld, first_session: tuple,
                                               reviewer_lesson: subprocess.CompletedProcess[str]) -> None:
    removed = world.cli("plugin", "uninstall", "kioku@kioku")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert "kioku@kioku" not in world.cli("plugin", "list").stdout
    assert "never npm" in (world.project / ".agents" / "memory" / "MEMORY.md").read_text()
    env = world.env()
    env["PYTHONPATH"] = str(REPO / "src")
    lessons = subprocess.run([sys.executable, "-m", "kioku", "lessons", "search", "--agent", "reviewer",
                              "review the changelog before approving", "--json"], cwd=world.project, env=env,
                             capture_output=True, text=True, timeout=300)
    assert lessons.returncode == 0, lessons.stderr
    assert LESSON in lessons.stdout
