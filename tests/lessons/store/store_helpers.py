"""Subprocess helpers for the agent-store tests.

A module of its own (not conftest.py): with several tests/<area>/conftest.py files, the module
named ``conftest`` is whichever was imported last, so ``from conftest import`` is fragile.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SRC = REPO / "src"


def py_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, **(extra or {})}
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_py(code: str, *args: str, env: dict[str, str] | None = None, timeout: float = 120,
           check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (a new process: nothing cached)."""
    proc = subprocess.run([sys.executable, "-c", code, *args], env=py_env(env), capture_output=True,
                          text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"subprocess failed rc={proc.returncode}\nstdout:{proc.stdout}\nstderr:{proc.stderr}")
    return proc
