#!/usr/bin/env python3
"""How fast ``kioku mcp`` is ready: time to the ``initialize`` answer and to the first ``tools/list``.

Usage::

    python scripts/bench/mcp_startup.py [--runs 10] [--json OUT]

Each run starts ``python -m kioku mcp`` in a throw-away home and project, writes ``initialize``
at once (as a client does), then ``notifications/initialized`` and ``tools/list``, and reads the
answers off stdout, all raw JSON-RPC lines so no client library is timed:

- ``initialize_ms``: from the process start to the ``initialize`` answer (Python's start-up, the
  MCP SDK's import, Kioku's server modules);
- ``tools_list_ms``: from the process start to the ``tools/list`` answer;
- ``first_call_ms``: from the process start to the answer of a first ``memory_recall`` (the
  memory store's modules load on that first use; Chroma and the embedding model are not needed
  by it and stay unloaded).

``cold`` runs give Python an empty bytecode cache (``PYTHONPYCACHEPREFIX`` pointing at a new
folder each run), so every module, the SDK's included, is compiled from source: the first start
after an environment was created without its ``.pyc`` files. ``warm`` runs share one cache, as
every start after the first does. The one-minute load average is printed with the figures: on a
shared machine it moves them more than anything Kioku does. ``imports`` splits one warm start's
import time (``-X importtime``) between the SDK and its dependencies and Kioku.

Target: a warm start answers ``initialize`` in well under a second.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[2]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "kioku-bench", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
FIRST_CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_recall", "arguments": {}}}


def make_env(root: Path, pycache: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOKU_", "CLAUDE", "PYTHON"))}
    env.update(HOME=str(home), KIOKU_USER_HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               KIOKU_HOME=str(home / ".claude" / "kioku"), PYTHONPATH=str(REPO / "src"),
               PYTHONPYCACHEPREFIX=str(pycache))
    return env


def _answer(proc: subprocess.Popen, want_id: int) -> None:
    assert proc.stdout
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"kioku mcp ended before answering request {want_id}: {proc.stderr.read()}")
        message = json.loads(line)
        if message.get("id") == want_id:
            if "error" in message:
                raise RuntimeError(f"request {want_id} failed: {message['error']}")
            return


def one_start(env: dict[str, str], project: Path) -> dict[str, float]:
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kioku", "mcp"], cwd=project, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin
    try:
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        _answer(proc, 1)
        initialized = time.perf_counter()
        proc.stdin.write(json.dumps(INITIALIZED) + "\n" + json.dumps(TOOLS_LIST) + "\n")
        proc.stdin.flush()
        _answer(proc, 2)
        listed = time.perf_counter()
        proc.stdin.write(json.dumps(FIRST_CALL) + "\n")
        proc.stdin.flush()
        _answer(proc, 3)
        called = time.perf_counter()
        proc.stdin.close()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return {"initialize_ms": (initialized - started) * 1000, "tools_list_ms": (listed - started) * 1000,
            "first_call_ms": (called - started) * 1000}


def summary(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for key in runs[0]:
        values = sorted(r[key] for r in runs)
        out[key] = {"median": round(statistics.median(values), 1), "min": round(values[0], 1),
                    "max": round(values[-1], 1)}
    return out


def import_split(env: dict[str, str], project: Path) -> dict[str, float]:
    """Import time of one warm start (ms, by ``-X importtime``'s own-time column): the MCP SDK and
    the libraries it brings, Kioku, the rest (the standard library)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "kioku", "mcp"], cwd=project, env=env,
                          input="", capture_output=True, text=True, timeout=120)
    groups = {"sdk_and_dependencies": 0, "kioku": 0, "standard_library": 0}
    stdlib = set(sys.stdlib_module_names)
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _cumulative, name = line.split(":", 1)[1].split("|")
        top = name.strip().split(".")[0]
        group = "kioku" if top == "kioku" else "standard_library" if top in stdlib or top.startswith("_") \
            else "sdk_and_dependencies"
        groups[group] += int(own)
    return {k: round(v / 1000, 1) for k, v in groups.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="starts per kind (default 10)")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kioku-mcp-bench-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        warm_cache = root / "pycache-warm"
        one_start(make_env(root, warm_cache), project)  # fills the shared cache
        results: dict[str, object] = {"python": sys.version.split()[0], "runs": args.runs,
                                      "load_average_1min": round(os.getloadavg()[0], 2)}
        cold, warm = [], []
        for n in range(args.runs):  # alternated, so a change in the machine's load hits both alike
            cold.append(one_start(make_env(root, root / f"pycache-cold-{n}"), project))
            warm.append(one_start(make_env(root, warm_cache), project))
        results["cold"] = summary(cold)
        results["warm"] = summary(warm)
        results["imports_ms"] = import_split(make_env(root, warm_cache), project)
        results["load_average_1min_after"] = round(os.getloadavg()[0], 2)
    for kind in ("cold", "warm"):
        figures = results[kind]
        print(f"{kind:>4}: " + ", ".join(f"{key.removesuffix('_ms')} {v['median']:.0f} ms (min {v['min']:.0f}, "
                                         f"max {v['max']:.0f})" for key, v in figures.items()))
    print("imports of a warm start: " + ", ".join(f"{k.replace('_', ' ')} {v:.0f} ms"
                                                  for k, v in results["imports_ms"].items()))
    print(f"load average {results['load_average_1min']} before, {results['load_average_1min_after']} after "
          f"({os.cpu_count()} CPUs)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
