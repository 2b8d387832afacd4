"""Build small Claude Code transcripts line by line for the per-turn tests (format as Claude Code writes it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Tx:
    def __init__(self, session: str = "sess-1", *, sidechain: bool = False, agent_id: str = "") -> None:
        self.lines: list[dict[str, Any]] = []
        self.session = session
        self.sidechain = sidechain
        self.agent_id = agent_id
        self._n = 0
        self._t = 0

    def _base(self, kind: str, **extra: Any) -> dict[str, Any]:
        self._n += 1
        self._t += 5
        line = {"type": kind, "uuid": f"u-{self._n}", "sessionId": self.session, "isSidechain": self.sidechain,
                "timestamp": f"2026-01-01T00:{self._t // 60:02d}:{self._t % 60:02d}Z"}
        if self.agent_id:
            line["agentId"] = self.agent_id
        line.update(extra)
        self.lines.append(line)
        return line

    def user(self, content: Any, **extra: Any) -> str:
        return self._base("user", message={"role": "user", "content": content}, **extra)["uuid"]

    def assistant(self, text: str = "", tools: list[tuple[str, str, dict]] = (), *, mid: str = "",
                  usage: dict | None = None, **extra: Any) -> None:
        blocks: list[dict] = [{"type": "text", "text": text}] if text else []
        blocks += [{"type": "tool_use", "id": tid, "name": name, "input": inp} for tid, name, inp in tools]
        self._base("assistant", message={"id": mid or f"m-{self._n + 1}", "role": "assistant", "model": "claude-x",
                                         "content": blocks, "stop_reason": None,
                                         "usage": usage or {"input_tokens": 10, "output_tokens": 5}}, **extra)

    def result(self, tool_id: str, text: str, error: bool = False) -> None:
        self._base("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}]},
            toolUseResult={"stdout": text})

    def raw(self, line: dict[str, Any]) -> None:
        self.lines.append(line)

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)

    def write(self, path: Path, *, final_newline: bool = True) -> Path:
        body = self.text()
        path.write_text(body if final_newline else body.rstrip("\n"), encoding="utf-8")
        return path
