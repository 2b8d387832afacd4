"""``kioku mcp`` over stdio, driven by the official SDK's client: the tool list, every tool, bad
arguments, resources, two clients saving at once, and clients that leave mid-call."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcp_helpers import RawServer, mcp_session, server_env

pytestmark = pytest.mark.slow


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def index_lines(project: Path) -> list[str]:
    index = project / ".agents" / "memory" / "MEMORY.md"
    if not index.exists():
        return []
    return [line for line in index.read_text(encoding="utf-8").splitlines() if line.startswith("- [")]


def test_the_sdk_client_lists_the_tools_with_schemas_and_annotations(project: Path) -> None:
    async def scenario():
        async with mcp_session(project) as session:
            listed = await session.list_tools()
            return session.initialize_result, {t.name: t for t in listed.tools}

    init, tools = run(scenario)
    assert init.server_info.name == "kioku" and "data, never instructions" in init.instructions
    assert set(tools) == {"memory_save", "memory_search", "memory_recall", "memory_forget", "lessons_for",
                          "lesson_feedback"}
    assert tools["memory_save"].input_schema["required"] == ["text"]
    assert tools["memory_save"].input_schema["properties"]["type"]["enum"] == ["user", "project", "feedback",
                                                                               "reference"]
    assert tools["memory_search"].input_schema["properties"]["limit"]["maximum"] == 50
    for name in ("memory_search", "memory_recall", "lessons_for"):
        assert tools[name].annotations.read_only_hint is True
    for name in ("memory_save", "memory_forget", "lesson_feedback"):
        assert tools[name].annotations.read_only_hint is False
    assert tools["memory_forget"].annotations.destructive_hint is True


def test_every_tool_answers_over_stdio_and_bad_calls_get_plain_errors(project: Path) -> None:
    from kioku.lessons.improvements import learn

    (lesson,) = learn("main", "Pin the Node version in .nvmrc before upgrading dependencies", "tooling", 0.9,
                      scope="project", project_root=project)

    async def scenario():
        out = {}
        async with mcp_session(project, KIOKU_HOLD_BACK="0") as session:
            async def call(name, args):
                result = await session.call_tool(name, args)
                return result.is_error, result.content[0].text

            out["save"] = await call("memory_save", {"text": "Deploys go through the staging cluster first"})
            memory_id = out["save"][1].split(", id ", 1)[1].split(",", 1)[0]
            out["search"] = await call("memory_search", {"query": "staging cluster deploys", "limit": 5})
            out["recall"] = await call("memory_recall", {})
            out["lessons"] = await call("lessons_for", {"task": "upgrade the Node dependencies"})
            out["feedback"] = await call("lesson_feedback", {"lesson_id": lesson, "verdict": "harmful",
                                                             "note": "nvm is gone from this repo"})
            out["forget"] = await call("memory_forget", {"id": memory_id})
            out["bad_type"] = await call("memory_search", {"query": ["not", "a", "string"]})
            out["missing"] = await call("memory_save", {})
            out["extra"] = await call("memory_recall", {"topic": "x", "verbose": True})
            out["unknown_id"] = await call("memory_forget", {"id": "20200101-000000-dead"})
            out["unknown_lesson"] = await call("lesson_feedback", {"lesson_id": "imp_nothere", "verdict": "helpful"})
            try:
                await session.call_tool("memory_delete", {"id": memory_id})
            except MCPError as exc:
                out["unknown_tool"] = exc.error.code, exc.error.message
            out["alive"] = await call("memory_recall", {})
        return out

    out = run(scenario)
    assert out["save"][0] is False and "Saved to memory (project memory" in out["save"][1]
    assert out["search"][0] is False and "staging cluster" in out["search"][1] and "saved 20" in out["search"][1]
    assert out["recall"][0] is False and "<kioku-memory>" in out["recall"][1]
    assert out["lessons"][0] is False and "Pin the Node version" in out["lessons"][1] and lesson in out["lessons"][1]
    assert out["feedback"][0] is False and out["feedback"][1].startswith("Deprecated lesson")
    assert out["forget"][0] is False and "archive/" in out["forget"][1]
    assert out["bad_type"] == (True, "memory_search: 'query' must be a string, not ['not', 'a', 'string']")
    assert out["missing"][0] is True and out["missing"][1].startswith("memory_save: 'text' is required")
    assert out["extra"] == (True, "memory_recall: unknown argument 'verbose'; it takes topic")
    assert out["unknown_id"] == (True, "no memory matches '20200101-000000-dead'; nothing was changed")
    assert out["unknown_lesson"] == (True, "agent 'main' has no lesson 'imp_nothere'; nothing was changed")
    code, message = out["unknown_tool"]
    assert code == -32602 and message.startswith("unknown tool 'memory_delete'")
    assert out["alive"][0] is False  # bad calls leave the server serving
    assert all("Traceback" not in str(value) for value in out.values())


def test_resources_are_the_index_and_topic_files(project: Path) -> None:
    async def scenario():
        async with mcp_session(project) as session:
            await session.call_tool("memory_save", {"text": "The API is versioned in the URL path"})
            listed = await session.list_resources()
            templates = await session.list_resource_templates()
            index = await session.read_resource("kioku://memory/project/MEMORY.md")
            try:
                await session.read_resource("kioku://memory/project/../../.git/config")
            except MCPError as exc:
                refused = exc.error.code, exc.error.message
            return listed, templates, index, refused

    listed, templates, index, refused = run(scenario)
    uris = [str(r.uri) for r in listed.resources]
    assert uris[0] == "kioku://memory/project/MEMORY.md" and len(uris) == 2
    assert templates.resource_templates[0].uri_template == "kioku://memory/{scope}/{file}"
    text = index.contents[0].text
    assert "<kioku-memory>" in text and "versioned in the URL path" in text
    assert refused[0] == -32002 and "no memory file at" in refused[1]


def test_two_clients_saving_at_once_lose_no_write(project: Path) -> None:
    per_client = 12

    async def client(tag: str, saved: list) -> None:
        async with mcp_session(project) as session:
            async def save(n: int) -> None:
                result = await session.call_tool("memory_save", {
                    "text": f"Service {tag}{n} listens on port {8000 + n} in the {tag} cluster", "topic": "ports"})
                saved.append((result.is_error, result.content[0].text))

            async with anyio.create_task_group() as group:
                for n in range(per_client):
                    group.start_soon(save, n)

    async def scenario():
        saved: list = []
        async with anyio.create_task_group() as group:
            group.start_soon(client, "alpha", saved)
            group.start_soon(client, "beta", saved)
        return saved

    saved = run(scenario)
    assert len(saved) == 2 * per_client and not [text for is_error, text in saved if is_error]
    topic = (project / ".agents" / "memory" / "ports.md").read_text(encoding="utf-8")
    lines = index_lines(project)
    for tag in ("alpha", "beta"):
        for n in range(per_client):
            assert f"Service {tag}{n} listens on port {8000 + n}" in topic
            assert sum(f"Service {tag}{n} listens" in line for line in lines) == 1


def _hold_memory_lock(project: Path) -> subprocess.Popen:
    """Another process holding the project memory folder's lock until its stdin closes."""
    folder = project / ".agents" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    code = ("import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.read()\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(folder / ".lock")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout and holder.stdout.readline().strip() == "held"
    return holder


def _wait_for_lock_waiter(lock: Path, pid: int, timeout: float = 30.0) -> None:
    """Until process ``pid`` has the lock file open (Kioku's lock keeps its descriptor open while
    it retries the flock), so the call is known to be in flight, whatever the machine's speed."""
    import os

    deadline = time.monotonic() + timeout
    fds = Path(f"/proc/{pid}/fd")
    while time.monotonic() < deadline:
        for fd in fds.iterdir():
            try:
                if os.readlink(fd) == str(lock):
                    return
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError("the server never waited for the memory folder's lock")


SAVE = {"name": "memory_save", "arguments": {"text": "The nightly build publishes to the internal registry"}}


def _saved(project: Path) -> bool:
    return any("nightly build publishes" in line for line in index_lines(project))


@pytest.mark.parametrize("leave", ["disconnect", "sigterm", "cancel"])
def test_a_client_that_leaves_mid_call_loses_nothing(project: Path, leave: str) -> None:
    """The save waits on the folder lock another process holds; meanwhile the client closes the
    connection, the server is told to stop, or the request is cancelled. Once the lock is free
    the save completes whole: topic file and index."""
    (project / ".agents" / "memory").mkdir(parents=True)
    holder = _hold_memory_lock(project)
    server = RawServer(project)
    try:
        server.initialize()
        request = server.send("tools/call", SAVE)
        _wait_for_lock_waiter(project / ".agents" / "memory" / ".lock", server.proc.pid)
        if leave == "disconnect":
            server.proc.stdin.close()
        elif leave == "sigterm":
            server.proc.send_signal(signal.SIGTERM)
        else:
            server.send("notifications/cancelled", {"requestId": request, "reason": "user pressed Esc"}, notify=True)
        time.sleep(0.5)
        assert server.proc.poll() is None, "the server must not stop while a write is in flight"
        holder.stdin.close()
        holder.wait(timeout=10)
        if leave == "cancel":
            deadline = time.monotonic() + 30
            while not _saved(project) and time.monotonic() < deadline:
                time.sleep(0.1)
            ping = server.send("ping")
            reply = server.receive()
            while reply.get("id") != ping:
                reply = server.receive()
            assert reply["result"] == {}  # still serving
            server.proc.stdin.close()
        assert server.proc.wait(timeout=30) == 0, server.proc.stderr.read()
    finally:
        for proc in (holder, server.proc):
            if proc.poll() is None:
                proc.kill()
    assert _saved(project)
    topic_files = [p for p in (project / ".agents" / "memory").glob("*.md") if p.name != "MEMORY.md"]
    assert sum("nightly build publishes" in p.read_text() for p in topic_files) == 1
    assert not list((project / ".agents" / "memory").glob("*.tmp*"))


def test_it_finds_the_project_from_its_folder_or_from_project(project: Path, tmp_path: Path) -> None:
    (project / "src" / "deep").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def save(cwd: Path, *args: str) -> str:
        async with mcp_session(cwd, *args) as session:
            return (await session.call_tool("memory_save", {"text": f"Saved from {cwd.name} {args}"})).content[0].text

    assert "(project memory, .agents/memory/" in run(save, project / "src" / "deep")
    run(save, elsewhere, "--project", str(project))
    assert len(index_lines(project)) == 2 and not (elsewhere / ".agents").exists()
    missing = subprocess.run([sys.executable, "-m", "kioku", "mcp", "--project", str(tmp_path / "nope")],
                             env=server_env(), capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no such folder" in missing.stderr and "Traceback" not in missing.stderr
