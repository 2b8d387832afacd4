#!/usr/bin/env python3
"""Hook speed: cold-process wall time of each *installed* hook command vs ``python -c pass``.

    python scripts/bench/hooks.py [--runs 15] [--json OUT] [--check]

Setup (in a temporary HOME; nothing outside it is touched):
- Kioku is installed by ``install.py --reuse-site-packages`` (the venv layout and hook
  commands are the real ones; only the dependency install is skipped for speed);
- a project whose MEMORY.md index holds 200 lines (real ``remember`` calls, cached in
  ``.cache/bench/hooks-memory-200`` after the first run);
- 10,000 improvements of the main agent in the global ChromaDB store (real MiniLM vectors,
  written with ``AgentStore.upsert``, then ``refresh_digest``; cached in
  ``.cache/bench/hooks-store-10000``) - hooks read only the derived digest;
- a second project, a git repository with an ``origin`` remote, holding 300 project-scope
  lessons (cached in ``.cache/bench/hooks-project-lessons-300``): selection there also needs
  the project's identity;
- a 20 MB transcript (recorded transcript lines repeated) for Stop, plus a 2 KB one to show
  Stop does not depend on transcript size.
Each hook command is taken verbatim from the installed settings.json and run as a fresh
process with a recorded payload on stdin, through ``sh -c`` as Claude Code runs it; runs
alternate with ``sh -c '<venv python> -c pass'``, and
the table reports medians and the ratio. Stop runs while the bench holds the worker lock (as
when a worker is already running), so no background evaluation competes for the CPU.
Budgets: UserPromptSubmit no trigger <= 3x, with a save <= 5x, SessionStart <= 6x,
Stop <= 5x. ``--check`` exits 1 if one is exceeded.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "bench"
FIXTURES = REPO / "tests" / "fixtures"
BUDGETS = {"UserPromptSubmit (no trigger)": 3.0, "UserPromptSubmit (no trigger, project lessons)": 3.0,
           "UserPromptSubmit (save)": 5.0,
           "SessionStart": 6.0, "Stop (20 MB transcript)": 5.0, "Stop (2 KB transcript)": 5.0}
CATEGORIES = ["search_strategy", "error_handling", "code_quality", "testing_patterns", "documentation_style"]


def sh(cmd: list[str], env: dict[str, str], **kw) -> subprocess.CompletedProcess:
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd[:3])} failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return res


def build_memory(env: dict[str, str], target: Path) -> None:
    """A project with a 200-line MEMORY.md made by real saves (cached)."""
    cached = CACHE / "hooks-memory-200"
    if not (cached / "MEMORY.md").exists():
        tmp = Path(tempfile.mkdtemp(prefix="kioku-bench-mem-"))
        subprocess.run(["git", "init", "-q", str(tmp)], check=True)
        code = ("import sys\nfrom pathlib import Path\nfrom kioku.memory.api import remember\n"
                "root = Path(sys.argv[1]); index = root / '.agents' / 'memory' / 'MEMORY.md'\n"
                "words = 'alpha bravo cedar delta ember fjord gamma harbor indigo juniper kelp lotus'.split()\n"
                "i = 0\n"
                "while i < 400 and (not index.exists() or sum(l.startswith('- [') for l in "
                "index.read_text().splitlines()) < 200):\n"
                "    a, b = words[i % 12], words[(i // 12) % 12]\n"
                "    remember(f'the {a}-{b} service (unit {i}) is owned by the {b} team and its "
                "dashboard lives at grafana panel {1000 + 7 * i}', type='project' if i % 3 else "
                "'reference', project_root=root)\n"
                "    i += 1\n")
        sh([sys.executable, "-c", code, str(tmp)], {**env, "PYTHONPATH": str(REPO / "src")})
        if cached.exists():
            shutil.rmtree(cached)
        shutil.copytree(tmp / ".agents" / "memory", cached)
        shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(cached, target / ".agents" / "memory")


def build_store(env: dict[str, str], claude_dir: Path, n: int) -> None:
    """``n`` improvements of agent main in the global store + its digest (cached)."""
    cached = CACHE / f"hooks-store-{n}"
    if not (cached / "digests").exists():
        code = f"""
import random, sys
from kioku.lessons.store.client import AgentStore, Record
from kioku.lessons.improvements import new_metadata
from kioku.lessons.digest_refresh import refresh_digest
from kioku.infra import paths
rng = random.Random(7)
verbs = ["check", "run", "read", "pin", "cache", "retry", "log", "split", "name", "test"]
things = ["the lockfile", "the failing test", "the schema", "flaky network calls", "env vars",
          "the migration", "large diffs", "API errors", "the CI cache", "imports"]
