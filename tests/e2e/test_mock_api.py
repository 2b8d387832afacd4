"""The project's mock Anthropic API (tests/tools/mock_api.py) speaks the Messages protocol."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

MOCK = Path(__file__).resolve().parents[1] / "tools" / "mock_api.py"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    script = [{"tool_use": {"name": "Bash", "input": {"command": "ls"}}},
              {"text": "All done.", "usage": {"input_tokens": 42, "output_tokens": 7}},
              {"content": [{"type": "text", "text": "Let me look."},
                           {"type": "tool_use", "name": "Read", "input": {"file_path": "a.txt"}}]}]
    (tmp_path / "script.json").write_text(json.dumps(script))
    log = tmp_path / "requests.jsonl"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(MOCK), "--port", str(port), "--log", str(log),
                             "--script", str(tmp_path / "script.json"), "--reply", "Fallback."])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _post(url: str, body: dict[str, Any]) -> tuple[str, bytes]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers.get("content-type", ""), resp.read()


def _events(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: "):]) for line in raw.decode().splitlines() if line.startswith("data: ")]


def test_scripted_turns_streamed_and_plain_then_the_fallback_reply(server: tuple[str, Path]) -> None:
    base, log = server
    kind, raw = _post(f"{base}/v1/messages", {"model": "claude-x", "stream": True, "messages": []})
    assert kind.startswith("text/event-stream")
    events = _events(raw)
    assert [e["type"] for e in events] == ["message_start", "content_block_start", "content_block_delta",
                                           "content_block_stop", "message_delta", "message_stop"]
    assert events[1]["content_block"]["name"] == "Bash"
    assert json.loads(events[2]["delta"]["partial_json"]) == {"command": "ls"}
    assert events[4]["delta"]["stop_reason"] == "tool_use"

    kind, raw = _post(f"{base}/v1/messages?beta=true", {"model": "claude-x", "messages": []})
    message = json.loads(raw)
    assert kind == "application/json"
    assert message["content"] == [{"type": "text", "text": "All done."}]
    assert message["stop_reason"] == "end_turn" and message["model"] == "claude-x"
    assert message["usage"]["input_tokens"] == 42 and message["usage"]["output_tokens"] == 7

    _, raw = _post(f"{base}/v1/messages", {"model": "m", "stream": True, "messages": []})
    events = _events(raw)
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert [b["type"] for b in starts] == ["text", "tool_use"]
    assert events[-2]["delta"]["stop_reason"] == "tool_use"

    _, raw = _post(f"{base}/v1/messages", {"model": "m", "messages": []})
    assert json.loads(raw)["content"][0]["text"] == "Fallback."

    _, raw = _post(f"{base}/v1/messages/count_tokens", {"messages": [{"role": "user", "content": "hi"}]})
    assert json.loads(raw)["input_tokens"] >= 1

    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["seq"] for entry in logged] == [1, 2, 3, 4, 5]
    assert logged[0]["body"]["stream"] is True and logged[1]["path"] == "/v1/messages?beta=true"
