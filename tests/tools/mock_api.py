#!/usr/bin/env python3
"""Kioku's offline stand-in for the Anthropic Messages API, for driving the real Claude Code binary.

    python3 tests/tools/mock_api.py --port 18765 --log requests.jsonl --script turns.json
    ANTHROPIC_BASE_URL=http://127.0.0.1:18765 ANTHROPIC_API_KEY=sk-ant-test claude -p "..."

What it serves:

- ``POST /v1/messages``: the next scripted assistant turn, as a streamed (server-sent events)
  or a plain JSON message, whichever the request asks for (``"stream": true``).
- ``POST /v1/messages/count_tokens``: a token count estimated from the request size.
- anything else: ``{}`` with status 200, so the client's side requests never fail.

The script (``--script``) is a JSON list of turns consumed in order, one per messages request:

    {"text": "..."}                                       a final answer (stop_reason end_turn)
    {"tool_use": {"name": "Bash", "input": {...}}}        a tool call (stop_reason tool_use)
    {"content": [{"type": "text", ...}, {"type": "tool_use", ...}]}   several blocks in one turn

    {"error": {"status": 429, "type": "rate_limit_error", "message": "..."}}   an API error
    {"sleep": 30, ...}                                    wait before answering (a hanging API)

A turn may also carry ``"usage": {"input_tokens": N, "output_tokens": M}``. When the script
runs out, a request that offers the ``StructuredOutput`` tool (a ``claude -p --json-schema`` run,
such as Kioku's judge) gets a call of it with a well-formed judge answer for every ``=== tN ===``
turn of its message, or, for Kioku's enrichment (a schema whose items have ``questions``), a
well-formed enrichment made of each ``=== mN ===`` note's own words (and, after that call's
result, a closing text); every other request gets ``--reply``. Every request is appended to ``--log`` as
one JSON line ``{"seq", "path", "body"}`` so a test can assert what reached the model.
Standard library only: the test suite starts it with whatever Python runs pytest.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Script:
    """The scripted turns, handed out one per messages request (thread-safe)."""

    def __init__(self, turns: list[dict[str, Any]], reply: str) -> None:
        self._turns, self._reply = turns, reply
        self._next = 0
        self._tool_ids = 0
        self._lock = threading.Lock()

    def next_turn(self, body: Any = None) -> tuple[int, dict[str, Any]]:
        with self._lock:
            index = self._next
            self._next += 1
            if index < len(self._turns):
                return index, self._turns[index]
        structured = structured_answer(body) if isinstance(body, dict) else None
        return index, structured or {"text": self._reply}

    def message(self, index: int, turn: dict[str, Any], model: str) -> dict[str, Any]:
        with self._lock:
            blocks = [self._block(raw) for raw in _raw_blocks(turn)]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0, **turn.get("usage", {})}
        return {"id": f"msg_kioku_mock_{index:04d}", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage}

    def _block(self, raw: dict[str, Any]) -> dict[str, Any]:
        if raw.get("type") == "tool_use":
            self._tool_ids += 1
            return {"type": "tool_use", "id": raw.get("id") or f"toolu_kioku_mock_{self._tool_ids:04d}",
                    "name": raw["name"], "input": raw.get("input", {})}
        return {"type": "text", "text": str(raw.get("text", ""))}


def structured_answer(body: dict[str, Any]) -> dict[str, Any] | None:
    """A StructuredOutput call answering a judge request, or a closing text once it was answered."""
    tools = {t.get("name"): t for t in body.get("tools") or [] if isinstance(t, dict)}
    if "StructuredOutput" not in tools:
        return None
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return {"text": "done"}
    text = json.dumps(messages)
    schema = tools["StructuredOutput"].get("input_schema") or {}
    listed = (((schema.get("properties") or {}).get("items") or {}).get("items") or {}).get("properties") or {}
    if "questions" in listed:
        return {"tool_use": {"name": "StructuredOutput", "input": {"items": enrichment_items(messages)}}}
    ids = re.findall(r"=== (t\d+) ===", text)
    item = (((schema.get("properties") or {}).get("turns") or {}).get("items") or {}).get("properties") or {}
    criteria = (item.get("scores") or {}).get("required") or []
    turns = [{"id": turn_id, "outcome": "success", "reason": "the mock judge found nothing wrong",
              "feedback_on_previous": "none", "confidence": 0.5, "scores": {c: 80 for c in criteria},
              "lesson": None, "lessons": []} for turn_id in dict.fromkeys(ids)]
    return {"tool_use": {"name": "StructuredOutput", "input": {"turns": turns}}}


def enrichment_items(messages: list[Any]) -> list[dict[str, Any]]:
    """A plain, well-formed enrichment for each note of an enrichment request, from its own words."""
    parts: list[str] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(b.get("text", "")) for b in content if isinstance(b, dict))
    text = "\n".join(parts)
    items = []
    for alias, body in re.findall(r"^=== (m\d+) === \([^)]*\)\n(.*)$", text, re.M):
        words = re.findall(r"[A-Za-z]{3,}", body)[:4] or ["note"]
        items.append({"id": alias, "questions": [f"what about {' '.join(words[:2])}?", f"tell me about {words[0]}",
                                                 "メモの内容は？"],
                      "keywords": {"en": words, "ja": ["メモ"]}, "topic": words[0]})
    return items


def _raw_blocks(turn: dict[str, Any]) -> list[dict[str, Any]]:
    if "content" in turn:
        return list(turn["content"])
    if "tool_use" in turn:
        return [{"type": "tool_use", **turn["tool_use"]}]
    return [{"type": "text", "text": turn.get("text", "")}]


def sse_events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The Messages streaming protocol for one finished message."""
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [("content_block_start", {"type": "content_block_start", "index": index,
                                            "content_block": opening}),
                   ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": index})]
    events += [("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": message["usage"]["output_tokens"]}}),
               ("message_stop", {"type": "message_stop"})]
    return events