store = AgentStore(paths.global_chroma_dir())
batch = []
for i in range({n}):
    text = (f"{{rng.choice(verbs).capitalize()}} {{rng.choice(things)}} before "
            f"{{rng.choice(verbs)}}ing {{rng.choice(things)}} (case {{i}})")
    meta = new_metadata("main", "global", {CATEGORIES!r}[i % 5], 0.7 + (i % 25) / 100,
                        learned_from="self_evaluation")
    if i % 3 == 0:
        meta.update(usage_count=10, success_count=7 + i % 4, success_rate=(7 + i % 4) / 10, tested=True)
    batch.append(Record(id=f"imp_bench_{{i:06d}}", document=text, metadata=meta))
    if len(batch) == 500:
        store.upsert("main", "improvements", batch); batch = []
if batch:
    store.upsert("main", "improvements", batch)
refresh_digest("main", scope="global")
print(store.count("main", "improvements"))
"""
        tmp = Path(tempfile.mkdtemp(prefix="kioku-bench-store-"))
        out = sh([sys.executable, "-c", code], {**env, "CLAUDE_CONFIG_DIR": str(tmp),
                                                 "PYTHONPATH": str(REPO / "src")}, timeout=3600)
        print(f"  built a store of {out.stdout.strip()} improvements", file=sys.stderr)
        if cached.exists():
            shutil.rmtree(cached)
        shutil.copytree(tmp / "chroma_data", cached)
        shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(cached, claude_dir / "chroma_data")


PROJECT_REMOTE = "https://example.com/team/bench-app.git"  # fixed: the project's identity names its collections


def build_project_lessons(env: dict[str, str], project: Path, n: int) -> None:
    """A git project (with an origin remote) holding ``n`` project-scope lessons of agent main (cached)."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "remote", "add", "origin", PROJECT_REMOTE], check=True)
    cached = CACHE / f"hooks-project-lessons-{n}"
    if not (cached / "digests").exists():
        code = f"""
import random, sys
from pathlib import Path
from kioku.lessons.improvements import learn
from kioku.lessons.digest_refresh import refresh_digest
root = Path(sys.argv[1])
rng = random.Random(11)
parts = ["the parser", "the state machine", "module names", "the API client", "error types",
         "the config loader", "test fixtures", "the CLI flags", "log messages", "the schema"]
for i in range({n}):
    text = (f"In this project, keep {{rng.choice(parts)}} next to {{rng.choice(parts)}} "
            f"and name it after {{rng.choice(parts)}} (rule {{i}})")
    learn("main", text, ["naming_conventions", "architecture_patterns", "api_usage"][i % 3], 0.8,
          scope="project", project_root=root)
refresh_digest("main", scope="project", project_root=root)
"""
        sh([sys.executable, "-c", code, str(project)], {**env, "PYTHONPATH": str(REPO / "src")}, timeout=3600)
        if cached.exists():
            shutil.rmtree(cached)
        shutil.copytree(project / ".claude" / "chroma_data", cached)
    else:
        shutil.copytree(cached, project / ".claude" / "chroma_data")


def make_transcript(path: Path, size: int) -> None:
    lines = [ln for f in sorted((FIXTURES / "transcripts").glob("*.jsonl"))
             for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()]
    with path.open("w", encoding="utf-8") as handle:
        written, i = 0, 0
        while written < size:
            line = lines[i % len(lines)] + "\n"
            handle.write(line)
            written += len(line.encode())
            i += 1


def payload(name: str, project: Path, claude_dir: Path, **changes) -> bytes:
    text = (FIXTURES / "hook_inputs" / f"{name}.json").read_text(encoding="utf-8")
    subs = {"${PROJECT}": str(project), "${CLAUDE_DIR}": str(claude_dir), "${HOME}": str(claude_dir.parent),
            "${SESSION_ID}": "bench-session", "${AGENT_ID}": "bench-agent", "${PROMPT_ID}": "bench-prompt",
            "${PROJECT_KEY}": re.sub(r"[^A-Za-z0-9]", "-", str(project)), "${TMP}": str(project.parent)}
    for key, value in subs.items():
        text = text.replace(key, json.dumps(value)[1:-1])
    return json.dumps({**json.loads(text), **changes}).encode()


