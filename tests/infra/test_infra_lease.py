"""The worker's lease (kioku.infra.lease): exclusive while held, renewed while its holder works,
taken over from a holder that stopped renewing it, and never from a process that is not that holder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from kioku.infra import lease
from kioku.infra.lease import Lease

REPO = Path(__file__).resolve().parents[2]

HOLDER = r'''
import sys, time
from kioku.infra.lease import Lease
path, duration, renew_every, hold_for = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
held = Lease(path, duration)
assert held.acquire()
print("held", flush=True)
end = time.monotonic() + hold_for
while time.monotonic() < end:
    time.sleep(renew_every if renew_every > 0 else 0.05)
    if renew_every > 0:
        held.renew()
held.release()
'''


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _holder(path: Path, duration: float, renew_every: float, hold_for: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(duration), str(renew_every), str(hold_for)],
                            env=_env(), stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_held_lease_is_exclusive_and_free_after_release(tmp_path):
    path = tmp_path / "locks" / "worker.lock"
    first, second = Lease(path, 60), Lease(path, 60)
    assert first.acquire()
    assert lease.is_held(path, 60)
    assert not second.acquire(wait=0.2)
    first.release()
    assert second.acquire()
    second.release()


def test_a_holder_that_stops_renewing_is_stopped_and_its_lease_taken(tmp_path):
    path = tmp_path / "worker.lock"
    stuck = _holder(path, duration=1.0, renew_every=0, hold_for=600)  # holds, never renews
    try:
        taker = Lease(path, 60)
        assert taker.acquire(wait=60)
        assert taker.taken_over == stuck.pid
        assert stuck.wait(timeout=30) == -9
        info = lease.read_lease(path)
        assert info["pid"] == os.getpid() and info["expires_at"] > time.time() + 30
        taker.release()
    finally:
        if stuck.poll() is None:
            stuck.kill()


def test_a_holder_that_renews_keeps_its_lease(tmp_path):
    path = tmp_path / "worker.lock"
    busy = _holder(path, duration=1.0, renew_every=0.2, hold_for=4.0)
    try:
        assert lease.is_held(path, 1.0)
        assert not Lease(path, 1.0).acquire(wait=2.5)  # longer than the lease: it was renewed
        assert busy.poll() is None
        assert busy.wait(timeout=60) == 0
        assert Lease(path, 1.0).acquire()
    finally:
        if busy.poll() is None:
            busy.kill()


def test_a_pid_that_names_another_process_is_never_killed(tmp_path):
    path = tmp_path / "worker.lock"
    holder = _holder(path, duration=1.0, renew_every=0, hold_for=30)
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        # the lease file now names a live process that is not the holder (a reused pid)
        (tmp_path / "worker.lock.lease").write_text(json.dumps(
            {"pid": bystander.pid, "started": "not when it started", "expires_at": time.time() - 10}))
        assert not Lease(path, 1.0).acquire(wait=1.5)
        assert bystander.poll() is None and holder.poll() is None
    finally:
        for proc in (holder, bystander):
            proc.kill()
            proc.wait()


EXCLUSIVE = r'''
import os, sys, time
from kioku.infra.lease import Lease
path, log = sys.argv[1], sys.argv[2]
for _ in range(15):
    held = Lease(path, 30)
    if held.acquire(wait=30):
        with open(log, "a") as out:
            out.write(f"{os.getpid()} start {time.monotonic_ns()}\n")
        time.sleep(0.01)
        with open(log, "a") as out:
            out.write(f"{os.getpid()} end {time.monotonic_ns()}\n")
        held.release()
'''


def test_two_holders_never_hold_at_once(tmp_path):
    path, log = tmp_path / "worker.lock", tmp_path / "holds.log"
    procs = [subprocess.Popen([sys.executable, "-c", EXCLUSIVE, str(path), str(log)], env=_env()) for _ in range(4)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    events = [line.split() for line in log.read_text().splitlines()]
    assert len(events) == 4 * 15 * 2
    holding = None
    for pid, what, _ns in events:  # appended while holding: the file order is the holding order
        if what == "start":
            assert holding is None, "two holders at once"
            holding = pid
        else:
            assert holding == pid
            holding = None
