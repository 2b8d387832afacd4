#!/usr/bin/env python3
"""A reference learner in the learning-loop simulation's world, for comparison: not Kioku, and not a bound.

    python scripts/bench/learning_bound.py --base-success 0.5 --effect 0.2 --sessions 600 \\
        --seeds 30 [--helpful 10 --harmful 10 --neutral 10 --inject 5 --kinds 2] [--noise 0.25] [--json OUT]

The world is ``learning_loop.py``'s: lessons dealt round-robin over the kinds of task, each
lesson's text holding 3 of its kind's words and each task 2 of them, the outcome drawn from
``base + the effects of the given lessons of the task's kind`` (clamped to [0.01, 0.99]).

The reference learner is linear Thompson sampling, told what Kioku is never told: which kind
each lesson and each task belongs to, that effects add up (its model has no clamp at 0.99), and
a normal prior whose spread is the effect size; ``--noise`` is the outcome variance it assumes.
It is one strong learner, not a bound: other settings of it, or other learners, do better or
worse. Per kind it keeps the Bayesian linear regression of
``outcome - base`` on which lessons were given; each session it draws the lessons' effects from
that posterior and gives the (at most ``--inject``) lessons with the largest positive draws. It
holds nothing back and decides nothing. It runs twice: with every lesson of the task's kind
eligible, and with only those sharing a word with the task (what a lexical selection can see).

Reported per learner, over the seeds: the best expected success its eligible lessons allowed
over the last 100 sessions, the expected success of what it gave there (mean, and spread across
seeds), and the share of runs whose realised last-100 success is within 0.05 of
the oracle's (the issue's target). For the Thompson learner also: how many turns a harmful lesson
was given over the run (median), and the share of harmful lessons whose final posterior lies
below zero by at least 1.91 standard deviations (Kioku's boundary for "hurts", applied to this
learner's own posterior: not Kioku's statistic, and it moves with ``--noise``). A learner that
gives a lesson less as it looks harmful also collects less of the evidence that would retire it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learning_loop import VOCAB, world_arguments  # noqa: E402  (the simulated world; puts src/ on the path)

from kioku.learning.uplift import DEPRECATE_Z as HARM_Z  # noqa: E402  (Kioku's boundary for "hurts")

LESSON_WORDS = 3  # as learning_loop.py writes a lesson ...
TASK_WORDS = 2  # ... and a task


def clamp(p: float) -> float:
    return min(0.99, max(0.01, p))


def world(args: argparse.Namespace, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[set[int]]]:
    types = ["helpful"] * args.helpful + ["harmful"] * args.harmful + ["neutral"] * args.neutral
    effect_of = {"helpful": args.effect, "harmful": -args.effect, "neutral": 0.0}
    words_per_kind = len(VOCAB[0])
    effects = np.array([effect_of[t] for t in types])
    kinds = np.array([n % args.kinds for n in range(len(types))])
    words = [set(rng.choice(words_per_kind, LESSON_WORDS, replace=False).tolist()) for _ in types]
    return effects, kinds, words


def run_once(args: argparse.Namespace, seed: int, learner: str) -> dict:
    rng = np.random.default_rng(seed)
    effects, kinds, words = world(args, rng)
    n = len(effects)
    noise = args.noise  # the outcome variance the learner assumes
    precision = np.eye(n) / max(args.effect, 1e-6) ** 2
    moment = np.zeros(n)
    given_turns = np.zeros(n)
    expected: list[float] = []
    realised: list[int] = []
    ceiling: list[float] = []
    best = {}
    for kind in range(args.kinds):
        top = sorted((e for e, k in zip(effects, kinds) if k == kind), reverse=True)[:args.inject]
        best[kind] = clamp(args.base_success + sum(e for e in top if e > 0))
    oracle = sum(best.values()) / args.kinds
    for _ in range(args.sessions):
        kind = int(rng.integers(args.kinds))
        task = set(rng.choice(len(VOCAB[0]), TASK_WORDS, replace=False).tolist())
        own = [i for i in range(n) if kinds[i] == kind]
        eligible = own if learner == "thompson_all" else [i for i in own if words[i] & task]
        top = sorted((effects[i] for i in eligible), reverse=True)[:args.inject]
        ceiling.append(clamp(args.base_success + sum(e for e in top if e > 0)))
        cov = np.linalg.inv(precision[np.ix_(own, own)])
        draw = np.zeros(n)
        draw[own] = rng.multivariate_normal(cov @ moment[own], cov)
        chosen = sorted((i for i in eligible if draw[i] > 0), key=lambda i: -draw[i])[:args.inject]
        x = np.zeros(n)
        x[chosen] = 1.0
        p = clamp(args.base_success + float(effects @ x))
        ok = int(rng.random() < p)
        expected.append(p)
        realised.append(ok)
        precision += np.outer(x, x) / noise
        moment += x * (ok - args.base_success) / noise
        given_turns += x
    out = {"oracle": oracle, "expected_last_100": float(np.mean(expected[-100:])),
           "realised_last_100": float(np.mean(realised[-100:])),
           "eligible_ceiling_last_100": float(np.mean(ceiling[-100:]))}
    harmful = [i for i in range(n) if effects[i] < 0]
    evidence = []
    for kind in range(args.kinds):
        own = [i for i in range(n) if kinds[i] == kind]
        cov = np.linalg.inv(precision[np.ix_(own, own)])
        mean = cov @ moment[own]
        for j, i in enumerate(own):
            if i in harmful:
                evidence.append(mean[j] + HARM_Z * np.sqrt(cov[j, j]) < 0)
    out["harmful_given_turns"] = [int(given_turns[i]) for i in harmful]
    out["harmful_with_evidence"] = float(np.mean(evidence)) if evidence else 0.0
    return out


def summarise(runs: list[dict]) -> dict:
    last = np.array([r["expected_last_100"] for r in runs])
    within = [r["realised_last_100"] >= r["oracle"] - 0.05 for r in runs]
    out = {"oracle": round(float(np.mean([r["oracle"] for r in runs])), 3),
           "eligible_ceiling_last_100": round(float(np.mean([r["eligible_ceiling_last_100"] for r in runs])), 3),
           "expected_last_100": round(float(last.mean()), 3),
           "expected_last_100_sd": round(float(last.std()), 3),
           "realised_within_0_05_of_oracle": round(float(np.mean(within)), 3)}
    turns = [t for r in runs for t in r["harmful_given_turns"]]
    out["harmful_given_turns_median"] = float(np.median(turns))
    out["harmful_with_evidence"] = round(float(np.mean([r["harmful_with_evidence"] for r in runs])), 3)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    world_arguments(ap)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--noise", type=float, default=0.25,
                    help="outcome variance the learner assumes (0.25, the largest a success/failure can have); "
                         "smaller makes it trust its estimates sooner")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    args.kinds = max(1, min(args.kinds, len(VOCAB)))
    report = {"regime": {k: getattr(args, k) for k in ("base_success", "effect", "sessions", "seeds", "helpful",
                                                         "harmful", "neutral", "inject", "kinds", "noise")}}
    for learner in ("thompson_all", "thompson_lexical"):
        report[learner] = summarise([run_once(args, seed, learner) for seed in range(1, args.seeds + 1)])
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
