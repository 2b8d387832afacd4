"""Start the project's mock API (mock_api.py) in a subprocess for a test, and read its request log."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MOCK = Path(__file__).resolve().parent / "mock_api.py"


class MockServer:
    def __init__(self, folder: Path, script: list[dict[str, Any]], reply: str = "Done.") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / "requests.jsonl"
        (folder / "script.json").write_text(json.dumps(script), encoding="utf-8")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._proc = subprocess.Popen([sys.executable, str(MOCK), "--port", str(self.port), "--log", str(self.log),
                                       "--script", str(folder / "script.json"), "--reply", reply])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the mock API did not start")

    def requests(self, path: str = "/v1/messages") -> list[dict[str, Any]]:
        """Logged request bodies to ``path`` (token counting left out)."""
        if not self.log.exists():
            return []
        out = []
        for line in self.log.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry["path"].split("?", 1)[0] == path:
                out.append(entry["body"])
        return out

    def stop(self) -> None:
        self._proc.kill()
        self._proc.wait(timeout=10)

    def __enter__(self) -> MockServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
