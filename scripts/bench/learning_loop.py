#!/usr/bin/env python3
"""Learning-loop simulation through the real selection, credit and lifecycle code.

    python scripts/bench/learning_loop.py --base-success 0.5 --effect 0.2 --helpful 10 --harmful 10 \\
        --neutral 10 --sessions 600 --inject 5 --seed 1 [--kinds 2] [--hold-back 0.15] [--json OUT]

Setup: a temporary KIOKU_HOME / CLAUDE_CONFIG_DIR / project (nothing outside it is touched).
Lessons of known effect are stored with ``kioku.lessons.improvements.learn`` (the real Chroma
store and FTS5 index). Each lesson belongs to one of ``--kinds`` kinds of task: its text shares
that kind's vocabulary, and it changes the success chance (by +effect, -effect or 0) only on a
task of its kind. Helpful, harmful and neutral lessons are dealt round-robin over the kinds.

Each simulated session is one task of a random kind:
1. the task text goes through the UserPromptSubmit hook's lesson step
   (``kioku.hooks.user_prompt_submit._lessons``: FTS5 selection, exploration, ledger);
2. the outcome is drawn from ``base + sum of the effects of the lessons given`` (clamped to
   [0.01, 0.99]);
3. the verdict goes through ``kioku.learning.credit.apply_turn_verdicts`` (what the worker
   calls), which credits the ledger's turn and runs the lifecycle rule.
Reported fractions are read back from the store at the end (``decision`` of each lesson). The
seed rule's fractions apply its thresholds to the same lessons' given-turn counts.
``oracle_success`` is the expected success of always giving the best ``--inject`` lessons of
the task's kind; ``expected_success_*`` are the expected success chances of what was given
(less noisy than the realised ``success_*``). ``eligible_oracle_success_last_100`` is the
expected success over the last 100 sessions had each turn been given the best lessons among
those the relevance step made eligible (given or held back): the ceiling that lexical
selection leaves, whatever the learning does. ``last_100`` breaks down what those sessions got
(:func:`last_100_mix`). The temporary folder is removed at the end.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
from throwaway import emit, throwaway_project  # noqa: E402  (beside this script)


VOCAB = [
    ["parser", "grammar", "token", "syntax", "lexer", "ast"],
    ["deploy", "docker", "kubernetes", "container", "helm", "cluster"],
    ["database", "migration", "schema", "postgres", "query", "transaction"],
    ["frontend", "react", "component", "css", "layout", "render"],
    ["auth", "oauth", "session", "cookie", "login", "permission"],
]
FILLER = ["please", "fix", "today", "quickly", "again", "broken", "the", "failing", "thing", "work"]


def clamp(p: float) -> float:
    return min(0.99, max(0.01, p))


def run(args: argparse.Namespace) -> dict:
    with throwaway_project("kioku-learning-loop-", KIOKU_HOLD_BACK=str(args.hold_back)) as project:
        return simulate(args, project)


def simulate(args: argparse.Namespace, project: Path) -> dict:
    from kioku.lessons import scopes as sc
    from kioku.lessons.improvements import all_improvements, learn
    from kioku.lessons.stats import seed_decision
    from kioku.evaluation.verdict import TurnVerdict
    from kioku.hooks import user_prompt_submit
    from kioku.learning import inject
    from kioku.learning import ledger
    from kioku.learning.credit import apply_turn_verdicts

    inject.MAX_IMPROVEMENTS = args.inject  # lessons per turn, read by the hook's selection at call time
    rng = random.Random(args.seed)
    kinds = max(1, min(args.kinds, len(VOCAB)))
    types = ["helpful"] * args.helpful + ["harmful"] * args.harmful + ["neutral"] * args.neutral
    effect_of = {"helpful": args.effect, "harmful": -args.effect, "neutral": 0.0}
    lessons: dict[str, dict] = {}
    counters = [0] * kinds
    for n, kind_type in enumerate(types):
        kind = n % kinds
        counters[kind] += 1
        words = " ".join(rng.sample(VOCAB[kind], 3))
        text = f"On {words} work, approach number {n} of kind {kind}: check step {counters[kind]} first"
        (rec_id,) = learn("main", text, "search_strategy", 0.8, project_root=project)
        lessons[rec_id] = {"type": kind_type, "kind": kind, "effect": effect_of[kind_type]}
    best = []
    for kind in range(kinds):
        effects = sorted((l["effect"] for l in lessons.values() if l["kind"] == kind), reverse=True)
        best.append(clamp(args.base_success + sum(e for e in effects[:args.inject] if e > 0)))
    oracle = sum(best) / kinds
    outcomes: list[int] = []
    expected: list[float] = []
    eligible_best: list[float] = []
    mix: list[dict] = []  # per session: the lessons of the task's kind given, by type
    t0 = time.monotonic()
    for s in range(args.sessions):
        kind = rng.randrange(kinds)
        words = rng.sample(VOCAB[kind], 2) + rng.sample(FILLER, 3)
        rng.shuffle(words)
        prompt = " ".join(words)
        session_id, prompt_id = f"sim-{args.seed}-{s}", f"p-{s}"
        user_prompt_submit._lessons({"session_id": session_id, "prompt_id": prompt_id, "prompt": prompt,
                                     "cwd": str(project), "hook_event_name": "UserPromptSubmit"})
        turns = ledger.turns(session_id, "main")
        turn = turns[-1] if turns else {"given": [], "held_back": {}}  # no lesson was about the task
        given = [i for i in turn["given"] if i in lessons]
        eligible = given + [i for i in turn.get("held_back", {}) if i in lessons]
        effects = sorted((lessons[i]["effect"] for i in eligible if lessons[i]["kind"] == kind), reverse=True)
        eligible_best.append(clamp(args.base_success + sum(e for e in effects[:args.inject] if e > 0)))
        p = clamp(args.base_success + sum(lessons[i]["effect"] for i in given if lessons[i]["kind"] == kind))
        ok = rng.random() < p
        outcomes.append(int(ok))
        expected.append(p)
        own = [lessons[i] for i in given if lessons[i]["kind"] == kind]
        mix.append({"helpful": sum(1 for l in own if l["type"] == "helpful"),
                    "neutral": sum(1 for l in own if l["type"] == "neutral"),
                    "harmful": sum(1 for l in own if l["type"] == "harmful"),
                    "eligible_helpful": sum(1 for i in eligible
                                            if lessons[i]["kind"] == kind and lessons[i]["type"] == "helpful"),
                    "without_harmful": clamp(args.base_success + sum(l["effect"] for l in own if l["effect"] > 0))})
        verdict = TurnVerdict(prompt_uuid=f"u-{s}", prompt_index=0, prompt_id=prompt_id,
                              outcome="success" if ok else "failed")
        apply_turn_verdicts("main", session_id, [verdict], project)
    elapsed = time.monotonic() - t0
    sc.reset_store_cache()
    final = {r.id: dict(r.metadata or {}) for _s, r in all_improvements("main", project)}

    def frac(kind_type: str, test) -> float:
        ids = [i for i, l in lessons.items() if l["type"] == kind_type]
        return round(sum(1 for i in ids if test(final.get(i, {}))) / len(ids), 3) if ids else 0.0

    def ours(state: str):
        return lambda m: (m.get("deprecated") is True) if state == "deprecated" else (
            bool(m.get("promoted")) and not m.get("deprecated"))

    def seed(state: str):
        return lambda m: seed_decision(m) == state

    def fractions(test) -> dict:
        return {"harmful_deprecated": frac("harmful", test("deprecated")),
                "helpful_deprecated": frac("helpful", test("deprecated")),
                "neutral_promoted": frac("neutral", test("promoted")),
                "neutral_deprecated": frac("neutral", test("deprecated")),
                "helpful_promoted": frac("helpful", test("promoted")),
                "harmful_promoted": frac("harmful", test("promoted"))}

    def mean(xs: list) -> float:
        return round(sum(xs) / len(xs), 3) if xs else 0.0

    return {
        "params": {k: getattr(args, k) for k in ("base_success", "effect", "helpful", "harmful", "neutral",
                                                 "sessions", "inject", "seed", "kinds", "hold_back")},
        **fractions(ours),
        "success_first_100": mean(outcomes[:100]), "success_last_100": mean(outcomes[-100:]),
        "expected_success_first_100": mean(expected[:100]), "expected_success_last_100": mean(expected[-100:]),
        "oracle_success": round(oracle, 3),
        "eligible_oracle_success_last_100": mean(eligible_best[-100:]),
        "last_100": last_100_mix(mix[-100:], expected[-100:], eligible_best[-100:]),
        "seed_rule": fractions(seed),
        "seconds": round(elapsed, 1), "ms_per_session": round(1000 * elapsed / max(1, args.sessions), 1),
    }


def last_100_mix(mix: list[dict], expected: list[float], ceiling: list[float]) -> dict:
    """What the last sessions were given: lessons of the task's kind by type and the helpful ones
    eligible (per session); the shares of sessions at the eligible ceiling, given a harmful lesson,
    and given no harmful lesson but fewer helpful ones than the ceiling needs; the expected success
    had the harmful lessons given been left out (what they cost); and what the sessions short of
    helpful lessons cost (the ceiling less their expected success, per session of all of them)."""
    n = max(1, len(mix))
    below = [p < c - 1e-9 for p, c in zip(expected, ceiling)]
    short = [b and m["harmful"] == 0 for b, m in zip(below, mix)]
    return {
        **{f"{key}_given": round(sum(m[key] for m in mix) / n, 3) for key in ("helpful", "neutral", "harmful")},
        "helpful_eligible": round(sum(m["eligible_helpful"] for m in mix) / n, 3),
        "at_eligible_ceiling": round(sum(1 for b in below if not b) / n, 3),
        "with_harmful": round(sum(1 for m in mix if m["harmful"]) / n, 3),
        "short_of_helpful": round(sum(short) / n, 3),
        "expected_success_without_harmful": round(sum(m["without_harmful"] for m in mix) / n, 3),
        "cost_short_of_helpful": round(sum(c - p for s, p, c in zip(short, expected, ceiling) if s) / n, 4),
    }


def world_arguments(ap: argparse.ArgumentParser) -> None:
    """The flags that define the simulated world (also read by ``learning_bound.py``)."""
    ap.add_argument("--base-success", type=float, default=0.5)
    ap.add_argument("--effect", type=float, default=0.2)
    ap.add_argument("--helpful", type=int, default=10)
    ap.add_argument("--harmful", type=int, default=10)
    ap.add_argument("--neutral", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=600)
    ap.add_argument("--inject", type=int, default=5)
    ap.add_argument("--kinds", type=int, default=2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    world_arguments(ap)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hold-back", type=float, default=0.1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    emit(run(args), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
