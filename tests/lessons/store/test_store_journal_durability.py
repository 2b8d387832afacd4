"""A write is acknowledged once journaled: crashes and broken stores lose nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kioku.lessons.store import journal as journal_mod
from kioku.lessons.store.client import AgentStore, Record

from store_helpers import py_env, run_py

WRITER = r'''
import sys, random
from pathlib import Path
from kioku.lessons.store.client import AgentStore, Record
words = "cache retry parse index query schema commit branch review deploy lint format token vector".split()
store = AgentStore(Path(sys.argv[1]))
prefix, n = sys.argv[2], int(sys.argv[3])
rng = random.Random(prefix)
i = 0
while i < n:
    size = rng.choice([1, 1, 1, 5])
    recs = [Record(f"{prefix}-{i + j}", f"lesson {prefix}-{i + j}: " + " ".join(rng.sample(words, 6)),
                   {"confidence": 0.8, "n": i + j}) for j in range(size)]
    store.upsert("writer", "improvements", recs)
    print("ack " + " ".join(r.id for r in recs), flush=True)
    i += size
'''

VERIFY = r'''
import sys, json
from pathlib import Path
from kioku.lessons.store.client import AgentStore
store = AgentStore(Path(sys.argv[1]))
applied = store.sync()
ids = json.loads(sys.stdin.read())
got = {r.id: r for r in store.get("writer", "improvements", ids=ids)}
missing = [i for i in ids if i not in got]
def unfindable():
    return [i for i in ids if i in got and store.query("writer", "improvements", got[i].document, 1)[0].id != i]
before = unfindable()
mended = {name: r.reindexed for name, r in store.reindex_unreachable().items() if r.reindexed}
print(json.dumps({"applied_by_sync": applied, "missing": missing, "unfindable_after_sync": before,
                  "reindexed": mended, "unfindable": unfindable(),
                  "count": store.count("writer", "improvements"), "pending": store.pending()}))
'''


@pytest.mark.slow
def test_sigkill_at_random_points_loses_no_acknowledged_write(store_dir):
    rng = random.Random(int(time.time()))
    acked: list[str] = []
    for round_no in range(3):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(store_dir), f"r{round_no}", "400"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=py_env())
        target = rng.randint(3, 40)
        seen = 0
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("ack "):
                acked.extend(line.split()[1:])
                seen += 1
                if seen >= target:
                    break
        time.sleep(rng.uniform(0, 0.04))  # land anywhere inside the next write
        proc.send_signal(signal.SIGKILL)
        # acks already printed before the kill are acknowledged writes too
        rest, _ = proc.communicate(timeout=30)
        for line in rest.splitlines():
            if line.startswith("ack "):
                acked.extend(line.split()[1:])
        assert proc.returncode == -signal.SIGKILL
    assert len(acked) >= 9
    out = subprocess.run(
        [sys.executable, "-c", VERIFY, str(store_dir)], input=json.dumps(acked), capture_output=True,
        text=True, env=py_env(), timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # Chroma itself can drop a vector from its index when a writer is killed (the record stays
    # readable); the store's check finds and indexes it again, and then every write is found
    assert result["missing"] == [] and result["unfindable"] == [], result
    assert set(result["unfindable_after_sync"]) <= set(sum(result["reindexed"].values(), [])), result
    assert result["count"] >= len(set(acked)) and result["pending"] == 0


CRASH_AT = r'''
import os, signal, sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore, Record
from kioku.lessons.store import client as store_client, journal
point = sys.argv[2]
store = AgentStore(Path(sys.argv[1]))
store.upsert("crash", "improvements", [Record("before", "an earlier lesson about tabs", {})])
die = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
if point == "before_apply":      # journaled, Chroma untouched
    store_client.AgentStore._apply = die
elif point == "before_state":    # applied to Chroma, applied_seq not recorded
    journal.Journal.set_applied = die
store.upsert("crash", "improvements", [Record("victim", "the write during which we crashed", {"k": 1})])
'''


@pytest.mark.slow
@pytest.mark.parametrize("point", ["before_apply", "before_state"])
def test_crash_between_journal_and_apply_is_recovered_by_the_next_process(store_dir, point):
    proc = run_py(CRASH_AT, str(store_dir), point, check=False)
    assert proc.returncode == -signal.SIGKILL
    journal = journal_mod.Journal(store_dir)
    assert journal.pending_count() == 1
    # a fresh reader applies pending entries first (read-your-writes), no explicit sync
    store = AgentStore(store_dir)
    hits = store.query("crash", "improvements", "the write during which we crashed", 1)
    assert [h.id for h in hits] == ["victim"]
    assert journal.pending_count() == 0
    assert store.count("crash", "improvements") == 2
    assert store.lexical_search("crash", "improvements", "crashed", 2)[0][0] == "victim"


def test_torn_journal_tail_is_cut_and_never_applied(store, store_dir):
    store.upsert("t", "improvements", [Record("a", "first lesson", {})])
    path = journal_mod.Journal(store_dir).path
    with path.open("ab") as handle:  # a writer killed inside write(): half a line, never acked
        handle.write(b'{"seq": 2, "op": "upsert", "collection": "agent_t_impro')
    fresh = AgentStore(store_dir)
    assert fresh.journal.pending_count() == 0
    fresh.upsert("t", "improvements", [Record("b", "second lesson", {})])
    lines = path.read_text().splitlines()
    assert [json.loads(l)["seq"] for l in lines] == [1, 2]
    assert {r.id for r in fresh.get("t", "improvements")} == {"a", "b"}


LOCKED = r'''
import sys
from pathlib import Path
from kioku.lessons.store import chroma_process
def locked(self, **kwargs):  # what Chroma's process answers while another process holds SQLite's lock
    raise chroma_process._error("OperationalError", "database is locked", False)
chroma_process.Collection.upsert = locked
from kioku.lessons.store.client import AgentStore, Record
store = AgentStore(Path(sys.argv[1]))
store.upsert("lk", "improvements", [Record("during", "stored while chroma was locked", {"x": 1})])
print("acknowledged", store.pending())
'''


def test_locked_chroma_write_is_acknowledged_then_synced(store, store_dir):
    store.upsert("lk", "improvements", [Record("before", "stored normally", {})])
    proc = run_py(LOCKED, str(store_dir))
    assert proc.stdout.strip() == "acknowledged 1"
    assert "journaled but not applied" in proc.stderr and "kioku store sync" in proc.stderr
    fresh = AgentStore(store_dir)
    assert fresh.sync() == 1
    assert fresh.sync() == 0
    assert fresh.query("lk", "improvements", "stored while chroma was locked", 1)[0].id == "during"


WRITE_ONE = r'''
import sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore, Record
store = AgentStore(Path(sys.argv[1]))
store.upsert("cx", "improvements", [Record(sys.argv[2], "lesson " + sys.argv[2] + " " + sys.argv[3], {})])
print(store.pending())
'''


@pytest.mark.slow
def test_corrupt_chroma_store_loses_nothing(store_dir):
    run_py(WRITE_ONE, str(store_dir), "one", "use feature flags for risky rollouts")
    with (store_dir / "chroma.sqlite3").open("r+b") as handle:
        handle.write(b"garbage!" * 4096)
    proc = run_py(WRITE_ONE, str(store_dir), "two", "pin dependency versions in lockfiles")
    # the unreadable store is detected on open and rebuilt from the journal, so the write applies
    assert proc.stdout.strip() == "0"
    assert proc.stderr.count("rebuilt it from its journal") == 1
    code = ("import sys; from pathlib import Path; from kioku.lessons.store.client import AgentStore\n"
            "s = AgentStore(Path(sys.argv[1])); s.rebuild(reset=True)\n"
            "print(sorted(r.id for r in s.get('cx', 'improvements')), s.pending(),"
            " s.query('cx', 'improvements', 'lockfiles', 1)[0].id)")
    out = run_py(code, str(store_dir)).stdout.split("\n")[0]
    assert out == "['one', 'two'] 0 two"
    assert list(store_dir.parent.glob("chroma.broken-*"))  # the corrupt files were kept aside


def test_journal_rotates_and_rebuild_replays_archives(store, store_dir, monkeypatch):
    monkeypatch.setattr(journal_mod, "ROTATE_BYTES", 1500)
    for n in range(30):
        store.upsert("rot", "improvements", [Record(f"id{n}", f"lesson number {n} about topic {n % 7}", {"n": n})])
    store.delete("rot", "improvements", ["id0"])
    store.update_metadata("rot", "improvements", ["id1"], [{"n": 100}])
    j = store.journal
    archives = sorted(j.archive_dir.glob("journal-*.jsonl.gz"))
    assert len(archives) >= 3
    assert j.path.stat().st_size < 1500 + 400
    seqs = [e["seq"] for e in j.all_entries()]
    assert seqs == list(range(1, 33))
    assert j.applied_seq() == 32 and j.pending_count() == 0
    before = {r.id: r.metadata for r in store.get("rot", "improvements")}
    assert store.rebuild() == 32
    after = {r.id: r.metadata for r in store.get("rot", "improvements")}
    assert after == before and "id0" not in after and after["id1"]["n"] == 100
    assert store.query("rot", "improvements", "lesson number 17 about topic 3", 1)[0].id == "id17"
    assert os.stat(j.path).st_mode & 0o777 == 0o600
    assert os.stat(j.dir).st_mode & 0o777 == 0o700


def test_compaction_folds_archives_into_a_replayable_snapshot(store, store_dir, monkeypatch):
    monkeypatch.setattr(journal_mod, "ROTATE_BYTES", 600)
    monkeypatch.setattr(journal_mod, "MAX_ARCHIVES", 2)
    for n in range(12):
        store.upsert("cmp", "improvements", [Record(f"id{n}", f"compacted lesson {n} on subject {n % 5}",
                                                    {"n": n, "usage_count": 0})])
        store.update_metadata("cmp", "improvements", [f"id{n}"], [{"usage_count": n}])
    store.delete("cmp", "improvements", ["id3"])
    store.copy_agent("cmp", "cmp-b")
    store.upsert("gone", "evaluations", [Record("g", "dropped later", {})])
    store.drop_agent("gone")
    for n in range(4):
        store.upsert("cmp-b", "improvements", [Record(f"b{n}", f"only in the copy {n}", {})])
    j = store.journal
    snapshots = list(j.archive_dir.glob("*.snapshot.jsonl.gz"))
    assert snapshots and len(j.archives()) <= 3
    total_entries = len(list(j.all_entries()))
    assert total_entries < j.applied_seq()  # history was folded
    before = {a: {r.id: (r.document, r.metadata) for r in store.get(a, "improvements")} for a in ("cmp", "cmp-b")}
    assert "id3" not in before["cmp"] and before["cmp"]["id7"][1]["usage_count"] == 7
    store.rebuild()
    after = {a: {r.id: (r.document, r.metadata) for r in store.get(a, "improvements")} for a in ("cmp", "cmp-b")}
    assert after == before
    assert store.agents() == ["cmp", "cmp-b"]
    assert store.query("cmp-b", "improvements", "only in the copy 2", 1)[0].id == "b2"
