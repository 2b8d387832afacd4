#!/usr/bin/env python3
"""Learning-loop simulation through the real selection, credit and lifecycle code.

    python scripts/bench/learning_loop.py --base-success 0.5 --effect 0.2 --helpful 10 --harmful 10 \\
        --neutral 10 --sessions 600 --inject 5 --seed 1 [--kinds 2] [--hold-back 0.15] \\
        [--judge perfect|rules|model] [--attribution] [--relevance] [--relevant-share 1.0] [--json OUT]

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

The judge (``judge_noise.NoisyJudge``): ``--judge`` picks the measured conditional rates
P(judged success | success) and P(judged success | failure) of the rules or the model judge, or
perfect verdicts (``--success-if-success`` / ``--success-if-failure`` set them by hand; the
verdicts still carry ``--judge``'s ``judged_by``, so the product reads them by that judge's
measured rates: a judge that errs otherwise than measured);
``--attribution`` adds what a model judge says of each lesson in play (a "hurt" suspends a
lesson: ``kioku.learning.suspension``), ``--relevance`` that it also says which lessons bore on
the task. ``--relevant-share`` (world): the share of a lesson's own tasks it bears on; in the
others it has no effect, though it is just as eligible (1.0: every task of its kind).
``--suspended-share`` and ``--restore-after`` set ``kioku.learning.select.SUSPENDED_SHARE`` and
``kioku.learning.suspension.RESTORE_AFTER_GIVEN`` for the run. Outcome noise, attribution and
relevance draw from random streams of their own, so a run with perfect verdicts, no attribution
and ``--relevant-share 1`` is the run the bench made before they existed.
Reported fractions are read back from the store at the end (the ``deprecated`` / ``suspended`` /
``promoted`` flags the lifecycle and suspension steps set, which are what selection acts on).
``oracle_success`` is the expected success of always giving the best ``--inject`` lessons of
the task's kind; ``expected_success_*`` are the expected success chances of what was given
(less noisy than the realised ``success_*``). ``eligible_oracle_success_last_100`` is the
expected success over the last 100 sessions had each turn been given the best lessons among
those the relevance step made eligible (given or held back): the ceiling that lexical
selection leaves, whatever the learning does. ``last_100`` breaks down what those sessions got
(:func:`last_100_mix`). ``timing`` counts, per lesson, its own eligible turns (given or held
back) until it was first out (suspended or deprecated) and until its first decision (deprecated
or promoted), by type (:func:`timing`). The temporary folder is removed at the end.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
from judge_noise import JUDGES, NoisyJudge  # noqa: E402  (beside this script)
from throwaway import emit, throwaway_project  # noqa: E402


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


def judge_of(args: argparse.Namespace) -> NoisyJudge:
    judge = NoisyJudge.named(args.judge, attribution=args.attribution, relevance=args.relevance)
    hit = judge.success_if_success if args.success_if_success is None else args.success_if_success
    miss = judge.success_if_failure if args.success_if_failure is None else args.success_if_failure
    return NoisyJudge(hit, miss, judge.attribution, judge.hurt_recall if args.hurt_recall is None else args.hurt_recall,
                      judge.hurt_false if args.hurt_false is None else args.hurt_false, judge.relevance,
                      judge.judged_by)


def simulate(args: argparse.Namespace, project: Path) -> dict:
    from kioku.lessons import scopes as sc
    from kioku.lessons.improvements import all_improvements, learn
    from kioku.evaluation.verdict import TurnVerdict
    from kioku.hooks import user_prompt_submit
    from kioku.learning import inject, ledger, select, suspension
    from kioku.learning.credit import apply_turn_verdicts

    inject.MAX_IMPROVEMENTS = args.inject  # lessons per turn, read by the hook's selection at call time
    if args.suspended_share is not None:
        select.SUSPENDED_SHARE = args.suspended_share
    if args.restore_after is not None:
        suspension.RESTORE_AFTER_GIVEN = args.restore_after
    judge = judge_of(args)
    rng = random.Random(args.seed)
    noise, attribution_rng, world = (random.Random(f"{args.seed}-{name}") for name in ("judge", "attribution", "world"))
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
    harmful = {i for i, l in lessons.items() if l["type"] == "harmful"}
    outcomes: list[int] = []
    expected: list[float] = []
    eligible_best: list[float] = []
    best: list[float] = []
    mix: list[dict] = []  # per session: the lessons of the task's kind given, by type
    track = {i: {"eligible": 0, "out": None, "decided": None, "suspensions": 0, "hurts": 0, "suspended_now": False}
             for i in lessons}
    t0 = time.monotonic()
    for s in range(args.sessions):
        kind = rng.randrange(kinds)
        words = rng.sample(VOCAB[kind], 2) + rng.sample(FILLER, 3)
        rng.shuffle(words)
        prompt = " ".join(words)
        # the lessons of the task's kind that bear on this task (all of them at --relevant-share 1)
        bears = {i for i, l in lessons.items() if l["kind"] == kind
                 and (args.relevant_share >= 1.0 or world.random() < args.relevant_share)}
        session_id, prompt_id = f"sim-{args.seed}-{s}", f"p-{s}"
        user_prompt_submit._lessons({"session_id": session_id, "prompt_id": prompt_id, "prompt": prompt,
                                     "cwd": str(project), "hook_event_name": "UserPromptSubmit"})
        turns = ledger.turns(session_id, "main")
        turn = turns[-1] if turns else {"given": [], "held_back": {}}  # no lesson was about the task
        given = [i for i in turn["given"] if i in lessons]
        held = [i for i in turn.get("held_back", {}) if i in lessons]
        eligible = given + held
        for i in eligible:
            track[i]["eligible"] += 1
        effects = sorted((lessons[i]["effect"] for i in eligible if i in bears), reverse=True)
        eligible_best.append(clamp(args.base_success + sum(e for e in effects[:args.inject] if e > 0)))
        top = sorted((l["effect"] for i, l in lessons.items() if i in bears), reverse=True)
        best.append(clamp(args.base_success + sum(e for e in top[:args.inject] if e > 0)))
        p = clamp(args.base_success + sum(lessons[i]["effect"] for i in given if i in bears))
        ok = rng.random() < p
        outcomes.append(int(ok))
        expected.append(p)
        own = [lessons[i] for i in given if lessons[i]["kind"] == kind]
        mix.append({"helpful": sum(1 for l in own if l["type"] == "helpful"),
                    "neutral": sum(1 for l in own if l["type"] == "neutral"),
                    "harmful": sum(1 for l in own if l["type"] == "harmful"),
                    "eligible_helpful": sum(1 for i in eligible
                                            if lessons[i]["kind"] == kind and lessons[i]["type"] == "helpful"),
                    "without_harmful": clamp(args.base_success + sum(lessons[i]["effect"] for i in given
                                                                     if i in bears and lessons[i]["effect"] > 0))})
        uses = judge.uses(given, held, harmful, bears, ok, attribution_rng)
        for use in uses:
            track[use["lesson_id"]]["hurts"] += use["effect"] == "hurt"
        verdict = TurnVerdict(prompt_uuid=f"u-{s}", prompt_index=0, prompt_id=prompt_id,
                              outcome=judge.outcome(ok, noise), lesson_uses=uses,
                              judged_by=judge.judged_by)
        report = apply_turn_verdicts("main", session_id, [verdict], project)
        for rec_id, state in report.decisions.items():
            if rec_id not in track:
                continue
            entry = track[rec_id]
            if state in ("suspended", "deprecated") and entry["out"] is None:
                entry["out"] = entry["eligible"]
            if state in ("deprecated", "promoted") and entry["decided"] is None:
                entry["decided"] = entry["eligible"]
            entry["suspensions"] += state == "suspended" and not entry["suspended_now"]
            entry["suspended_now"] = state == "suspended"
    elapsed = time.monotonic() - t0
    sc.reset_store_cache()
    final = {r.id: dict(r.metadata or {}) for _s, r in all_improvements("main", project)}

    def frac(kind_type: str, test) -> float:
        ids = [i for i, l in lessons.items() if l["type"] == kind_type]
        return round(sum(1 for i in ids if test(final.get(i, {}))) / len(ids), 3) if ids else 0.0

    def ours(state: str):
        if state == "deprecated":
            return lambda m: m.get("deprecated") is True
        if state == "out":
            return lambda m: m.get("deprecated") is True or m.get("suspended") is True
        if state == "suspended":
            return lambda m: m.get("suspended") is True and not m.get("deprecated")
        return lambda m: bool(m.get("promoted")) and not m.get("deprecated")

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
                                                 "sessions", "inject", "seed", "kinds", "hold_back", "judge",
                                                 "relevant_share")},
        "judge": judge.describe(),
        "suspended_share": select.SUSPENDED_SHARE, "restore_after": suspension.RESTORE_AFTER_GIVEN,
        **fractions(ours),
        "harmful_out": frac("harmful", ours("out")),
        "harmful_suspended": frac("harmful", ours("suspended")),
        "helpful_suspended": frac("helpful", ours("suspended")),
        "neutral_suspended": frac("neutral", ours("suspended")),
        "success_first_100": mean(outcomes[:100]), "success_last_100": mean(outcomes[-100:]),
        "expected_success_first_100": mean(expected[:100]), "expected_success_last_100": mean(expected[-100:]),
        "expected_success_all": mean(expected),
        "oracle_success": mean(best),
        "eligible_oracle_success_last_100": mean(eligible_best[-100:]),
        "last_100": last_100_mix(mix[-100:], expected[-100:], eligible_best[-100:]),
        "timing": timing(track, lessons),
        "mean_uplift": {kind_type: mean([float(final[i]["uplift"]) for i, l in lessons.items() if l["type"] == kind_type
                                         and isinstance(final.get(i, {}).get("uplift"), (int, float))])
                        for kind_type in ("harmful", "helpful", "neutral")},
        "helpful_deprecated_lessons": [{"reason": str(final[i].get("decision_reason", "")), "eligible": track[i]["eligible"],
                                "suspensions": track[i]["suspensions"], "hurts": track[i]["hurts"]}
                               for i, l in sorted(lessons.items()) if l["type"] == "helpful"
                               and final.get(i, {}).get("deprecated")],
        "seconds": round(elapsed, 1), "ms_per_session": round(1000 * elapsed / max(1, args.sessions), 1),
    }


def timing(track: dict[str, dict], lessons: dict[str, dict]) -> dict:
    """Per lesson type, the own eligible turns each lesson had when it was first out (suspended or
    deprecated) and when first decided (deprecated or promoted): the lists (None: not within the
    run), and for each lesson the eligible turns it had in all, the suspensions and the hurts said."""
    out: dict[str, dict] = {}
    for kind_type in ("harmful", "helpful", "neutral"):
        ids = sorted(i for i, l in lessons.items() if l["type"] == kind_type)
        out[kind_type] = {key: [track[i][key] for i in ids] for key in ("out", "decided", "eligible", "suspensions",
                                                                         "hurts")}
    return out


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
    ap.add_argument("--judge", choices=sorted(JUDGES), default="perfect",
                    help="the conditional rates of this judge (judge_noise.JUDGES)")
    ap.add_argument("--success-if-success", type=float, help="P(judged success | success), instead of --judge's")
    ap.add_argument("--success-if-failure", type=float, help="P(judged success | failure), instead of --judge's")
    ap.add_argument("--attribution", action="store_true", help="the judge says which lessons hurt")
    ap.add_argument("--relevance", action="store_true", help="... and which lessons bore on the task")
    ap.add_argument("--hurt-recall", type=float, help="P(hurt | a harmful lesson bore on a failed turn)")
    ap.add_argument("--hurt-false", type=float, help="P(hurt | any other lesson given)")
    ap.add_argument("--relevant-share", type=float, default=1.0,
                    help="share of a lesson's own tasks it bears on (world)")
    ap.add_argument("--suspended-share", type=float, help="kioku.learning.select.SUSPENDED_SHARE for the run")
    ap.add_argument("--restore-after", type=int, help="kioku.learning.suspension.RESTORE_AFTER_GIVEN for the run")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    emit(run(args), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
