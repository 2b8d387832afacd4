"""Fixtures for hook tests: recorded hook inputs with real temp paths substituted in.

The JSON files in tests/fixtures/hook_inputs/ were recorded from the real Claude Code binary
by tests/fixtures/hook_inputs/record.py and sanitised to placeholders; ``hook_input`` puts
this test's project, Claude folder and ids back in, so field names are never hand-typed.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from hook_helpers import install_for_tests, load_hook_input


@pytest.fixture
def hook_input(project: Path, isolated_home: Path) -> Callable[..., dict[str, Any]]:
    def load(name: str, **changes: Any) -> dict[str, Any]:
        data = load_hook_input(name, project, isolated_home / ".claude", home=isolated_home)
        data.update(changes)
        return data

    return load


@pytest.fixture(scope="session")
def installed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An installed Kioku tree, copied to a differently named folder (guards path bugs)."""
    base = tmp_path_factory.mktemp("installed")
    home = base / "home"
    home.mkdir()
    install_for_tests(home / ".claude", home)
    copy = base / "elsewhere" / "kioku-renamed-9.9.9"
    shutil.copytree(home / ".claude" / "kioku", copy, symlinks=True)
    shutil.rmtree(home / ".claude" / "kioku")  # only the renamed copy can be what runs
    return copy
