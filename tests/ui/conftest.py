"""Fixtures for the web UI tests: seeded real stores, a real ``kioku ui`` process, real Chromium.

Chromium is Debian's package (``scripts/test.sh`` installs it); Playwright for Python drives
it through ``executable_path``. A missing browser fails the browser tests with a message
instead of skipping them, so a run that did not check the browser cannot pass silently.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from uitest_support import CHROMIUM_ARGS, RunningUI, chromium_path, seed_agent, seed_memories, start_ui, ui_env


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright  # a test extra: pip install -e '.[test]'

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def seeded(project: Path) -> Path:
    seed_memories(ui_env(), project)
    return project


@pytest.fixture
def ui(seeded: Path) -> Iterator[RunningUI]:
    running = start_ui(seeded, ui_env())
    yield running
    running.process.terminate()
    try:
        running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()


@pytest.fixture
def agent_ids(seeded: Path) -> dict[str, str]:
    return seed_agent(seeded)
