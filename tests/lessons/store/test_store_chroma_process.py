"""Chroma runs in a child process that is killed when a call does not answer in time
(kioku.lessons.store.chroma_process): a stuck Chroma call cannot wedge the caller."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from kioku.lessons.store import chroma_process
from kioku.lessons.store.chroma_process import ChromaProcess, ChromaTimeout
from kioku.lessons.store.client import Record
from kioku.lessons.store.errors import StoreTimeout
from store_helpers import py_env

# A call is given this long; the tests bound the whole wait far above it (a call that never
# returns would block the test for ever, which is the failure these tests exist for).
CALL_LIMIT_S = "3"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie of ours is gone too
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return False


def test_a_process_that_stops_answering_is_killed_and_the_call_fails(monkeypatch):
    monkeypatch.setenv("KIOKU_STORE_TIMEOUT", CALL_LIMIT_S)
    proc = ChromaProcess()
    try:
        assert proc.call("ping") == "pong"
        pid = proc._proc.pid
        os.kill(pid, signal.SIGSTOP)  # alive, holding whatever it holds, answering nothing
        with pytest.raises(ChromaTimeout, match="did not answer a 'ping' call within 3 s"):
            proc.call("ping")
        assert not proc.alive()
        deadline = time.monotonic() + 30
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(pid)
        # right after a time-out the next call fails at once instead of waiting again
        with pytest.raises(ChromaTimeout, match="not asked again"):
            proc.call("ping")
        proc.reset()
        assert proc.call("ping") == "pong"  # a new child
    finally:
        proc.stop()


def test_a_stuck_store_keeps_writes_in_the_journal_and_applies_them_later(store, monkeypatch):
    monkeypatch.setenv("KIOKU_STORE_TIMEOUT", CALL_LIMIT_S)
    store.upsert("st", "improvements", [Record("one", "a lesson written before Chroma got stuck", {})])
    proc = chroma_process.process()
    os.kill(proc._proc.pid, signal.SIGSTOP)
    try:
        store.upsert("st", "improvements", [Record("two", "a lesson written while Chroma was stuck", {})])
        assert store.pending() == 1  # acknowledged: it is in the journal
        assert "did not answer" in (store.last_warning or "")
        with pytest.raises(StoreTimeout, match="nothing was lost"):
            store.get("st", "improvements")
    finally:
        proc.reset()
    assert store.sync() == 1
    assert {r.id for r in store.get("st", "improvements")} == {"one", "two"}
    assert store.query("st", "improvements", "written while Chroma was stuck", 1)[0].id == "two"


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the child is killed with its parent through Linux's PR_SET_PDEATHSIG")
def test_the_child_dies_with_its_parent():
    code = ("import os, signal\n"
            "from kioku.lessons.store.chroma_process import process\n"
            "p = process(); p.call('ping'); print(p._proc.pid, flush=True)\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")
    out = subprocess.run([sys.executable, "-c", code], env=py_env(), capture_output=True, text=True, timeout=180)
    child = int(out.stdout.split()[0])
    deadline = time.monotonic() + 30
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


def test_chroma_errors_keep_their_name_and_kind():
    err = chroma_process._error("ModuleNotFoundError", "No module named 'chromadb'", False)
    assert isinstance(err, ImportError) and type(err).__name__ == "ModuleNotFoundError"
    missing = chroma_process._error("NotFoundError", "Collection x does not exist", True)
    from kioku.lessons.store.apply import is_not_found

    assert is_not_found(missing) and not is_not_found(err)
