from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from kioku.lessons.store.client import Record
from kioku.lessons.store.meta import PLACEHOLDER_KEY, clean_metadata


def test_clean_metadata_rules():
    when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    out = clean_metadata({"a": None, "b": 1, "tags": [], "mixed": [1, "a"], "ok": ["x", "y"],
                          "nested": {"k": 1}, "when": when, "nan": math.nan, "t": ("p",)})
    assert out == {"b": 1, "tags": "", "mixed": ["1", "a"], "ok": ["x", "y"], "nested": '{"k": 1}',
                   "when": when.isoformat(), "nan": "nan", "t": ["p"]}
    assert clean_metadata({}) == {PLACEHOLDER_KEY: True}
    assert clean_metadata({"x": None}) == {PLACEHOLDER_KEY: True}
    assert clean_metadata({"x": None}, placeholder=False) == {}
    for bad in ({"$x": 1}, {"chroma:document": 1}, {"": 1}):
        with pytest.raises(ValueError):
            clean_metadata(bad)


def test_metadata_that_chroma_rejects_is_stored_through_the_store(store):
    # each of these makes a raw chromadb add() raise (chroma.md section 4)
    store.upsert("meta", "improvements", [
        Record("n", "none values", {"success_rate": -1.0, "tested": False, "last_used": "", "gone": None}),
        Record("e", "empty metadata", {}),
        Record("l", "empty list", {"tags": []}),
        Record("m", "mixed list", {"tags": ["a", 2]}),
    ])
    got = {r.id: r.metadata for r in store.get("meta", "improvements")}
    assert got["n"] == {"success_rate": -1.0, "tested": False, "last_used": ""}
    assert got["e"] == {}  # placeholder hidden on read
    assert got["l"] == {"tags": ""}
    assert got["m"] == {"tags": ["a", "2"]}
    # the where filters D relies on work with the conventions
    untested = store.get("meta", "improvements", where={"tested": False})
    assert [r.id for r in untested] == ["n"]


def test_update_merges_and_none_keeps_the_old_value(store):
    store.upsert("meta", "improvements", [Record("a", "lesson", {"usage_count": 0, "category": "testing"})])
    store.update_metadata("meta", "improvements", ["a"], [{"usage_count": 3, "category": None, "tags": ["x"]}])
    (rec,) = store.get("meta", "improvements", ids=["a"])
    assert rec.metadata == {"usage_count": 3, "category": "testing", "tags": ["x"]}
    # updating a missing id is a no-op, not an error
    store.update_metadata("meta", "improvements", ["nope"], [{"usage_count": 1}])
    assert store.count("meta", "improvements") == 1


def test_floats_read_back_within_one_ulp(store):
    # documented Chroma behaviour: floats come back with ~16 significant digits
    values = [1795984377.0443513, 123456789.123456789, 0.1, 1 / 3, -1.0, 0.95]
    store.upsert("fl", "performance", [Record(f"f{i}", "x", {"v": v}) for i, v in enumerate(values)])
    got = {r.id: r.metadata["v"] for r in store.get("fl", "performance")}
    for i, v in enumerate(values):
        assert got[f"f{i}"] == pytest.approx(v, rel=1e-15, abs=0)
    assert got["f2"] == 0.1 and got["f4"] == -1.0 and got["f5"] == 0.95
