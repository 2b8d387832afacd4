#!/usr/bin/env python3
"""Speed and memory of ``kioku search`` as memories grow, through the CLI and in-process.

Usage::

    python scripts/bench/search_speed.py [--sizes 30,1000] [--warm-size 10000] [--runs 5] [--json OUT]

For each size N a throw-away home and project get N memories: topic files written with
``kioku.memory.store.MemoryDir`` (the writer ``kioku remember`` uses, in batches, because
saving 10,000 memories one by one takes minutes) plus the MEMORY.md index it maintains (200
lines at most). Texts are synthetic everyday notes with varied vocabulary.

- ``cli_ms``: median wall time of ``python -m kioku search QUERY`` in a new process, after one
  search has filled the persistent vector store (every later process reads vectors, never
  re-embeds); ``first_cli_ms`` is that first search (embeds all N memories, and on a new
  Kioku home also saves the optimised model copy). The timed runs alternate between sizes.
- ``max_rss_mb``: the largest resident set of those CLI processes (``wait4`` rusage; Linux
  carries the parent's peak over exec, so this process stays small until the CLI runs end);
  ``first_max_rss_mb`` the same for the first search.
- ``warm_p50_ms`` / ``warm_p95_ms``: ``kioku.memory.search.search`` called again and again in
  one process (index and model loaded), each time with a new query (embedding included), at
  ``--warm-size``; ``warm_p50_cpu_ms`` is the CPU time of this process (wall time inflates when
  the machine is shared). The warm run keeps Kioku's state (the vector store) in
  ``<repo>/.cache/bench/`` so that reruns skip embedding the 10,000 memories
  (``--fresh`` starts empty; ``first_search_s`` is then the cost of embedding them all).

Targets: search at 1,000 memories <= 1.5 x search at 30; warm p50 <= 20 ms at 10,000;
resident memory <= 250 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

SUBJECTS = ["the API", "the billing service", "the mobile app", "the data pipeline", "the admin panel", "the CLI",
            "the search page", "the auth flow", "the nightly job", "the web client", "the payments queue"]
VERBS = ["runs on", "deploys with", "is tested with", "logs to", "is owned by", "depends on", "is configured in",
         "is documented in", "reads from", "writes to", "is monitored by"]
OBJECTS = ["Postgres 16", "Redis", "GitHub Actions", "Grafana", "the platform team", "Kafka", "S3", "Terraform",
           "the wiki", "Sentry", "Fly.io", "Playwright", "Vitest", "Keiko", "the ops handbook", "a cron at 3 am"]
KEEP_HOME = REPO / ".cache" / "bench" / "search-speed-kioku-home"  # keeps the warm run's vectors between runs
QUERIES = ["where do the logs of the payments queue go", "who owns the billing service",
           "how is the mobile app tested", "what does the nightly job depend on", "capital of Peru"]


def make_env(root: Path, kioku_home: Path | None = None) -> dict[str, str]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "KIOKU_USER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "KIOKU_HOME": str(kioku_home or home / ".claude" / "kioku")}
    os.environ.update(env)
    return env


def fill(project: Path, n: int, seed: int = 7) -> None:
    """N memories in topic files of 100 entries, and the index over them."""
    from kioku.memory.store import MemoryDir
    from kioku.memory.topics import Entry, make_id, new_topic

    rng = random.Random(seed)
    md = MemoryDir(project / ".agents" / "memory", "project")
    md.path.mkdir(parents=True, exist_ok=True)
    topics = {}
    for i in range(n):
        text = (f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
                f"(note {i}, {rng.choice(OBJECTS)} in {rng.choice(['staging', 'production', 'dev'])})")
        name = f"notes-{i // 100:03d}.md"
        topic = topics.setdefault(name, new_topic(md.path / name, "project"))
        created = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z"
        topic.entries.append(Entry(make_id(created, text), "project", created, text, text))
    for topic in topics.values():
        md.write_topic(topic)
    md.write_index(md.rebuild_index(md.load_topics()))


def cli_search(query: str, project: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, max RSS MB) of one ``kioku search`` process."""
    full = {**os.environ, **env, "PYTHONPATH": str(REPO / "src")}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kioku", "search", query], cwd=project, env=full,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"kioku search failed: {err}")
    return wall, usage.ru_maxrss / 1024


def bench_cli(sizes: Sequence[int], runs: int) -> list[dict]:
    """CLI figures per size; the timed runs alternate between sizes, so that a change in the
    machine's load during the benchmark weighs on every size alike."""
    with tempfile.TemporaryDirectory(prefix="kioku-speed-") as tmp:
        setups = []
        for n in sizes:
            root = Path(tmp) / f"n{n}"
            env = make_env(root)
            project = root / "project"
            (project / ".git").mkdir(parents=True)
            fill(project, n)
            first, first_rss = cli_search(QUERIES[0], project, env)
            setups.append((n, env, project, first, first_rss))
        walls: dict[int, list[float]] = {n: [] for n in sizes}
        peaks: dict[int, list[float]] = {n: [] for n in sizes}
        for i in range(runs):
            for n, env, project, _first, _rss in setups:
                wall, peak = cli_search(QUERIES[i % len(QUERIES)], project, env)
                walls[n].append(wall)
                peaks[n].append(peak)
        return [{"memories": n, "first_cli_ms": round(first, 1), "cli_ms": round(statistics.median(walls[n]), 1),
                 "cli_ms_all": [round(w, 1) for w in walls[n]], "max_rss_mb": round(max(peaks[n]), 1),
                 "first_max_rss_mb": round(first_rss, 1)} for n, _env, _project, first, first_rss in setups]


def bench_warm(n: int, queries: int = 60, keep: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="kioku-speed-") as tmp:
        root = Path(tmp)
        make_env(root, KEEP_HOME if keep else None)
        project = root / "project"
        (project / ".git").mkdir(parents=True)
        fill(project, n)
        from kioku.memory.search import search

        t0 = time.perf_counter()
        search(QUERIES[0], project_root=project)
        build_s = time.perf_counter() - t0
        times, cpu = [], []
        for i in range(queries):
            c0, t0 = time.process_time(), time.perf_counter()
            search(QUERIES[i % len(QUERIES)] + f" {i}", project_root=project)  # a new query: embedded
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        times.sort()
        return {"memories": n, "first_search_s": round(build_s, 2), "warm_p50_ms": round(statistics.median(times), 2),
                "warm_p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                "warm_p50_cpu_ms": round(statistics.median(cpu), 2)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="30,1000", help="memory counts for the CLI runs")
    parser.add_argument("--warm-size", type=int, default=10000, help="memory count for the in-process run (0: skip)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--fresh", action="store_true", help="do not reuse the warm run's stored vectors")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results: dict = {"cli": bench_cli([int(n) for n in args.sizes.split(",") if n], args.runs)}
    if len(results["cli"]) >= 2:
        results["ratio_largest_to_smallest"] = round(results["cli"][-1]["cli_ms"] / results["cli"][0]["cli_ms"], 2)
    if args.warm_size:
        results["warm"] = bench_warm(args.warm_size, keep=not args.fresh)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
