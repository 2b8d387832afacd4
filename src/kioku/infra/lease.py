"""A lease: an exclusive lock that expires when its holder stops renewing it (standard library only).

The holder keeps an ``flock`` on the lock file, so two holders never overlap and the lock goes
with the process, and records in ``<lock>.lease`` beside it its pid, when that process started,
and the time until which it holds the lease; it renews that time while it works
(:meth:`Lease.renew`, or :func:`renew_held` from code that does not see the lease object). A
process that finds the lock held under a lease that expired (the holder stopped renewing: it is
stuck in a call that never returns) kills the holder with SIGKILL, once it has checked that the
pid still names the process that took the lease, and takes the lock. A lease file that is missing
or unreadable while the lock is held counts from the lock file's last change.

Used for the worker (``kioku.infra.jobs.worker_lock_path``): a stuck worker cannot block the queue
for longer than its lease, and two workers never run jobs at once.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from kioku.infra import fsutil

DEFAULT_DURATION_S = 900.0
_HELD: list["Lease"] = []


def lease_path(lock_path: str | os.PathLike[str]) -> str:
    return os.fspath(lock_path) + ".lease"


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, as the system tells (None when it cannot, or it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        if fields[0] in (b"Z", b"X"):
            return None  # ended: only its exit status is left for its parent to collect
        return fields[19].decode()  # field 22 of the line, after the command name
    except (OSError, IndexError):
        pass
    if sys.platform.startswith("linux"):
        return None
    import subprocess  # macOS and the BSDs have no /proc: ps tells the start time

    try:
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def read_lease(lock_path: str | os.PathLike[str]) -> dict | None:
    try:
        with open(lease_path(lock_path), encoding="utf-8") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _expires_at(lock_path: str | os.PathLike[str], info: dict | None, duration: float) -> float:
    if info is not None and isinstance(info.get("expires_at"), (int, float)):
        return float(info["expires_at"])
    try:  # no lease written (yet): the lock file's last change stands in for the start
        return os.stat(lock_path).st_mtime + duration
    except OSError:
        return time.time() + duration


def is_held(lock_path: str | os.PathLike[str], duration: float = DEFAULT_DURATION_S) -> bool:
    """Whether another process holds the lock under a lease that has not expired."""
    with fsutil.try_lock(lock_path) as got:
        if got:
            return False
    return time.time() < _expires_at(lock_path, read_lease(lock_path), duration)


class Lease:
    """``with Lease(path).hold(wait=0) as held:`` - ``held`` says whether this process holds it."""

    def __init__(self, lock_path: str | os.PathLike[str], duration: float = DEFAULT_DURATION_S) -> None:
        self.path = os.fspath(lock_path)
        self.duration = float(duration)
        self.fd = -1
        self.taken_over: int | None = None  # pid of a stuck holder this process stopped

    @property
    def held(self) -> bool:
        return self.fd >= 0

    def _try_flock(self) -> bool:
        import fcntl

        fsutil.ensure_private_dir(os.path.dirname(self.path) or ".")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, fsutil.FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        return True

    def _stop_expired_holder(self) -> None:
        """Kill the holder of an expired lease, when the lease names a live process that is
        still the one that took it."""
        info = read_lease(self.path)
        if time.time() < _expires_at(self.path, info, self.duration) or info is None:
            return
        pid = info.get("pid")
        if not isinstance(pid, int) or pid <= 1 or pid == os.getpid():
            return
        started = process_start(pid)
        if started is None or started != info.get("started"):
            return  # gone, or the pid now names another process: never kill that one
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        self.taken_over = pid
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and process_start(pid) == started:
            time.sleep(0.02)

    def acquire(self, wait: float = 0.0) -> bool:
        """Take the lease, waiting up to ``wait`` seconds; a holder whose lease expired is stopped."""
        deadline = time.monotonic() + max(0.0, wait)
        delay = 0.01
        while True:
            if self._try_flock():
                self.renew()
                _HELD.append(self)
                return True
            self._stop_expired_holder()
            if self._try_flock():
                self.renew()
                _HELD.append(self)
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    def renew(self) -> None:
        """Hold the lease for another :attr:`duration` seconds (a full disk leaves the old time)."""
        if not self.held:
            return
        pid = os.getpid()
        data = {"pid": pid, "started": process_start(pid), "expires_at": time.time() + self.duration,
                "renewed_at": time.time()}
        try:
            fsutil.atomic_write_text(lease_path(self.path), json.dumps(data))
        except OSError:
            pass

    def release(self) -> None:
        if not self.held:
            return
        if self in _HELD:
            _HELD.remove(self)
        try:
            os.unlink(lease_path(self.path))
        except OSError:
            pass
        fd, self.fd = self.fd, -1
        os.close(fd)  # closing releases the flock

    def hold(self, wait: float = 0.0) -> "_Holding":
        return _Holding(self, wait)


class _Holding:
    def __init__(self, lease: Lease, wait: float) -> None:
        self.lease, self.wait = lease, wait

    def __enter__(self) -> Lease | None:
        return self.lease if self.lease.acquire(self.wait) else None

    def __exit__(self, *exc: object) -> None:
        self.lease.release()


def renew_held() -> None:
    """Renew every lease this process holds (for long steps deep inside the holder's work)."""
    for lease in list(_HELD):
        lease.renew()
