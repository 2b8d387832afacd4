"""The enrichment sidecar: keyed by the text, one row per owner, failures never over a good row,
a damaged file set aside, concurrent writers serialized."""

from __future__ import annotations

import threading
from pathlib import Path

from kioku.retrieval.enrichment import Enrichment, EnrichmentStore, content_key, lookup

E = Enrichment(("Where is it hosted?", "どこ？"), ("hosting",), ("ホスティング",), "hosting", "haiku", 1.0)


def test_rows_follow_the_text_and_the_owner(tmp_path: Path) -> None:
    store = EnrichmentStore(tmp_path / "e.sqlite3")
    old, new = content_key("memory", "Runs on Fly.io"), content_key("memory", "Runs  on\nFly.io ")
    assert old == new                                   # whitespace is not an edit
    edited = content_key("memory", "Runs on Render")
    assert content_key("lesson", "Runs on Fly.io") != old
    store.put("memory", old, "id1", E)
    assert store.get("memory", [old]) == {old: E} and store.get("lesson", [old]) == {}
    store.put_failed("memory", old, "id1", "unusable")
    assert store.get("memory", [old]) == {old: E}       # a failure never replaces a good row
    store.put_failed("memory", edited, "id1", "unusable answer")
    assert store.rows("memory", [edited])[edited].status == "failed"
    assert store.rows("memory", [edited])[edited].reason == "unusable answer"
    store.put("memory", edited, "id1", E)
    assert set(store.rows("memory", [old, edited])) == {edited}   # the owner's older row is gone
    assert store.by_owner("memory", ["id1"])["id1"].key == edited
    store.put("lesson", content_key("lesson", "x"), "imp_1", E, agent="main")
    assert [r.owner for r in store.of_agent("lesson", "main")] == ["imp_1"]
    assert store.counts() == {"memory": {"ok": 1}, "lesson": {"ok": 1}}


def test_a_damaged_file_is_set_aside_and_started_afresh(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    store = EnrichmentStore(path)
    store.put("memory", "k", "o", E)
    assert store.get("memory", ["k"]) == {"k": E}
    assert (tmp_path / "e.sqlite3.corrupt").exists()


def test_without_a_sidecar_lookup_finds_nothing_and_creates_nothing(tmp_path: Path) -> None:
    from kioku.retrieval.enrichment import default_path

    assert lookup("memory", ["k"]) == {} and not default_path().exists()


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite3"

    def write(n: int) -> None:
        store = EnrichmentStore(path)
        for i in range(25):
            store.put("memory", f"k{n}-{i}", f"o{n}-{i}", E)
        store.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert EnrichmentStore(path).counts() == {"memory": {"ok": 100}}
