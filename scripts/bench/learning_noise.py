#!/usr/bin/env python3
"""The learning loop with a noisy judge: ``learning_loop.py`` over a grid of judges and seeds, one table.

    python scripts/bench/learning_noise.py --seeds 49-64 [--jobs 2] [--sessions 600] \\
        [--grid main|relevance|all] [--extra "--suspended-share 0.25"] [--json OUT] [--markdown OUT]

Each configuration of the grid (``GRIDS``) runs ``learning_loop.py`` once per seed (base 0.5,
effect ±0.2, 10 helpful, 10 harmful and 10 neutral lessons, 5 given per session, 2 kinds of task,
unless ``--extra`` says otherwise), ``--jobs`` at a time, each in a temporary folder of its own
under ``TMPDIR`` (a RAM disk is much faster). Per configuration it reports the
means over the seeds of the loop's fractions (harmful deprecated, helpful deprecated, neutral
promoted, expected success over the last 100 sessions, ...) and, pooled over the lessons of all
seeds, the own eligible turns a lesson of each type had when it was first out (suspended or
deprecated) and when first decided (deprecated or promoted): the median, the 90th percentile,
and the shares within 10 turns and within the run. A median or percentile that lies beyond the
run (more than that share of the lessons not there yet) is shown as "> run".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = ["--base-success", "0.5", "--effect", "0.2", "--helpful", "10", "--harmful", "10", "--neutral", "10",
        "--inject", "5", "--kinds", "2"]
GRIDS = {
    "main": [
        ("perfect verdicts", ["--judge", "perfect"]),
        ("perfect verdicts, attribution", ["--judge", "perfect", "--attribution", "--relevance"]),
        ("the rules' rates", ["--judge", "rules"]),
        ("the rules' rates, attribution (hypothetical)", ["--judge", "rules", "--attribution", "--relevance"]),
        ("the model judge's rates", ["--judge", "model"]),
        ("the model judge's rates, attribution", ["--judge", "model", "--attribution", "--relevance"]),
    ],
    "relevance": [
        ("model, half the tasks relevant, no attribution", ["--judge", "model", "--relevant-share", "0.5"]),
        ("model, half relevant, hurts only", ["--judge", "model", "--relevant-share", "0.5", "--attribution"]),
        ("model, half relevant, hurts and relevance",
         ["--judge", "model", "--relevant-share", "0.5", "--attribution", "--relevance"]),
    ],
}
GRIDS["all"] = GRIDS["main"] + GRIDS["relevance"]
FRACTIONS = ("harmful_deprecated", "helpful_deprecated", "neutral_promoted", "neutral_deprecated", "helpful_promoted",
             "harmful_out", "helpful_suspended", "neutral_suspended", "expected_success_last_100",
             "expected_success_all", "eligible_oracle_success_last_100")
TARGETS = {"harmful_deprecated": (">=", 0.90), "helpful_deprecated": ("<=", 0.05), "neutral_promoted": ("<=", 0.10),
           "expected_success_last_100": (">=", 0.94)}


def seeds_of(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out += list(range(int(low), int(high or low) + 1))
    return out


def run_one(flags: list[str], seed: int, sessions: int, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="kioku-noise-") as folder:
        out = Path(folder) / "run.json"
        cmd = [sys.executable, str(HERE / "learning_loop.py"), *BASE, "--sessions", str(sessions), "--seed", str(seed),
               *flags, *extra, "--json", str(out)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {res.stderr[-2000:]}")
        return json.loads(out.read_text())


def quantile(values: list[int | None], q: float) -> int | None:
    """The q-quantile of turns, a value beyond the run (None) counting as larger than all; None when it is one."""
    if not values:
        return None
    ordered = sorted(values, key=lambda v: (v is None, v or 0))
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def turns_summary(values: list[int | None]) -> dict:
    n = max(1, len(values))
    return {"median": quantile(values, 0.5), "p90": quantile(values, 0.9),
            "within_10": round(sum(1 for v in values if v is not None and v <= 10) / n, 3),
            "within_run": round(sum(1 for v in values if v is not None) / n, 3), "lessons": len(values)}


def summarise(runs: list[dict]) -> dict:
    out: dict = {"runs": len(runs), "seeds": [r["params"]["seed"] for r in runs], "judge": runs[0]["judge"]}
    for key in FRACTIONS:
        out[key] = round(sum(r[key] for r in runs) / len(runs), 3)
    out["last_100"] = {key: round(sum(r["last_100"][key] for r in runs) / len(runs), 3) for key in runs[0]["last_100"]}
    out["per_seed"] = {key: [r[key] for r in runs] for key in ("expected_success_last_100", "harmful_deprecated",
                                                             "helpful_deprecated", "neutral_promoted")}
    out["runs_meeting_every_target"] = sum(1 for r in runs if all(
        (r[k] >= v if op == ">=" else r[k] <= v) for k, (op, v) in TARGETS.items()))
    timing: dict = {}
    for kind in ("harmful", "helpful", "neutral"):
        pooled = {key: [v for r in runs for v in r["timing"][kind][key]] for key in ("out", "decided", "suspensions")}
        timing[kind] = {"out": turns_summary(pooled["out"]), "decided": turns_summary(pooled["decided"]),
                        "suspensions_per_lesson": round(sum(pooled["suspensions"]) / max(1, len(pooled["suspensions"])), 2)}
    out["timing"] = timing
    return out


def _turns(summary: dict) -> str:
    def shown(value: int | None) -> str:
        return "> run" if value is None else str(value)

    return f"{shown(summary['median'])} / {shown(summary['p90'])}"


def markdown(results: dict[str, dict], seeds: str, sessions: int) -> str:
    """Two tables: the loop's fractions against its targets, and the turns lessons took to be decided."""
    n = max((r["runs"] for r in results.values()), default=0)
    lines = [f"| Judge ({n} runs: seeds {seeds}, {sessions} sessions) | Harmful deprecated (≥ 0.90) | Helpful deprecated"
             " (≤ 0.05) | Neutral promoted (≤ 0.10) | Neutral deprecated | Helpful promoted | Expected success, last 100"
             " (≥ 0.94) | Expected success, all sessions | Runs meeting every target |", "|" + "---|" * 9]
    for label, r in results.items():
        lines.append(f"| {label} | {r['harmful_deprecated']:.3f} | {r['helpful_deprecated']:.3f} |"
                     f" {r['neutral_promoted']:.3f} | {r['neutral_deprecated']:.3f} | {r['helpful_promoted']:.3f} |"
                     f" {r['expected_success_last_100']:.3f} | {r.get('expected_success_all', 0.0):.3f} |"
                     f" {r['runs_meeting_every_target']} of {r['runs']} |")
    lines += ["", "| Judge | Harmful: own turns until out, median / p90 (out within 10) | Harmful: until deprecated,"
              " median / p90 | Helpful: until a decision, median / p90 (decided in the run) | Suspensions per helpful"
              " lesson | Suspensions per neutral lesson |", "|" + "---|" * 6]
    for label, r in results.items():
        t = r["timing"]
        lines.append(f"| {label} | {_turns(t['harmful']['out'])} ({t['harmful']['out']['within_10']:.2f}) |"
                     f" {_turns(t['harmful']['decided'])} |"
                     f" {_turns(t['helpful']['decided'])} ({t['helpful']['decided']['within_run']:.2f}) |"
                     f" {t['helpful']['suspensions_per_lesson']:.2f} | {t['neutral']['suspensions_per_lesson']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="49-64", help="e.g. 1-6 or 49-64 or 1,3,5")
    ap.add_argument("--sessions", type=int, default=600)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--grid", choices=sorted(GRIDS), default="main")
    ap.add_argument("--only", help="run only the configurations whose label contains this text")
    ap.add_argument("--extra", default="", help="more learning_loop.py flags for every run")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args()
    seeds = seeds_of(args.seeds)
    extra = args.extra.split()
    grid = [(label, flags) for label, flags in GRIDS[args.grid] if not args.only or args.only in label]
    work = [(label, flags, seed) for label, flags in grid for seed in seeds]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = list(pool.map(lambda w: (w[0], run_one(w[1], w[2], args.sessions, extra)), work))
    results = {label: summarise([r for lab, r in done if lab == label]) for label, _flags in grid}
    report = {"seeds": args.seeds, "sessions": args.sessions, "extra": args.extra, "results": results}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    table = markdown(results, args.seeds, args.sessions)
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