def make_handler(script: Script, log_path: str) -> type[BaseHTTPRequestHandler]:
    log_lock = threading.Lock()
    seq = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: Any) -> None:  # keep the test output clean
            pass

        def _send_json(self, obj: Any, status: int = 200) -> None:
            data = json.dumps(obj).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send_json({})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = {"raw": raw.decode("utf-8", "replace")}
            with log_lock:
                seq[0] += 1
                with open(log_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"seq": seq[0], "path": self.path, "body": body}) + "\n")
            path = self.path.split("?", 1)[0]
            if path.endswith("/messages/count_tokens"):
                return self._send_json({"input_tokens": max(1, len(raw) // 4)})
            if not path.endswith("/messages"):
                return self._send_json({})
            model = body.get("model", "claude-mock") if isinstance(body, dict) else "claude-mock"
            index, turn = script.next_turn(body)
            if turn.get("sleep"):
                time.sleep(float(turn["sleep"]))
            if isinstance(turn.get("error"), dict):
                error = turn["error"]
                return self._send_json({"type": "error", "error": {"type": error.get("type", "api_error"),
                                                                   "message": error.get("message", "mock error")}},
                                       int(error.get("status", 500)))
            message = script.message(index, turn, str(model))
            if isinstance(body, dict) and body.get("stream"):
                return self._stream(message)
            return self._send_json(message)

        def _stream(self, message: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for kind, data in sse_events(message):
                self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode("utf-8"))
                self.wfile.flush()
            self.close_connection = True

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Offline Anthropic Messages API stand-in for tests.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True, help="JSONL file; one line per request")
    parser.add_argument("--script", help="JSON list of assistant turns, served in order")
    parser.add_argument("--reply", default="Done.", help="the answer once the script has run out")
    args = parser.parse_args(argv)
    turns = json.loads(open(args.script, encoding="utf-8").read()) if args.script else []
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(Script(turns, args.reply), args.log))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
