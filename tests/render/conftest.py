"""Fixtures for the render tests: realistic agent files and golden-file comparison."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
AGENTS = HERE / "agents"
GOLDEN = HERE.parent / "golden"
FIXED_PROJECT_ID = "0123456789ab"

CRLF_AGENT = (
    "---\r\nname: windows-agent\r\n"
    'description: "An agent written on Windows: CRLF line endings"\r\n---\r\n\r\n'
    "You help with Windows builds.\r\n\r\n## Notes\r\n\r\n- Use `msbuild`.\r\n"
)


@pytest.fixture
def agent_file():
    """``agent_file(stem)`` → original bytes of a realistic agent file.

    code-reviewer (LF, code block, other sections, HTML comment), terse (no final newline),
    bom-agent (UTF-8 BOM, Japanese text), windows-agent (CRLF; built here so git cannot convert it).
    """

    def load(stem: str) -> bytes:
        if stem == "windows-agent":
            return CRLF_AGENT.encode("utf-8")
        return (AGENTS / f"{stem}.md").read_bytes()

    return load


@pytest.fixture
def fixed_project_id() -> str:
    return FIXED_PROJECT_ID


@pytest.fixture
def golden():
    """``golden(name, text)``: compare with tests/golden/NAME; KIOKU_UPDATE_GOLDEN=1 rewrites it."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("KIOKU_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        assert path.exists(), f"golden file {path.name} missing; run with KIOKU_UPDATE_GOLDEN=1"
        expected = path.read_bytes().decode("utf-8")
        assert text == expected, f"rendered output differs from {path.name} (KIOKU_UPDATE_GOLDEN=1 to accept)"

    return check
