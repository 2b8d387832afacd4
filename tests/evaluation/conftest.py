"""Fixtures for the self-evaluation tests: the recorded transcripts and helpers to slice them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


@pytest.fixture
def transcripts() -> Path:
    return TRANSCRIPTS


@pytest.fixture
def copy_transcript(tmp_path: Path):
    """Copy a recorded fixture into tmp (tests append to / truncate their copy)."""

    def _copy(name: str) -> Path:
        target = tmp_path / "tx" / f"{name}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TRANSCRIPTS / f"{name}.jsonl", target)
        return target

    return _copy


@pytest.fixture
def split_turns():
    """Split a recorded fixture into turns: each starts at a typed prompt's line."""

    def _split(name: str) -> list[list[str]]:
        lines = (TRANSCRIPTS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        starts = [i for i, line in enumerate(lines)
                  if (obj := json.loads(line)).get("type") == "user"
                  and isinstance(obj.get("message", {}).get("content"), str)]
        bounds = [0, *starts[1:], len(lines)]
        return [lines[a:b] for a, b in zip(bounds, bounds[1:])]

    return _split
