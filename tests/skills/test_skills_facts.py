"""The numbers and rules the skills state are the ones the code applies (docs cannot drift)."""

from __future__ import annotations

import re
from pathlib import Path

from kioku.lessons import improvements, scopes, stats
from kioku.learning.learn import LEARN_MIN_QUALITY
from kioku.memory import guard, index

SKILLS_DIR = Path(__file__).resolve().parents[2] / "skills"


def _read(rel: str) -> str:
    return (SKILLS_DIR / rel).read_text(encoding="utf-8")


def test_scope_table_matches_the_scope_rule() -> None:
    text = _read("agent-memory/SKILL.md")
    rows = dict(re.findall(r"^\| (global|project) \| ([a-z_, ]+) \|", text, re.M))
    assert set(rows["global"].split(", ")) == set(scopes.GLOBAL_CATEGORIES)
    assert set(rows["project"].split(", ")) == set(scopes.PROJECT_CATEGORIES)


def test_lifecycle_numbers_match_the_policy() -> None:
    text = _read("agent-memory/SKILL.md")
    assert stats.PROMOTE_STEP == 0.05 and stats.CONFIDENCE_CAP == 0.95
    assert "(confidence + 0.05, at most 0.95)" in text
    assert improvements.MIN_CONFIDENCE_STORE == 0.5 and improvements.MIN_CONFIDENCE_ACTIVE == 0.7
    assert "below 0.5 confidence" in text and "confidence of at least 0.7" in text
    assert "one failure never hides a lesson" in text
    assert LEARN_MIN_QUALITY == 70
    assert "quality of at least 70" in text


def test_wilson_examples_are_computed_right() -> None:
    text = _read("agent-memory/references/lifecycle.md")
    rows = re.findall(r"^\| (\d+) / (\d+) \| \d+ % \| ([\d.]+)-([\d.]+) \|", text, re.M)
    assert len(rows) == 4
    for s, n, low, high in rows:
        lo, hi = stats.wilson_interval(int(s), int(n))
        assert (f"{lo:.2f}", f"{hi:.2f}") == (low, high), (s, n)


def test_memory_limits_match_the_store() -> None:
    skill = _read("memory-system/SKILL.md")
    fmt = _read("memory-system/references/memory-format.md")
    assert index.MAX_LINES == 200 and index.WARN_LINES == 150 and index.MAX_LINE_CHARS == 150
    assert "never passes 200 lines. From 150 lines Kioku warns" in skill
    assert "under about 150 characters" in skill
    assert guard.MAX_CODE_LINES == 8 and "more than about 8 lines" in skill
    assert guard.MAX_CHARS == 1500 and "about 1,500 characters" in skill
    assert "| code in a memory | 8 lines |" in fmt and "| index maximum | 200 lines |" in fmt


def test_type_examples_in_the_classification_guide_are_classified_as_shown() -> None:
    from kioku.memory.classify import classify_type

    text = _read("memory-system/references/classification.md")
    rows = re.findall(r"^\| [^|]+ \| `(user|feedback|project|reference)` \| (.+) \|$", text, re.M)
    examples = [(type_, ex) for type_, cell in rows for ex in re.findall(r'"([^"]+)"', cell)]
    assert len(examples) >= 12
    assert [(t, ex) for t, ex in examples if classify_type(ex) != t] == []
