"""Idempotency keys in the journal (Journal.find_request): a write whose request was journaled before
is not written again, unless a later write touched the same records."""

from __future__ import annotations

import json

from kioku.lessons.store.client import Record
from kioku.lessons.store.journal import Journal


def _entries(store_dir) -> list[dict]:
    return [json.loads(line) for line in Journal(store_dir).path.read_text().splitlines()]


def test_the_same_key_again_writes_nothing(store, store_dir):
    rec = [Record("k1", "retry me", {"n": 1})]
    store.upsert("kx", "improvements", rec, request_key="req-1")
    assert not store.last_write_repeated
    store.upsert("kx", "improvements", rec, request_key="req-1")
    assert store.last_write_repeated
    assert [e.get("request") for e in _entries(store_dir)] == ["req-1"]
    assert store.count("kx", "improvements") == 1


def test_another_key_or_a_later_write_to_the_records_makes_it_a_new_request(store, store_dir):
    store.upsert("kx", "improvements", [Record("k1", "first", {"n": 1})], request_key="req-1")
    store.upsert("kx", "improvements", [Record("k1", "first", {"n": 2})], request_key="req-2")
    assert not store.last_write_repeated
    store.update_metadata("kx", "improvements", ["k1"], [{"n": 3}])  # touches k1 after req-1
    store.upsert("kx", "improvements", [Record("k1", "first", {"n": 1})], request_key="req-1")
    assert not store.last_write_repeated
    assert store.get("kx", "improvements")[0].metadata["n"] == 1
    store.drop_agent("kx")  # the collection is gone: the same request saves again
    store.upsert("kx", "improvements", [Record("k1", "first", {"n": 1})], request_key="req-1")
    assert not store.last_write_repeated and store.count("kx", "improvements") == 1


def test_a_key_in_a_torn_last_line_was_never_acknowledged(store_dir):
    journal = Journal(store_dir)
    with journal.lock():
        journal.append({"op": "noop", "request": "req-9"})
    assert journal.find_request("req-9", []) == 1
    with journal.path.open("ab") as handle:
        handle.write(b'{"seq":2,"op":"upsert","request":"req-10","ids":["a"]')  # killed mid-write
    assert journal.find_request("req-10", ["a"]) is None


def test_a_retried_learn_is_saved_once(project, kioku):
    args = ("learn", "--agent", "main", "Pin the Node version in CI", "--category", "code_quality",
            "--confidence", "0.9", "--scope", "global")
    first, again = kioku(*args), kioku(*args)
    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    assert first.stdout == again.stdout  # the same id
    assert "not written again" in again.stderr
    from kioku.infra import paths

    upserts = [e for e in _entries(paths.global_chroma_dir()) if e.get("op") in ("upsert", "update")]
    assert len(upserts) == 1 and upserts[0]["request"].startswith("learn-")
    from kioku.text.secrets import redact

    lines = (paths.global_chroma_dir().with_name("chroma_data.kioku-journal") / "journal.jsonl").read_text().splitlines()
    assert all(redact(line) == line for line in lines)  # the key never reads as a credential
    stronger = kioku(*args[:-3], "0.95", "--scope", "global")  # asks something else: a new request
    assert stronger.returncode == 0 and "not written again" not in stronger.stderr
