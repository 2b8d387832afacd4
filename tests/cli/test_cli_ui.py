"""kioku.cli.ui: `kioku ui --json` prints where the app listens as its first line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from http.client import HTTPConnection
from urllib.parse import urlsplit

SRC = Path(__file__).resolve().parents[2] / "src"


def test_ui_json_first_line_is_the_url_host_and_port(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "kioku", "ui", "--no-browser", "--json"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(proc.stdout.readline())
        assert first["host"] == "127.0.0.1" and first["url"].startswith(f"http://127.0.0.1:{first['port']}/")
        connection = HTTPConnection(first["host"], first["port"], timeout=30)
        target = urlsplit(first["url"])
        connection.request("GET", f"{target.path}?{target.query}")
        answer = connection.getresponse()  # the URL's token is exchanged for the app's cookie
        assert answer.status in (302, 303) and answer.getheader("Set-Cookie")
        connection.close()
        assert proc.stderr.readline().startswith("Kioku UI: listening on 127.0.0.1 only")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
