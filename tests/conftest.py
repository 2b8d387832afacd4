"""Shared fixtures: every test runs with Kioku's and Claude Code's folders in a temp dir.

No test can touch the real home: KIOKU_HOME, KIOKU_USER_HOME, CLAUDE_CONFIG_DIR and HOME
are redirected for every test, and the working directory is a fresh git project.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shared_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the embedder's optimised model copy (90 MB), shared by every test's home."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_model_cache: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("KIOKU_USER_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("KIOKU_HOME", str(home / ".claude" / "kioku"))
    monkeypatch.setenv("KIOKU_MODEL_CACHE", str(shared_model_cache))
    monkeypatch.delenv("KIOKU_DISABLE", raising=False)
    monkeypatch.delenv("KIOKU_CHROMA_HOST", raising=False)
    monkeypatch.delenv("KIOKU_CHROMA_PORT", raising=False)
    # no test reaches a model unless it says so: the judge's own tests choose a backend
    monkeypatch.setenv("KIOKU_MODEL_BACKEND", "heuristic")
    monkeypatch.delenv("KIOKU_NESTED_RUN", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git project, made the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def run_kioku(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
              input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real ``kioku`` CLI in a fresh process (same interpreter, src on the path)."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(REPO_ROOT / "src") + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "kioku", *args], cwd=cwd, env=full_env, input=input,
        capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture
def kioku():
    return run_kioku
