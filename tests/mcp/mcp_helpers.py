"""Helpers for the MCP tests: the real ``kioku mcp`` process, started in the test's project with
the test's home (the SDK's stdio client passes only a few variables on by default)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

REPO = Path(__file__).resolve().parents[2]
PASSED_ON = ("HOME", "KIOKU_HOME", "KIOKU_USER_HOME", "CLAUDE_CONFIG_DIR", "KIOKU_MODEL_CACHE", "KIOKU_HOLD_BACK", "PATH")


def server_env(**extra: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in PASSED_ON if k in os.environ}
    env["PYTHONPATH"] = str(REPO / "src")
    env.update(extra)
    return env


@asynccontextmanager
async def mcp_session(project: Path, *args: str, **extra_env: str) -> AsyncIterator[Any]:
    """An initialised SDK ``ClientSession`` on ``python -m kioku mcp`` run in ``project``."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "kioku", "mcp", *args],
                                   env=server_env(**extra_env), cwd=str(project))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


class RawServer:
    """``kioku mcp`` driven line by line, for what a client library hides: a client that drops
    the connection or is killed mid-call."""

    def __init__(self, project: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kioku", "mcp"], cwd=project, env=server_env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.next_id = 0

    def send(self, method: str, params: dict | None = None, notify: bool = False) -> int:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return self.next_id

    def receive(self) -> dict:
        assert self.proc.stdout
        return json.loads(self.proc.stdout.readline())

    def initialize(self) -> None:
        self.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "kioku-test", "version": "0"}})
        assert "result" in self.receive()
        self.send("notifications/initialized", notify=True)
