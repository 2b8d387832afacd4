"""kioku.lessons.store.journal: no secret is journaled, applied, snapshotted or embedded, whoever writes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from kioku.lessons.store import journal as store_journal
from kioku.lessons.store.client import Record
from kioku.lessons.store.journal import Journal
from kioku.lessons.store.journal_lines import without_secrets

TOKEN = "ghp_" + "Zq9XyW8vU7tS6rR5qP4o" + "N3mL2kJ1iH0gF9eD"
SPACED = " ".join(TOKEN[i:i + 8] for i in range(0, 40, 8))


def _journal_text(store_dir: Path) -> str:
    folder = store_journal.journal_dir(store_dir)
    parts = [p.read_text(encoding="utf-8") for p in folder.rglob("*.jsonl")]
    parts += [gzip.decompress(p.read_bytes()).decode("utf-8") for p in folder.rglob("*.gz")]
    return "\n".join(parts)


def test_an_entry_loses_its_secrets_but_not_its_ids_hashes_or_times() -> None:
    entry = {"op": "upsert", "ids": [f"imp_{TOKEN}"], "documents": [f"use {SPACED} to log in"],
             "metadatas": [{"task": f"log in with {TOKEN}", "session_id": TOKEN, "prompt_sha256": "ab" * 32,
                            "created_at_epoch": 1.0, "tags": "gh,auth"}]}
    out = without_secrets(entry)
    assert out["ids"] == entry["ids"]  # ids are the caller's keys
    assert out["documents"] == ["use [REDACTED:github_token] to log in"]
    meta = out["metadatas"][0]
    assert meta["task"] == "log in with [REDACTED:github_token]" and meta["tags"] == "gh,auth"
    assert meta["session_id"] == TOKEN and meta["created_at_epoch"] == 1.0
    assert entry["documents"] == [f"use {SPACED} to log in"]  # a copy


def test_append_writes_and_hands_back_the_redacted_entry(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "chroma")
    entry = {"op": "update", "ids": ["l1"], "metadatas": [{"reason": f"failed with {TOKEN}"}]}
    with journal.lock():
        journal.append(entry)
    assert entry["metadatas"] == [{"reason": "failed with [REDACTED:github_token]"}]  # what the caller applies
    assert TOKEN not in journal.path.read_text(encoding="utf-8")


def test_a_store_write_keeps_no_secret_in_journal_chroma_or_vectors(store, store_dir: Path) -> None:
    store.upsert("main", "improvements", [Record("l1", f"log in with {SPACED} then push", {"task": TOKEN})])
    store.update_metadata("main", "improvements", ["l1"], [{"reason": f"token {TOKEN.encode().hex()}"}])
    [rec] = store.get("main", "improvements")
    assert rec.document == "log in with [REDACTED:github_token] then push"
    assert rec.metadata["task"] == "[REDACTED:github_token]" and "[REDACTED:" in rec.metadata["reason"]
    assert TOKEN not in _journal_text(store_dir) and TOKEN.encode().hex() not in _journal_text(store_dir)
    for path in store_dir.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    # the vector is the redacted text's
    got = store.query("main", "improvements", "log in with [REDACTED:github_token] then push", n_results=1)
    assert got and got[0].id == "l1" and got[0].relevance > 0.99


def test_snapshots_and_merged_old_entries_are_redacted(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "chroma")
    collections = {"agent_main_improvements": {"agent": "main", "kind": "improvements", "project_id": "",
                                               "records": {"l1": (f"old lesson {TOKEN}", {"task": SPACED})}}}
    with journal.lock():
        journal.write_snapshot(collections)
    lines = [json.loads(x) for x in _journal_text(tmp_path / "chroma").splitlines() if x.strip()]
    assert lines and all(TOKEN not in json.dumps(x) and SPACED not in json.dumps(x) for x in lines)
