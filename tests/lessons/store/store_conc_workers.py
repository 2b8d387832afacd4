"""Worker processes for the concurrency tests (run as scripts, not collected by pytest).

    python store_conc_workers.py raw   PATH WID N BATCH START_TS
    python store_conc_workers.py kioku PATH WID N BATCH START_TS
    python store_conc_workers.py reader PATH STOP_FILE START_TS -> JSON {queries, errors, ...}
    python store_conc_workers.py verify PATH COLLECTION      -> JSON {count, unreachable, ...}

Vectors are standard-normal 384-d, seeded by the id text (the reference workload in
chroma.md section 5); the Kioku writers get them through AgentStore's ``embedder`` hook so
the same vectors go through the journal + lock path.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

COLLECTION = "agent_conc_improvements"


class VectorFromText:
    """Deterministic random unit vectors keyed by text (stands in for the model's cost)."""

    def embed(self, texts):
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for n, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
            out[n] = v / np.linalg.norm(v)
        return out


def _wait(start_ts: float) -> None:
    while time.time() < start_ts:
        time.sleep(0.002)


def raw(path: str, wid: int, n: int, batch: int, start_ts: float) -> None:
    import chromadb

    col = chromadb.PersistentClient(path=path).get_collection(COLLECTION, embedding_function=None)
    emb = VectorFromText()
    _wait(start_ts)
    for i in range(0, n, batch):
        ids = [f"w{wid}-{j}" for j in range(i, min(n, i + batch))]
        col.add(ids=ids, embeddings=emb.embed(ids).tolist(), documents=ids)


def kioku(path: str, wid: int, n: int, batch: int, start_ts: float) -> None:
    from kioku.lessons.store.client import AgentStore, Record

    store = AgentStore(Path(path), embedder=VectorFromText())
    store.count("conc", "improvements")  # open the client before the start line, like raw
    _wait(start_ts)
    for i in range(0, n, batch):
        ids = [f"w{wid}-{j}" for j in range(i, min(n, i + batch))]
        store.upsert("conc", "improvements", [Record(x, x, {"w": wid}) for x in ids])


def reader(path: str, stop_file: str, start_ts: float) -> dict:
    """A long-lived reader querying while the writers write (a hook or `kioku lessons search`)."""
    from kioku.lessons.store.client import AgentStore

    store = AgentStore(Path(path), embedder=VectorFromText())
    _wait(start_ts)
    queries = errors = 0
    seen_max = 0
    first_error = ""
    slowest = 0.0
    while not Path(stop_file).exists():
        t0 = time.monotonic()
        try:
            hits = store.query("conc", "improvements", f"w0-{queries % 500}", 5)
            seen_max = max(seen_max, store.count("conc", "improvements"))
            del hits
        except Exception as exc:  # noqa: BLE001 - counted and reported
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"
        queries += 1
        slowest = max(slowest, time.monotonic() - t0)
        time.sleep(0.02)
    return {"queries": queries, "errors": errors, "max_count_seen": seen_max, "first_error": first_error,
            "slowest_read_s": round(slowest, 2)}


def verify(path: str, collection: str) -> dict:
    """Self-query every stored id with its own vector; unreachable = not its own nearest.

    Vectors are recomputed from the ids: ``get(include=["embeddings"])`` itself fails with
    "Error finding id" once the HNSW index has lost vectors.
    """
    import chromadb

    col = chromadb.PersistentClient(path=path).get_collection(collection, embedding_function=None)
    ids = col.get(include=[])["ids"]
    emb = VectorFromText()
    unreachable = 0
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        res = col.query(query_embeddings=emb.embed(chunk).tolist(), n_results=1, include=[])
        unreachable += sum(1 for want, found in zip(chunk, res["ids"]) if not found or found[0] != want)
    return {"count": col.count(), "ids": len(ids), "unreachable": unreachable}


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "verify":
        print(json.dumps(verify(sys.argv[2], sys.argv[3])))
    elif mode == "reader":
        print(json.dumps(reader(sys.argv[2], sys.argv[3], float(sys.argv[4]))))
    else:
        fn = raw if mode == "raw" else kioku
        fn(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]))
