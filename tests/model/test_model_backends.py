"""The backends: a local command, the claude CLI's output, and the anthropic SDK against the mock API."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from mock_running import MockServer  # noqa: E402

from kioku.model import anthropic_api, claude_cli, command  # noqa: E402
from kioku.model.request import (CallCapReached, ModelOutputError, ModelRequest,  # noqa: E402
                                 ModelUnavailable, parse_json_text)
from kioku.model.settings import ModelSettings  # noqa: E402

SCHEMA = {"type": "object", "required": ["turns"], "properties": {"turns": {"type": "array"}}}
REQUEST = ModelRequest(purpose="judge", system="You judge.", prompt="Judge t1.", schema=SCHEMA)


def _script(tmp_path: Path, body: str) -> tuple[str, ...]:
    path = tmp_path / "model.py"
    path.write_text(body, encoding="utf-8")
    return (sys.executable, str(path))


def test_a_command_reads_the_request_on_stdin_and_prints_the_answer(tmp_path: Path) -> None:
    argv = _script(tmp_path, "import json, os, sys\n"
                             "text = sys.stdin.read()\n"
                             "print(json.dumps({'turns': [], 'saw': 'Judge t1.' in text and 'JSON schema' in text,\n"
                             "                  'nested': os.environ.get('KIOKU_NESTED_RUN')}))\n")
    reply = command.complete(REQUEST, ModelSettings(backend="command", command=argv))
    assert reply.json() == {"turns": [], "saw": True, "nested": "1"}


def test_a_command_that_fails_is_a_transient_error(tmp_path: Path) -> None:
    argv = _script(tmp_path, "import sys; sys.stderr.write('model busy'); sys.exit(3)\n")
    with pytest.raises(ModelUnavailable, match="exited with code 3: model busy") as caught:
        command.complete(REQUEST, ModelSettings(backend="command", command=argv))
    assert caught.value.transient


def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    argv = _script(tmp_path, "import subprocess, sys, time\n"
                             f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                             f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
                             "time.sleep(60)\n")
    with pytest.raises(ModelUnavailable, match="no answer within 2s") as caught:
        command.complete(REQUEST, ModelSettings(backend="command", command=argv, timeout_s=2))
    assert caught.value.transient
    child = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the command's child process outlived the timeout")


def _cli_output(**fields) -> str:
    base = {"type": "result", "subtype": "success", "is_error": False, "result": "", "total_cost_usd": 0.0021,
            "usage": {"input_tokens": 900, "cache_read_input_tokens": 100, "output_tokens": 50},
            "modelUsage": {"claude-haiku-x": {}}, "structured_output": {"turns": []}}
    base.update(fields)
    return json.dumps(base)


def test_the_cli_output_gives_the_structured_answer_its_cost_and_tokens() -> None:
    reply = claude_cli.parse_output(0, _cli_output(), "", "haiku")
    assert reply.json() == {"turns": []} and reply.cost_usd == 0.0021
    assert (reply.input_tokens, reply.output_tokens, reply.model) == (1000, 50, "claude-haiku-x")


@pytest.mark.parametrize("fields,error,transient", [
    ({"is_error": True, "subtype": "error_max_budget_usd"}, CallCapReached, None),
    ({"is_error": True, "subtype": "error_during_execution", "api_error_status": 429, "result": "rate limit"},
     ModelUnavailable, True),
    ({"is_error": True, "subtype": "error_during_execution", "api_error_status": 401, "result": "Invalid API key"},
     ModelUnavailable, False),
    ({"structured_output": None, "result": ""}, ModelOutputError, None),
])
def test_the_cli_outcomes_are_told_apart(fields: dict, error: type, transient: bool | None) -> None:
    with pytest.raises(error) as caught:
        claude_cli.parse_output(0, _cli_output(**fields), "", "haiku")
    if transient is not None:
        assert caught.value.transient is transient


def test_a_cli_that_prints_no_json_is_unavailable() -> None:
    with pytest.raises(ModelUnavailable, match="Please run /login") as caught:
        claude_cli.parse_output(1, "", "Not logged in. Please run /login", "haiku")
    assert caught.value.transient is False


def test_the_cli_run_carries_every_switch_that_keeps_it_bare(tmp_path: Path) -> None:
    args = claude_cli.argv("/bin/claude", REQUEST, ModelSettings(max_usd_per_call=0.05), safe_mode=True)
    assert args[:3] == ["/bin/claude", "-p", "--safe-mode"]
    joined = " ".join(args)
    for switch in ('--settings {"disableAllHooks": true}', "--strict-mcp-config", "--no-session-persistence",
                   "--output-format json", "--model haiku", "--system-prompt You judge.", "--max-budget-usd 0.05"):
        assert switch in joined
    assert args[args.index("--tools") + 1] == "" and json.loads(args[args.index("--json-schema") + 1]) == SCHEMA


def test_json_is_found_in_a_fenced_or_chatty_reply() -> None:
    assert parse_json_text('Here it is:\n```json\n{"turns": [1]}\n```') == {"turns": [1]}
    assert parse_json_text('Sure! {"turns": []} Hope that helps.') == {"turns": []}
    with pytest.raises(ModelOutputError, match="not JSON"):
        parse_json_text("I cannot help with that.")


def test_the_anthropic_backend_against_the_mock_api(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is part of the test dependencies")
    script = [{"tool_use": {"name": "answer", "input": {"turns": [{"id": "t1"}]}}, "usage": {"input_tokens": 321}}]
    with MockServer(tmp_path / "mock", script) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        reply = anthropic_api.complete(REQUEST, ModelSettings(backend="anthropic"))
        [body] = mock.requests()
    assert reply.json() == {"turns": [{"id": "t1"}]} and reply.input_tokens == 321
    assert body["model"] == "claude-haiku-4-5" and body["system"] == "You judge."
    assert body["tool_choice"] == {"type": "tool", "name": "answer"} and body["tools"][0]["input_schema"] == SCHEMA


def test_the_anthropic_backend_without_a_key_is_unavailable(monkeypatch) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is part of the test dependencies")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelUnavailable, match="ANTHROPIC_API_KEY is not set"):
        anthropic_api.complete(REQUEST, ModelSettings(backend="anthropic"))


def test_the_anthropic_backend_reports_a_rate_limit_as_transient(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is part of the test dependencies")
    script = [{"error": {"status": 429, "type": "rate_limit_error"}}] * 3
    with MockServer(tmp_path / "mock", script) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        with pytest.raises(ModelUnavailable) as caught:
            anthropic_api.complete(REQUEST, ModelSettings(backend="anthropic", timeout_s=20))
    assert caught.value.transient