def timed(argv: list[str], data: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    start = time.perf_counter()
    res = subprocess.run(argv, input=data, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if res.returncode != 0 or b"failed open" in res.stderr:
        sys.exit(f"bench: hook failed: {res.stderr.decode()[-1000:]}")
    return elapsed, res.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--improvements", type=int, default=10_000)
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--check", action="store_true", help="exit 1 when a budget is exceeded")
    args = ap.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="kioku-bench-hooks-"))
    home, project = base / "home", base / "project"
    claude_dir = home / ".claude"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOKU_", "CLAUDE", "PYTHON"))}
    env.update(HOME=str(home), KIOKU_USER_HOME=str(home), CLAUDE_CONFIG_DIR=str(claude_dir))
    try:
        print("setting up (install, 200-line index, store, transcripts)...", file=sys.stderr)
        sh([sys.executable, str(REPO / "install.py"), "--reuse-site-packages"], env)
        build_memory(env, project)
        lessons_project = base / "project-lessons"
        build_project_lessons(env, lessons_project, 300)
        build_store(env, claude_dir, args.improvements)
        big, small = base / "big.jsonl", base / "small.jsonl"
        make_transcript(big, 20 * 1024 * 1024)
        make_transcript(small, 2048)
        settings = json.loads((claude_dir / "settings.json").read_text())
        # shell form, as Claude Code runs a hook's command (``sh -c``); the baseline goes through
        # the same shell, so the ratio compares what Kioku adds to a bare interpreter start
        cmds = {ev: ["sh", "-c", groups[-1]["hooks"][0]["command"]] for ev, groups in settings["hooks"].items()}
        python = str(claude_dir / "kioku" / "venv" / "bin" / "python")
        index_text = (project / ".agents" / "memory" / "MEMORY.md").read_text()
        index_lines = len(index_text.splitlines())  # the index's cap (MAX_LINES) counts every line
        index_entries = sum(1 for ln in index_text.splitlines() if ln.startswith("- ["))
        counter = iter(range(10**6))
        cases = {
            # every run is a new prompt (its own prompt_id): a repeated one is a retried hook,
            # which shows the lessons its turn recorded without selecting them again
            "UserPromptSubmit (no trigger)": ("UserPromptSubmit", lambda: payload(
                "user_prompt_submit", project, claude_dir, prompt="refactor the parser into a state machine",
                prompt_id=f"bench-prompt-{next(counter)}")),
            "UserPromptSubmit (no trigger, project lessons)": ("UserPromptSubmit", lambda: payload(
                "user_prompt_submit", lessons_project, claude_dir, session_id="bench-session-project",
                prompt="refactor the parser into a state machine", prompt_id=f"bench-prompt-{next(counter)}")),
            "UserPromptSubmit (save)": ("UserPromptSubmit", lambda: payload(
                "user_prompt_submit", project, claude_dir, prompt_id=f"bench-prompt-{next(counter)}",
                prompt=f"remember that build agent {next(counter)} uses the arm64 runner pool")),
            "SessionStart": ("SessionStart", lambda: payload("session_start_startup", project, claude_dir)),
            "Stop (20 MB transcript)": ("Stop", lambda: payload("stop", project, claude_dir,
                                                                 transcript_path=str(big))),
            "Stop (2 KB transcript)": ("Stop", lambda: payload("stop", project, claude_dir,
                                                                transcript_path=str(small))),
            "SubagentStart": ("SubagentStart", lambda: payload("subagent_start", project, claude_dir,
                                                               agent_type="main")),
            "SubagentStop": ("SubagentStop", lambda: payload("subagent_stop", project, claude_dir,
                                                             agent_transcript_path=str(big))),
        }
        lock_path = claude_dir / "kioku" / "state" / "locks" / "worker.lock"
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)  # "a worker is running": hooks only queue their job
        # Warm the OS cache and .pyc files once, as a machine in daily use would be.
        for _, (event, make) in cases.items():
            timed(cmds[event], make(), env, project)
        rows = []
        for label, (event, make) in cases.items():
            hook_t, pass_t = [], []
            sample = b""
            for _ in range(args.runs):
                pass_t.append(timed(["sh", "-c", f"{shlex.quote(python)} -c pass"], b"", env, project)[0])
                t, sample = timed(cmds[event], make(), env, project)
                hook_t.append(t)
            hook_ms, pass_ms = statistics.median(hook_t) * 1000, statistics.median(pass_t) * 1000
            budget = BUDGETS.get(label)
            rows.append({"case": label, "hook_ms": round(hook_ms, 1), "python_pass_ms": round(pass_ms, 1),
                         "ratio": round(hook_ms / pass_ms, 2), "budget": budget,
                         "ok": None if budget is None else hook_ms / pass_ms <= budget,
                         "output_chars": len(sample)})
        os.close(lock_fd)
        result = {"runs": args.runs, "python": python, "index_lines": index_lines, "index_entries": index_entries,
                  "improvements": args.improvements, "big_transcript_bytes": big.stat().st_size,
                  "cpu_count": os.cpu_count(), "rows": rows}
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"Hook cold-process wall time, median of {args.runs} runs; MEMORY.md {index_lines} lines "
          f"({index_entries} entries), "
          f"{args.improvements} improvements, Stop transcript 20 MB")
    print(f"{'case':<48}{'hook ms':>9}{'pass ms':>9}{'ratio':>8}{'budget':>8}  ok")
    for r in rows:
        budget = f"≤{r['budget']:.0f}×" if r["budget"] else "-"
        ok = "-" if r["ok"] is None else ("yes" if r["ok"] else "NO")
        print(f"{r['case']:<48}{r['hook_ms']:>9.1f}{r['python_pass_ms']:>9.1f}{r['ratio']:>7.2f}×{budget:>8}  {ok}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n")
    return 1 if args.check and any(r["ok"] is False for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
