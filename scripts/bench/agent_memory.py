#!/usr/bin/env python3
"""Agent-memory benchmark: add throughput, warm retrieval latency, cold `kioku lessons search`.

    python scripts/bench/agent_memory.py [--n 100000] [--precomputed] [--json OUT] [--dir DIR]

What it does (all through Kioku's real code paths, real ChromaDB, real MiniLM):
1. Generates ``--n`` varied synthetic lessons (deterministic, seeded) with the full
   improvement metadata schema (Kioku's conventions: untested ``success_rate`` -1.0,
   ``last_used`` "", 10 % deprecated, ...).
2. Builds the global store of agent ``bench`` in ``<dir>/claude/chroma_data`` with
   ``AgentStore.upsert`` in batches of ``--batch`` (journal + lock + Chroma + lexical index).
   Default: embeddings are computed inside ``upsert`` (end-to-end throughput, about 180
   texts/s for the model on this 2-core machine, i.e. ~9 min for 100k).
   ``--precomputed``: the same real MiniLM vectors are computed once and cached in
   ``.cache/bench/`` (reused by later runs), and the store gets them through its
   ``embedder`` hook, so the add throughput measures the store alone.
3. Warm retrieval in this process: ``AgentStore.query`` (embed the task + nearest 50,
   no ``where`` filter: retrieval never scans all documents), ``lexical_search`` (FTS5)
   and, if present, ``kioku.lessons.lesson_retrieval.retrieve`` (the whole hybrid pipeline):
   p50/p95 over ``--queries`` unseen task descriptions.
4. Cold: wall time of fresh ``python -m kioku lessons search --agent bench "task"``
   processes (``--cold-runs``), and of a fresh process doing one ``AgentStore.query``.

Prints a JSON document (and writes it to ``--json OUT``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

SITUATIONS = [
    "a test fails only in CI", "the build is slow", "a dependency upgrade breaks imports",
    "the user asks for a refactor", "a migration touches production data", "logs are too noisy",
    "an API returns intermittent 502 errors", "the diff is larger than 500 lines", "a flaky test appears",
    "the task mentions performance", "a config file is missing", "the user writes in Japanese",
    "a merge conflict appears", "memory usage grows over time", "a shell command hangs",
    "the docs disagree with the code", "a secret shows up in a diff", "a new endpoint is added",
    "a cron job silently stops", "the schema changes", "a benchmark regresses", "a PR needs review",
    "the repository is a monorepo", "timezones are involved", "a CSV import has bad rows",
]
AREAS = [
    "the payment service", "the React frontend", "the Python CLI", "the Go backend", "the data pipeline",
    "the auth module", "the search indexer", "the mobile app", "the billing reports", "the Terraform code",
    "the Kubernetes manifests", "the test harness", "the plugin system", "the notification worker",
    "the GraphQL gateway", "the SQL migrations", "the cache layer", "the logging setup", "the ML training job",
    "the documentation site",
]
ACTIONS = [
    "reproduce it locally with the exact CI command first", "bisect the change with git bisect",
    "pin the versions in the lockfile", "add a regression test before fixing", "profile before optimising",
    "split the change into small reviewed commits", "read the existing conventions before writing code",
    "grep for all call sites before renaming", "run the full test suite not just the changed file",
    "check the retry and timeout settings", "write the migration to be reversible", "add structured logging",
    "use UTC everywhere and convert at the edges", "validate inputs at the boundary", "ask the user one clear question",
    "prefer the standard library over a new dependency", "measure with a benchmark and keep the numbers",
    "search the issue tracker for the error message", "keep the public API unchanged", "document the decision",
]
REASONS = [
    "because guessing wasted an hour last time", "since the reviewer asked for it twice",
    "which made the fix obvious", "so the rollback stays safe", "because the error message was misleading",
    "as the previous attempt broke production", "which cut the runtime in half", "to keep the diff reviewable",
    "because the user prefers explicit steps", "since hidden state caused the bug", "which avoided a flaky retry loop",
    "because the team agreed on it", "so that on-call can read it at 3am", "to avoid silent data loss",
    "which the linter enforces anyway", "because mocks hid the real failure",
]
CATEGORIES = ["search_strategy", "error_handling", "code_quality", "testing_patterns", "documentation_style",
              "naming_conventions", "architecture_patterns", "api_usage", "domain_terminology", "workflow"]
TAGS = ["python", "ci", "git", "perf", "db", "api", "docs", "review", "infra", "security", "ux", "data"]


def lessons(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        text = (f"When {rng.choice(SITUATIONS)} in {rng.choice(AREAS)}, {rng.choice(ACTIONS)}, "
                f"{rng.choice(REASONS)}.")
        if rng.random() < 0.3:
            text += f" Also {rng.choice(ACTIONS)}."
        if text in seen:
            text += f" (case {len(out)})"
        seen.add(text)
        out.append(text)
    return out


def tasks(n: int, seed: int = 99) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.choice(['Fix', 'Investigate', 'Speed up', 'Review', 'Refactor'])} {rng.choice(AREAS)}: "
            f"{rng.choice(SITUATIONS)}" for _ in range(n)]


def metadata(i: int, rng: random.Random) -> dict:
    now = time.time() - rng.uniform(0, 90 * 86400)
    iso = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(now))
    used = rng.random() < 0.5
    usage = rng.randint(1, 40) if used else 0
    succ = rng.randint(0, usage) if used else 0
    deprecated = rng.random() < 0.1
    return {
        "agent_name": "bench", "category": rng.choice(CATEGORIES), "learned_from": rng.choice(
            ["manual", "self_evaluation", "user_feedback"]), "confidence": round(rng.uniform(0.5, 0.95), 2),
        "success_rate": round(succ / usage, 3) if used else -1.0, "tested": used, "usage_count": usage,
        "success_count": succ, "created_at": iso, "created_at_epoch": now, "last_used": iso if used else "",
        "tags": rng.sample(TAGS, rng.randint(1, 3)), "cross_validated": rng.random() < 0.05, "source": "self",
        "original_id": "", "consolidation_eligible": True, "context_tags": "", "deprecated": deprecated,
        "deprecated_reason": "success rate below 40% after 10 uses" if deprecated else "",
    }


class CachedEmbedder:
    """Real MiniLM vectors computed earlier, looked up by text (the store's embedder hook)."""

    def __init__(self, texts: list[str], vectors) -> None:
        self.row = {t: i for i, t in enumerate(texts)}
        self.vectors = vectors
        self._live = None

    def embed(self, texts):
        import numpy as np

        rows = [self.row.get(t) for t in texts]
        if all(r is not None for r in rows):
            return self.vectors[rows]
        if self._live is None:
            from kioku.retrieval.embedder import get_embedder

            self._live = get_embedder()
        return np.asarray(self._live.embed(list(texts)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms_stats(samples: list[float]) -> dict:
    return {"p50_ms": round(1000 * statistics.median(samples), 2), "p95_ms": round(1000 * percentile(samples, 0.95), 2),
            "n": len(samples)}


def embed_cached(texts: list[str], n: int) -> tuple[object, dict]:
    """Real MiniLM vectors for ``texts``, cached in ``.cache/bench`` and extended as needed.

    ``lessons(n)`` is prefix-stable (the first k lessons do not depend on n), so one cache
    file serves every n: a larger run embeds only the texts beyond the cached prefix.
    """
    import numpy as np

    from kioku.retrieval.embedder import get_embedder

    key = hashlib.sha256("\n".join(texts[:50]).encode()).hexdigest()[:12]
    folder = REPO / ".cache" / "bench"
    have = None
    for path in sorted(folder.glob(f"agent_memory_*_{key}.npy"), key=lambda p: -int(p.name.split("_")[2])):
        have = np.load(path)
        break
    done = 0 if have is None else min(len(have), n)
    info: dict = {"vector_cache": f".cache/bench/agent_memory_<n>_{key}.npy", "cached": done,
                  "embedded_now": n - done}
    if done >= n:
        return have[:n], info
    emb = get_embedder()
    t0 = time.perf_counter()
    parts = [have[:done]] if done else []
    for i in range(done, n, 2048):
        parts.append(emb.embed(texts[i:min(n, i + 2048)]))
        if (i - done) % 20480 == 0 and i > done:  # checkpoint long runs
            _save(folder, key, np.concatenate(parts).astype(np.float32))
    secs = time.perf_counter() - t0
    vecs = np.concatenate(parts).astype(np.float32)
    _save(folder, key, vecs)
    info["embed_texts_per_s"] = round((n - done) / secs, 1)
    return vecs, info


def _save(folder: Path, key: str, vecs) -> None:
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".tmp_{key}.npy"
    np.save(tmp, vecs)
    tmp.replace(folder / f"agent_memory_{len(vecs)}_{key}.npy")
    for old in folder.glob(f"agent_memory_*_{key}.npy"):
        if int(old.name.split("_")[2]) < len(vecs):
            old.unlink()


def cold_runs(env: dict, cwd: Path, runs: int, argv: list[str]) -> list[float]:
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise SystemExit(f"cold run failed: {' '.join(argv[:4])}...\n{proc.stderr[-2000:]}")
    return walls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--precomputed", action="store_true", help="reuse cached real MiniLM vectors")
    ap.add_argument("--dir", type=Path, help="work folder (default: a temporary one, removed)")
    ap.add_argument("--reuse", action="store_true", help="skip building if --dir already holds the store")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--embed-only", action="store_true", help="only fill the vector cache (for --precomputed)")
    args = ap.parse_args(argv)

    work = args.dir or Path(tempfile.mkdtemp(prefix="kioku-bench-"))
    claude = work / "claude"
    os.environ.update({"CLAUDE_CONFIG_DIR": str(claude), "KIOKU_HOME": str(claude / "kioku"),
                       "KIOKU_USER_HOME": str(work / "home")})
    os.environ.pop("KIOKU_CHROMA_HOST", None)
    os.environ.pop("KIOKU_CHROMA_PORT", None)
    project = work / "project"
    project.mkdir(parents=True, exist_ok=True)

    from kioku.lessons.store.client import AgentStore, Record
    from kioku.lessons.store.journal import journal_dir
    from kioku.infra import paths

    texts = lessons(args.n)
    result: dict = {"n": args.n, "batch": args.batch, "mode": "precomputed" if args.precomputed else "end_to_end",
                    "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                "loadavg_start": [round(x, 1) for x in os.getloadavg()]}}
    embedder = None
    if args.embed_only:
        print(json.dumps(embed_cached(texts, args.n)[1]))
        return 0
    if args.precomputed:
        vecs, info = embed_cached(texts, args.n)
        result["embedding"] = info
        embedder = CachedEmbedder(texts, vecs)
    chroma_dir = paths.global_chroma_dir()
    store = AgentStore(chroma_dir, embedder=embedder)

    from kioku.lessons.store import chroma_process

    chroma_process.process().call("ping")  # starting Chroma's process is not part of the add throughput
    if not (args.reuse and store.count("bench", "improvements") >= args.n):
        rng = random.Random(1)
        t0 = time.perf_counter()
        for start in range(0, args.n, args.batch):
            chunk = range(start, min(args.n, start + args.batch))
            store.upsert("bench", "improvements", [Record(f"imp-{i:06d}", texts[i], metadata(i, rng)) for i in chunk])
        secs = time.perf_counter() - t0
        result["add"] = {"docs": args.n, "seconds": round(secs, 1), "docs_per_s": round(args.n / secs, 1),
                         "includes_embedding": not args.precomputed, "pending_after": store.pending()}
    result["count"] = store.count("bench", "improvements")
    result["disk_mb"] = {
        "chroma_dir_total": round(sum(p.stat().st_size for p in chroma_dir.rglob("*") if p.is_file()) / 2**20, 1),
        "journal_and_archives": round(sum(p.stat().st_size for p in journal_dir(chroma_dir).rglob("*")
                                          if p.is_file()) / 2**20, 1),
        "lexical_index": round(sum(p.stat().st_size for p in chroma_dir.glob("kioku_lexical*")) / 2**20, 1),
    }

    # warm retrieval: a fresh store object on the same process-wide client, real query embedding
    queries = tasks(args.queries)
    reader = AgentStore(chroma_dir)
    reader.query("bench", "improvements", "warm up", 50)
    lat = []
    for q in queries:
        t0 = time.perf_counter()
        reader.query("bench", "improvements", q, n_results=50)
        lat.append(time.perf_counter() - t0)
    result["warm_query_n50"] = ms_stats(lat)
    # the same queries split in two: embedding the task, then the nearest-neighbour search
    from kioku.retrieval.embedder import get_embedder

    lat, qvecs = [], []
    for q in queries:
        t0 = time.perf_counter()
        qvecs.append(get_embedder().embed([q])[0])
        lat.append(time.perf_counter() - t0)
    result["warm_embed_query"] = ms_stats(lat)
    lat = []
    for v in qvecs:
        t0 = time.perf_counter()
        reader.query_vector("bench", "improvements", v, n_results=50)
        lat.append(time.perf_counter() - t0)
    result["warm_vector_search_n50"] = ms_stats(lat)
    lat = []
    for q in queries:
        t0 = time.perf_counter()
        reader.lexical_search("bench", "improvements", q, 50)
        lat.append(time.perf_counter() - t0)
    result["warm_lexical_k50"] = ms_stats(lat)
    try:
        from kioku.lessons.lesson_retrieval import retrieve
    except ImportError:
        retrieve = None
    if retrieve is not None:
        retrieve("bench", queries[0], 5, project_root=project)
        lat, found = [], 0
        for q in queries:
            t0 = time.perf_counter()
            hits = retrieve("bench", q, 5, project_root=project)
            lat.append(time.perf_counter() - t0)
            found += bool(hits)
        result["warm_retrieve_limit5"] = {**ms_stats(lat), "queries_with_hits": found}

    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    task = queries[1]
    walls = cold_runs(env, project, args.cold_runs, [sys.executable, "-m", "kioku", "lessons", "search", "--agent",
                                                     "bench", task, "--json"])
    result["cold_kioku_improvements_s"] = {"median": round(statistics.median(walls), 3),
                                           "runs": [round(w, 3) for w in walls]}
    code = ("import sys; from pathlib import Path; from kioku.lessons.store.client import AgentStore; "
            "print(len(AgentStore(Path(sys.argv[1])).query('bench', 'improvements', sys.argv[2], 50)))")
    walls = cold_runs(env, project, args.cold_runs, [sys.executable, "-c", code, str(chroma_dir), task])
    result["cold_store_query_process_s"] = {"median": round(statistics.median(walls), 3),
                                            "runs": [round(w, 3) for w in walls]}
    walls = cold_runs(env, project, max(3, args.cold_runs // 2), [sys.executable, "-c", "pass"])
    result["python_startup_s"] = round(statistics.median(walls), 3)

    result["machine"]["loadavg_end"] = [round(x, 1) for x in os.getloadavg()]
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    if args.dir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
