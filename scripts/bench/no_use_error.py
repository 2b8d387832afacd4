#!/usr/bin/env python3
"""How often the lifecycle rule retires a lesson as "no use" when it does lift success.

    python scripts/bench/no_use_error.py [--lift 0.05] [--base 0.5 0.7 0.85] [--given 0.4] \\
        [--turns 600] [--paths 2000] [--seed 1] [--json OUT]

"No use" claims that a lesson lifts success by less than its margin
(``kioku.learning.lifecycle.no_use_margin``: 0.05, or 40 % of the failures left in the turns it
is not given, at most 0.10; for these paths 0.10 at base 0.5 and 0.7 and 0.06 at base 0.85,
``margins`` in the output). A lesson whose true lift is exactly the margin is the hardest case
where the claim is false, so the chance of retiring it is the rule's error rate (pass that lift:
the default 0.05 is the margin only where one turn in eight or fewer fails). Each path is one
lesson: in each of ``--turns`` eligible turns it is given with chance ``--given`` (the same
chance every turn, so the weighted comparison is the plain one), the turn succeeds with chance
``base + lift`` when given and ``base`` when not, and after every turn
``kioku.learning.lifecycle.decide``, the function the worker calls, takes the counts and the
lesson's metadata so far. A path ends when the lesson is deprecated or the turns run out.
Reported per base rate: the share of paths retired as "no use" at a look, as "no use" between
looks, as "hurts", and promoted (at the end), for the rule as it is and with the between-looks
check switched off.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))


def one_path(rng: random.Random, base: float, lift: float, given: float, turns: int, between: bool) -> str:
    from kioku.learning import lifecycle, uplift

    meta: dict = {}
    ng = sg = nh = sh = 0
    for _ in range(turns):
        if rng.random() < given:
            ng += 1
            sg += rng.random() < base + lift
        else:
            nh += 1
            sh += rng.random() < base
        if not between and int(meta.get("looks", 0) or 0) >= uplift.looks_passed(min(ng, nh)):
            continue  # no look due: without the between-looks check nothing can change
        meta.update(lifecycle.decide(meta, (ng, sg, nh, sh)))
        if meta.get("deprecated"):
            reason = str(meta.get("decision_reason", ""))
            if reason.startswith("hurts"):
                return "hurts"
            return "no use, between looks" if reason.endswith("between looks") else "no use, at a look"
    return "promoted" if meta.get("promoted") else "kept"


def run(args: argparse.Namespace) -> dict:
    from kioku.learning import lifecycle

    out: dict = {"params": {k: getattr(args, k) for k in ("lift", "given", "turns", "paths", "seed")},
                 "bases": {}, "margins": {}}
    for base in args.base:
        row = {}
        for label, between in (("rule", True), ("at looks only", False)):
            counts: dict[str, int] = {}
            for i in range(args.paths):
                rng = random.Random(f"{args.seed}-{base}-{i}")  # path i has the same outcomes under both versions
                end = one_path(rng, base, args.lift, args.given, args.turns, between)
                counts[end] = counts.get(end, 0) + 1
            row[label] = {k: round(v / args.paths, 4) for k, v in sorted(counts.items())}
        out["bases"][str(base)] = row
        out["margins"][str(base)] = round(lifecycle.no_use_margin((1, base, 1.0, 1.0, base)), 4)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lift", type=float, default=0.05)
    ap.add_argument("--base", type=float, nargs="+", default=[0.5, 0.7, 0.85])
    ap.add_argument("--given", type=float, default=0.4)
    ap.add_argument("--turns", type=int, default=600)
    ap.add_argument("--paths", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    result = run(args)
    text = json.dumps(result, indent=2)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
