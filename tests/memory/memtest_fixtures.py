"""Fixtures shared by the memory tests (imported by name: a second conftest.py here would
shadow the root conftest module that other test files import helpers from)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def pmem(project: Path) -> Path:
    """The project's memory folder (may not exist yet)."""
    return project / ".agents" / "memory"


@pytest.fixture
def umem(isolated_home: Path) -> Path:
    """The user-wide memory folder (may not exist yet)."""
    return isolated_home / ".agents" / "memory"
