#!/usr/bin/env python3
"""Contradiction rules on labelled memory pairs: how often a true pair keeps both memories
in the index, and how often a real replacement is recognised.

    python scripts/bench/contradictions.py [--set tune|holdout|all] [--json] [--show]

The pairs (tests/memory/data/contradiction_pairs_*.json, English and Japanese) were written
for Kioku: ``together`` pairs must both stay indexed, ``replaces`` pairs should supersede.
Every pair is saved through ``kioku.memory.api.remember`` (the path users run) into a fresh
temporary home and project, then the index is read back. The tuning half was used while
writing the rules; the holdout half was written afterwards and only measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "memory" / "data"


def load(which: str) -> dict[str, list[list[str]]]:
    names = ["tune", "holdout"] if which == "all" else [which]
    out: dict[str, list[list[str]]] = {"together": [], "replaces": []}
    for name in names:
        data = json.loads((DATA / f"contradiction_pairs_{name}.json").read_text(encoding="utf-8"))
        for key in out:
            out[key].extend(data[key])
    return out


def run_pair(old: str, new: str) -> tuple[str, bool]:
    """(status of the second save, whether both memories are still in MEMORY.md)."""
    from kioku.infra import paths
    from kioku.memory import api
    from kioku.memory.recall import build_recall

    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        home.mkdir()
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        os.environ.update(HOME=str(home), KIOKU_USER_HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                          KIOKU_HOME=str(home / ".claude" / "kioku"))
        first = api.remember(old, type="project", project_root=project)
        second = api.remember(new, type="project", project_root=project)
        index = (paths.project_memory_dir(project) / "MEMORY.md").read_text(encoding="utf-8")
        both = first.summary in index and second.summary in index
        assert build_recall(project_root=project) is not None
        return second.status, both


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="all", choices=["tune", "holdout", "all"])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="print every pair that went wrong")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    pairs = load(args.set)
    kept = recognised = 0
    wrong: list[str] = []
    for old, new in pairs["together"]:
        status, both = run_pair(old, new)
        kept += both and status != "superseded"
        if not both or status == "superseded":
            wrong.append(f"together, lost one: {old!r} / {new!r}")
    for old, new in pairs["replaces"]:
        status, _ = run_pair(old, new)
        recognised += status == "superseded"
        if status != "superseded":
            wrong.append(f"replaces, missed: {old!r} / {new!r}")
    report = {"set": args.set, "together_pairs": len(pairs["together"]), "together_kept": kept,
              "together_kept_rate": round(kept / max(1, len(pairs["together"])), 3),
              "replaces_pairs": len(pairs["replaces"]), "replaces_recognised": recognised,
              "replaces_recognised_rate": round(recognised / max(1, len(pairs["replaces"])), 3)}
    if args.show:
        print("\n".join(wrong), file=sys.stderr)
    print(json.dumps(report, indent=None if not args.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
