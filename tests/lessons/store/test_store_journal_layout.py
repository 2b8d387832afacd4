"""The journal lives beside the Chroma folder; a journal kept inside it (earlier layout) is moved
out on first open, under the store's lock, without losing or duplicating an entry."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from kioku.lessons.store import journal as journal_mod
from kioku.lessons.store.client import AgentStore, Record
from kioku.lessons.store.journal import Journal, journal_dir

from store_helpers import py_env


def _seed(store_dir: Path) -> AgentStore:
    store = AgentStore(store_dir)
    store.upsert("lay", "improvements", [Record(f"id{n}", f"layout lesson {n} about caching", {"n": n})
                                         for n in range(3)])
    store.update_metadata("lay", "improvements", ["id1"], [{"n": 10}])
    return store


def _to_old_layout(store_dir: Path) -> Path:
    """Put the journal back where earlier versions kept it (inside the Chroma folder)."""
    legacy = store_dir / ".kioku-journal"
    os.rename(journal_dir(store_dir), legacy)
    return legacy


def _bodies(journal: Journal) -> list[str]:
    return [json.dumps({k: v for k, v in e.items() if k != "seq"}, sort_keys=True) for e in journal.all_entries()]


def test_journal_is_a_sibling_of_the_chroma_folder(store_dir):
    store = _seed(store_dir)
    assert store.journal.dir == store_dir.parent.resolve() / "chroma.kioku-journal"
    assert store.journal.path.is_file() and not (store_dir / ".kioku-journal").exists()
    assert os.stat(store.journal.dir).st_mode & 0o777 == 0o700


def test_old_layout_is_moved_out_on_first_open(store_dir):
    store = _seed(store_dir)
    before = _bodies(store.journal)
    state = store.journal.state()
    legacy = _to_old_layout(store_dir)
    reopened = AgentStore(store_dir)
    assert not legacy.exists() and reopened.journal.dir.is_dir()
    moved = reopened.journal.state()
    assert _bodies(reopened.journal) == before and moved.pop("moved_at") > 0 and moved == state
    assert reopened.pending() == 0
    got = {r.id: r.metadata["n"] for r in reopened.get("lay", "improvements")}
    assert got == {"id0": 0, "id1": 10, "id2": 2}


def test_entries_an_earlier_version_wrote_after_the_move_are_merged_once(store_dir):
    store = _seed(store_dir)
    _to_old_layout(store_dir)
    Journal(store_dir)  # the move (records when it happened)
    before = _bodies(Journal(store_dir))
    # a process of an earlier version then wrote into a new in-folder journal of its own
    legacy = store_dir / ".kioku-journal"
    legacy.mkdir()
    late = {"seq": 1, "ts": time.time() + 1, "op": "upsert", "collection": store.name("lay", "improvements"),
            "agent": "lay", "kind": "improvements", "project_id": None, "ids": ["late"],
            "documents": ["a lesson written by an older Kioku after the move"], "metadatas": [{"n": 99}]}
    (legacy / "journal.jsonl").write_text(json.dumps(late) + "\n" + '{"seq": 2, "ts": 1, "op": "upsert", "torn')
    reopened = AgentStore(store_dir)
    assert not legacy.exists() and list(store_dir.parent.glob("chroma.kioku-journal.legacy-*"))  # kept aside
    bodies = _bodies(reopened.journal)
    assert bodies[: len(before)] == before and len(bodies) == len(before) + 1  # only the new line
    assert [e["seq"] for e in reopened.journal.all_entries()] == list(range(1, len(bodies) + 1))
    got = {r.id: r.metadata["n"] for r in reopened.get("lay", "improvements")}  # applied on read
    assert got == {"id0": 0, "id1": 10, "id2": 2, "late": 99} and reopened.pending() == 0


def test_an_old_journal_put_back_with_a_backup_is_not_replayed(store_dir):
    store = _seed(store_dir)
    _to_old_layout(store_dir)
    Journal(store_dir)  # moved out
    backup = store_dir.parent / "backup-journal"
    shutil.copytree(journal_dir(store_dir), backup)  # history as it was then
    store = AgentStore(store_dir)
    store.delete("lay", "improvements", ["id0"])  # a later write the backup does not hold
    after = _bodies(store.journal)
    shutil.copytree(backup, store_dir / ".kioku-journal")  # the old folder comes back
    reopened = AgentStore(store_dir)
    assert _bodies(reopened.journal) == after  # nothing of the old history replayed
    assert "id0" not in {r.id for r in reopened.get("lay", "improvements")}
    assert list(store_dir.parent.glob("chroma.kioku-journal.legacy-*"))  # kept, never deleted


def test_move_across_file_systems_copies_then_removes(store_dir, monkeypatch):
    store = _seed(store_dir)
    before = _bodies(store.journal)
    legacy = _to_old_layout(store_dir)
    real_rename = os.rename

    def rename(src, dst):
        if Path(src) == legacy:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(src, dst)

    monkeypatch.setattr(journal_mod.os, "rename", rename)
    moved = Journal(store_dir)
    assert not legacy.exists() and _bodies(moved) == before
    assert not list(store_dir.parent.glob(".*.migrating"))


def test_concurrent_first_opens_migrate_once(store_dir):
    store = _seed(store_dir)
    before = _bodies(store.journal)
    _to_old_layout(store_dir)
    code = ("import sys; from pathlib import Path; from kioku.lessons.store.journal import Journal; "
            "print(len(list(Journal(Path(sys.argv[1])).all_entries())))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(store_dir)], env=py_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert {o.strip() for o, _e in outs} == {str(len(before))}
    assert _bodies(Journal(store_dir)) == before and not (store_dir / ".kioku-journal").exists()
