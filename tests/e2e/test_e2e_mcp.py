"""``kioku mcp`` inside the pinned real Claude Code binary, offline (tests/tools/mock_api.py).

The plugin (module fixtures, in order, each building on the one before):

1. ``claude plugin marketplace add <this checkout>`` and ``plugin install kioku@kioku``;
2. a first session, before Kioku's environment exists (``python3`` is a bare interpreter): the
   hooks and the plugin's MCP server start preparing it in the background (the venv sees this
   checkout's site-packages: no pip), the session goes on; then ``claude mcp list`` shows the
   server connected;
3. a memory saved with the plugin's ``kioku remember`` and a lesson with ``kioku learn``;
4. a session whose request log shows the tools the binary offers (MCP tools are deferred: listed
   by name, their schemas loaded through ToolSearch): the tools' names are read from there,
   never assumed;
5. a session where the scripted model loads the search tool and ``lessons_for`` with ToolSearch
   and calls them: the tool results the binary sends back hold the saved memory, fenced, and the
   lesson; the session's ledger records what ``lessons_for`` showed (the server knew the session
   from Claude Code).

The sessions set ``CLAUDE_CODE_MCP_STARTUP_WAIT_MS``, so the binary waits for the server before
its first request even on a loaded machine (otherwise a session may start while the server is
still connecting, and its tools arrive a little later).

install.py: a user install is listed by ``claude mcp list`` as connected, a project install too
(once project servers are allowed), and after uninstalling neither is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from test_e2e_claude import find_claude
from test_e2e_plugin import PluginWorld

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
MEMORY = "The release train leaves every second Tuesday at noon"
LESSON = "Tag the release only after the changelog lists every merged pull request"


def _claude_bin() -> str:
    claude_bin = find_claude()
    if not claude_bin and "KIOKU_CLAUDE_BIN" not in os.environ:
        pytest.skip("no Claude Code binary: set KIOKU_CLAUDE_BIN (bash scripts/test.sh installs it into .cache/)")
    assert claude_bin, f"KIOKU_CLAUDE_BIN={os.environ['KIOKU_CLAUDE_BIN']} does not exist"
    return claude_bin


class McpWorld(PluginWorld):
    def env(self, **extra: str) -> dict[str, str]:
        return super().env(CLAUDE_CODE_MCP_STARTUP_WAIT_MS="120000", **extra)


def _offered_tools(requests: list[dict[str, Any]]) -> list[str]:
    """Every tool name the binary offered the model: the request's tools, and the deferred ones it
    lists by name (in a system message)."""
    import re

    names: set[str] = set()
    for req in requests:
        if "/messages" not in req.get("path", "") or not isinstance(req.get("body"), dict):
            continue
        names |= {tool.get("name", "") for tool in req["body"].get("tools") or [] if isinstance(tool, dict)}
        system = json.dumps(req["body"].get("system", "")) + json.dumps(req["body"].get("messages", []))
        deferred = system.split("deferred tools are now available via ToolSearch", 1)[1:]
        if deferred:
            names |= set(re.findall(r"\\n(mcp__[A-Za-z0-9_-]+)", deferred[0].split("\\n\\n", 1)[0]))
    return sorted(names)


def _tool_results(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for req in requests:
        for msg in req["body"].get("messages", []) if isinstance(req.get("body"), dict) else []:
            if isinstance(msg.get("content"), list):
                for block in msg["content"]:
                    if block.get("type") == "tool_result":
                        seen[block["tool_use_id"]] = block
    return list(seen.values())


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> PluginWorld:
    w = McpWorld(tmp_path_factory.mktemp("mcp-plugin"), _claude_bin())
    w.claude_dir.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(w.project)], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(w.base / "barepy")], check=True)
    w.pybin.mkdir()
    (w.pybin / "python3").write_text(f'#!/bin/sh\nexec "{w.base / "barepy" / "bin" / "python"}" "$@"\n')
    (w.pybin / "python3").chmod(0o755)
    return w


@pytest.fixture(scope="module")
def installed(world: PluginWorld) -> list[subprocess.CompletedProcess[str]]:
    return [world.cli("plugin", "marketplace", "add", str(REPO)), world.cli("plugin", "install", "kioku@kioku")]


@pytest.fixture(scope="module")
def first_session(world: PluginWorld, installed: list) -> subprocess.CompletedProcess[str]:
    proc, _requests = world.session("hello")
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not (world.data_dir / "venv" / ".kioku-venv.json").exists():
        time.sleep(1)
    deadline = time.monotonic() + 60
    log = world.data_dir / "prepare.log"
    while time.monotonic() < deadline and "ready:" not in (log.read_text() if log.exists() else ""):
        time.sleep(0.5)
    return proc


@pytest.fixture(scope="module")
def stored(world: PluginWorld, first_session: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    saved = world.kioku("remember", MEMORY, "--type", "project", "--json")
    assert saved.returncode == 0, saved.stderr
    learned = world.kioku("learn", "--agent", "main", LESSON, "--category", "release", "--confidence", "0.9",
                          "--scope", "project")
    assert learned.returncode == 0, learned.stderr
    world.wait_worker_idle()
    return json.loads(saved.stdout)["id"], learned.stdout


@pytest.fixture(scope="module")
def offered(world: PluginWorld, stored: tuple[str, str]) -> list[str]:
    proc, requests = world.session("Which tools do you have?")
    assert proc.returncode == 0, proc.stderr
    return _offered_tools(requests)


def _named(tools: list[str], suffix: str) -> str:
    found = [name for name in tools if name.startswith("mcp__") and name.endswith(suffix)]
    assert len(found) == 1, tools
    return found[0]


@pytest.fixture(scope="module")
def tool_session(world: PluginWorld, offered: list[str]) -> tuple[subprocess.CompletedProcess[str], list]:
    search, lessons = _named(offered, "__memory_search"), _named(offered, "__lessons_for")
    script = [{"tool_use": {"name": "ToolSearch", "input": {"query": f"select:{search},{lessons}"}}},
              {"tool_use": {"name": search, "input": {"query": "when does the release train leave"}}},
              {"tool_use": {"name": lessons, "input": {"task": "tag the release and update the changelog"}}},
              {"text": "The release train leaves every second Tuesday."}]
    return world.session("When does the release train leave? Then tag the release and update the changelog.",
                         script, ("--allowedTools", search, lessons))


def test_1_the_plugin_installs(installed: list) -> None:
    added, install = installed
    assert added.returncode == 0 and install.returncode == 0, install.stdout + install.stderr


def test_2_before_the_environment_exists_the_session_goes_on_and_the_environment_gets_ready(
        world: PluginWorld, first_session: subprocess.CompletedProcess[str]) -> None:
    assert first_session.returncode == 0, first_session.stderr
    assert "ready:" in (world.data_dir / "prepare.log").read_text()
    # (listed only now: `claude mcp list` marks a server that fails its health check as needing
    # sign-in, and sessions then skip it for a while)
    listed = world.cli("mcp", "list", timeout=180)
    line = next((row for row in listed.stdout.splitlines() if row.startswith("plugin:kioku:kioku: ")), "")
    assert line.startswith(f"plugin:kioku:kioku: {REPO / 'bin' / 'kioku'} mcp") and "Connected" in line, listed.stdout


def test_3_the_binary_offers_every_kioku_tool(offered: list[str]) -> None:
    for tool in ("memory_save", "memory_search", "memory_recall", "memory_forget", "lessons_for", "lesson_feedback"):
        assert _named(offered, f"__{tool}")


def test_4_the_search_tool_result_holds_the_saved_memory(tool_session, stored: tuple[str, str]) -> None:
    proc, requests = tool_session
    assert proc.returncode == 0, proc.stderr
    results = _tool_results(requests)
    assert len(results) == 3, json.dumps(results)[:3000]
    results = results[1:]  # after ToolSearch's
    search, lessons = (_result_text(block) for block in results)
    assert not results[0].get("is_error"), search
    assert MEMORY in search and "<kioku-memory>" in search and f"[id {stored[0]}]" in search
    assert "(project memory, .agents/memory/" in search
    assert not results[1].get("is_error"), lessons
    assert LESSON in lessons and '<kioku-learned-improvements agent="main">' in lessons


def test_5_the_session_ledger_records_what_lessons_for_showed(world: PluginWorld, tool_session) -> None:
    sessions = world.claude_dir / "kioku" / "state" / "sessions"
    ledgers = [json.loads(p.read_text()) for p in sessions.rglob("*.json")
               if p.is_file() and '"agents"' in p.read_text(errors="replace")]
    shown = [ledger for ledger in ledgers if ledger.get("agents", {}).get("main", {}).get("shown")]
    assert len(shown) == 1, ledgers
    # the same session the hooks recorded turns for: Claude Code told the server which one
    assert shown[0]["agents"]["main"].get("turns"), shown[0]


# --------------------------------------------------------------------------- install.py

def _mcp_list(claude_bin: str, home: Path, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE", "KIOKU_", "PYTHON"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), KIOKU_USER_HOME=str(home),
               DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    done = subprocess.run([claude_bin, "mcp", "list"], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    return done.stdout + done.stderr


def _install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "KIOKU_"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), KIOKU_USER_HOME=str(home))
    return subprocess.run([sys.executable, str(REPO / "install.py"), "--reuse-site-packages", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def _kioku_line(listing: str) -> str:
    return next((line for line in listing.splitlines() if line.startswith("kioku: ")), "")


def test_install_py_registers_the_server_the_binary_connects_to_and_removes_it(tmp_path: Path) -> None:
    claude_bin = _claude_bin()
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert _install(home).returncode == 0
    line = _kioku_line(_mcp_list(claude_bin, home, project))
    assert line.startswith(f"kioku: {home / '.claude' / 'kioku' / 'bin' / 'kioku'} mcp") and "Connected" in line, line
    assert _install(home, "--uninstall").returncode == 0
    assert _kioku_line(_mcp_list(claude_bin, home, project)) == ""

    assert _install(home, "--project", str(project)).returncode == 0
    pending = _kioku_line(_mcp_list(claude_bin, home, project))
    assert pending.startswith("kioku: sh -c") and "Pending approval" in pending, pending
    # once the user allows the project's servers, it starts from a subfolder too
    (home / ".claude" / "settings.json").write_text('{"enableAllProjectMcpServers": true}\n')
    (project / "src").mkdir()
    connected = _kioku_line(_mcp_list(claude_bin, home, project / "src"))
    assert "Connected" in connected, connected
    assert _install(home, "--uninstall", "--project", str(project)).returncode == 0
    assert _kioku_line(_mcp_list(claude_bin, home, project)) == "" and not (project / ".mcp.json").exists()
