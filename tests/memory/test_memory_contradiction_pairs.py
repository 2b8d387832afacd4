"""Contradictions on the labelled pairs (tests/memory/data/contradiction_pairs_*.json, English
and Japanese): no true-together pair may lose a memory from the index, and at least 80 % of
real replacements are recognised. Every pair goes through the real save path."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kioku.memory import api

DATA = Path(__file__).parent / "data"
PAIRS = {"together": [], "replaces": []}
for _name in ("tune", "holdout"):
    _data = json.loads((DATA / f"contradiction_pairs_{_name}.json").read_text(encoding="utf-8"))
    for _key in PAIRS:
        PAIRS[_key].extend(_data[_key])


def _save_pair(root: Path, old: str, new: str):
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    first = api.remember(old, type="project", project_root=root)
    second = api.remember(new, type="project", project_root=root)
    index = (root / ".agents" / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    return first, second, index


@pytest.mark.parametrize("old,new", PAIRS["together"])
def test_true_together_pairs_keep_both_memories(tmp_path, old, new):
    first, second, index = _save_pair(tmp_path / "p", old, new)
    assert second.status == "saved", (old, new, second.status)
    assert first.summary in index and second.summary in index


def test_at_least_80_percent_of_replacements_are_recognised(tmp_path):
    recognised = 0
    for n, (old, new) in enumerate(PAIRS["replaces"]):
        first, second, index = _save_pair(tmp_path / f"p{n}", old, new)
        if second.status == "superseded":
            recognised += 1
            assert first.summary not in index and second.summary in index
    assert len(PAIRS["replaces"]) >= 40 and len(PAIRS["together"]) >= 48
    assert recognised / len(PAIRS["replaces"]) >= 0.8


def test_unsure_pair_keeps_both_and_says_so(tmp_path):
    root = tmp_path / "p"
    first, second, index = _save_pair(root, "Always use type hints", "Never use type hints in tests")
    assert second.status == "saved" and first.summary in index and second.summary in index
    assert any("kept both" in w and "kioku forget" in w for w in second.warnings)
