"""Fixtures for the agent-memory store tests: a store in a temp dir (helpers: store_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "chroma"


@pytest.fixture
def store(store_dir: Path):
    from kioku.lessons.store.client import AgentStore

    return AgentStore(store_dir)
