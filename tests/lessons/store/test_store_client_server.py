"""Server mode: AgentStore against a real `chroma run` on loopback, started and stopped here."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kioku.lessons.store.client import AgentStore, Record, open_store

CHROMA_BIN = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, data: Path, port: int, log: Path) -> None:
        self.data, self.port, self.log = data, port, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:  # the server prints a logo and a line per request
            self.proc = subprocess.Popen([str(CHROMA_BIN), "run", "--path", str(self.data), "--host", "127.0.0.1",
                                          "--port", str(self.port)], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text(errors="replace")[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v2/heartbeat", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("chroma server did not become ready")

    def stop(self) -> None:
        if self.proc is None:
            return
        pid = self.proc.pid
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)
        assert self.proc.poll() is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # reaped and gone
        self.proc = None


@pytest.fixture
def server(tmp_path):
    if not CHROMA_BIN.exists():
        pytest.fail(f"chroma CLI missing next to the interpreter: {CHROMA_BIN}")
    srv = Server(tmp_path / "server-data", _free_port(), tmp_path / "chroma-server.log")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.slow
def test_agent_store_against_a_real_chroma_server(server, tmp_path):
    local = tmp_path / "local-journal"
    store = AgentStore(local, host="127.0.0.1", port=server.port)
    store.upsert("srv", "improvements", [
        Record("a", "Use connection pooling for database access", {"confidence": 0.9, "x": None}),
        Record("b", "Prefer structured logging with stable keys", {}),
    ])
    assert store.query("srv", "improvements", "db connections", 1)[0].id == "a"
    store.update_metadata("srv", "improvements", ["a"], [{"usage_count": 2}])
    assert store.get("srv", "improvements", ids=["a"])[0].metadata == {"confidence": 0.9, "usage_count": 2}
    store.copy_agent("srv", "srv2")
    assert store.agents() == ["srv", "srv2"]
    store.drop_agent("srv2")
    assert store.agents() == ["srv"]
    assert store.lexical_search("srv", "improvements", "logging", 1)[0][0] == "b"
    # the data lives in the server, the journal in the local folder
    import chromadb

    remote = chromadb.HttpClient(host="127.0.0.1", port=server.port)
    col = remote.get_collection("agent_srv_improvements", embedding_function=None)
    assert col.count() == 2 and col.configuration_json["hnsw"]["space"] == "cosine"
    assert not (local / "chroma.sqlite3").exists()
    assert store.journal.applied_seq() == store.journal.last_seq() == 4  # upsert, update, copy, drop

    # a fresh process configured through the environment uses the server too
    code = ("from kioku.lessons.store.client import open_store\n"
            "s = open_store('global'); print(s.server, s.query('srv', 'improvements', 'logging', 1)[0].id)")
    env = {**os.environ, "KIOKU_CHROMA_HOST": "127.0.0.1", "KIOKU_CHROMA_PORT": str(server.port),
           "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "b"]


@pytest.mark.slow
def test_server_down_write_is_journaled_then_synced(server, tmp_path, monkeypatch):
    monkeypatch.setenv("KIOKU_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("KIOKU_CHROMA_PORT", str(server.port))
    store = open_store("global")
    assert store.server
    store.upsert("down", "improvements", [Record("a", "first lesson", {})])
    server.stop()
    store.upsert("down", "improvements", [Record("b", "written while the server was down", {})])
    assert store.pending() == 1 and "kioku store sync" in (store.last_warning or "")
    server.start()
    assert AgentStore(store.chroma_dir, host="127.0.0.1", port=server.port).sync() == 1
    assert store.query("down", "improvements", "server was down", 1)[0].id == "b"
    assert store.pending() == 0
