"""A record Chroma keeps but its vector search cannot reach is found and indexed again.

The damage is made for real in Chroma's own files, the way known Chroma faults leave a store:
the record's row in Chroma's write-ahead log is gone and the HNSW index files are rebuilt from
what the log still holds on the next open, so ``get`` returns the record and no query finds it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from store_helpers import run_py

LESSONS = [f"lesson {i}: " + text for i, text in enumerate([
    "pin the node version in the ci image", "run the linter before pushing a branch",
    "rotate the api token after a leak", "keep migrations reversible in postgres",
    "cache the wheel downloads between builds", "prefer small commits with one topic",
    "retry flaky network calls with backoff", "log the request id in every handler",
    "write the changelog entry with the fix", "check the lockfile into the repository",
    "use multi-stage docker builds for small images", "review the schema diff before deploy",
])]

WRITE = r'''
import json, sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore, Record
docs = json.loads(sys.argv[2])
AgentStore(Path(sys.argv[1])).upsert("reach", "improvements",
    [Record(f"l{i}", d, {"confidence": 0.5}) for i, d in enumerate(docs)])
'''

DAMAGE = r'''
import shutil, sqlite3, sys
from pathlib import Path
folder, lost = Path(sys.argv[1]), sys.argv[2]
con = sqlite3.connect(folder / "chroma.sqlite3")
vector_segments = [row[0] for row in con.execute("SELECT id FROM segments WHERE scope = 'VECTOR'")]
assert vector_segments
removed = con.execute("DELETE FROM embeddings_queue WHERE id = ?", (lost,)).rowcount
for seg in vector_segments:
    con.execute("DELETE FROM max_seq_id WHERE segment_id = ?", (seg,))
    shutil.rmtree(folder / seg, ignore_errors=True)
con.commit()
print(removed)
'''

PROBE = r'''
import json, sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore
store = AgentStore(Path(sys.argv[1]))
if sys.argv[2] == "sync":
    store.sync()
got = {r.id: r.document for r in store.get("reach", "improvements")}
unreachable = sorted(i for i, doc in got.items() if store.query("reach", "improvements", doc, 1)[0].id != i)
print(json.dumps({"ids": sorted(got), "unreachable": unreachable, "pending": store.pending(),
                  "warning": store.last_warning}))
'''

MEND = r'''
import json, sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore
found = AgentStore(Path(sys.argv[1])).reindex_unreachable(sys.argv[2] if len(sys.argv) > 2 else None)
print(json.dumps({name: [r.checked, r.reindexed, r.still_unreachable] for name, r in found.items()}))
'''

PENDING = r'''
import sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore, Record
def refuse(*args, **kwargs):
    raise RuntimeError("chroma is busy")
AgentStore._apply = refuse  # journaled, not applied: the next process applies it
AgentStore(Path(sys.argv[1])).upsert("reach", "improvements", [Record("late", "a lesson written last", {})])
'''


def probe(folder: Path, mode: str = "") -> dict:
    return json.loads(run_py(PROBE, str(folder), mode).stdout)


def damaged_store(folder: Path, lost: str = "l5") -> None:
    run_py(WRITE, str(folder), json.dumps(LESSONS))
    assert run_py(DAMAGE, str(folder), lost).stdout.strip() == "1"
    seen = probe(folder)
    # the damage is real: Chroma still returns the record, its vector search never does
    assert lost in seen["ids"] and len(seen["ids"]) == len(LESSONS)
    assert seen["unreachable"] == [lost]


@pytest.mark.slow
def test_unreachable_record_is_found_and_indexed_again(store_dir):
    damaged_store(store_dir)
    found = json.loads(run_py(MEND, str(store_dir)).stdout)
    [(name, (checked, reindexed, still))] = found.items()
    assert name.startswith("agent_reach") and checked == len(LESSONS)
    assert reindexed == ["l5"] and still == []
    after = probe(store_dir)
    assert after["unreachable"] == [] and after["pending"] == 0
    again = json.loads(run_py(MEND, str(store_dir), "reach").stdout)
    assert [v[1] for v in again.values()] == [[]]  # nothing left to mend
    assert json.loads(run_py(MEND, str(store_dir), "someone-else").stdout) == {}


@pytest.mark.slow
def test_applying_writes_a_stopped_process_left_mends_the_collections_they_touch(store_dir):
    damaged_store(store_dir)
    run_py(PENDING, str(store_dir))
    seen = probe(store_dir, "sync")
    assert seen["pending"] == 0 and "late" in seen["ids"]
    assert seen["unreachable"] == []
    assert "indexed again" in (seen["warning"] or "")


@pytest.mark.slow
def test_sync_verify_and_daily_maintenance_mend_the_store_the_cli_uses(project, kioku):
    from kioku.lessons import scopes

    folder = scopes.chroma_dir("global", project)
    damaged_store(folder)
    out = kioku("store", "sync", "--verify", cwd=project)
    assert out.returncode == 0, out.stderr
    assert f"global: {len(LESSONS)} record(s) checked; vector search reached {len(LESSONS) - 1}; " \
           "indexed again: 1" in out.stdout
    assert probe(folder)["unreachable"] == []
    out = kioku("store", "sync", "--verify", cwd=project)
    assert "vector search reached all of them" in out.stdout

    run_py(DAMAGE, str(folder), "l7")
    assert probe(folder)["unreachable"] == ["l7"]
    out = kioku("lessons", "maintain", "--agent", "reach", "--daily", "--json", cwd=project,
                    env={"KIOKU_BACKGROUND_MAINTENANCE": "0"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["reindexed"] == {"global": 1}
    assert probe(folder)["unreachable"] == []
    assert str(folder).startswith(os.environ["HOME"])  # the test's home, never the real one


def test_more_records_of_one_text_than_neighbours_asked_are_not_reported(store):
    from kioku.lessons.store import reachability
    from kioku.lessons.store.client import Record

    same = [Record(f"d{i}", "the very same lesson text", {}) for i in range(reachability.NEIGHBOURS + 4)]
    store.upsert("dup", "improvements", same + [Record("other", "another lesson entirely", {})])
    [found] = store.reindex_unreachable("dup").values()
    assert found.checked == len(same) + 1
    assert found.reindexed == [] and found.still_unreachable == []
