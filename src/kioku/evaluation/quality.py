"""Quality score 0-100 from signals, weighted by the agent's quality criteria.

An agent's Memory Configuration section (parsed by ``kioku.render.section.parse_section``)
may define criteria such as ``{"accuracy": 40, "efficiency": 30, "documentation": 30}``.
Each criterion *name* is mapped by keywords to one measurable dimension below; a name that
matches nothing is scored with the overall outcome (``outcome``). Weights are relative (they
need not sum to 100). Without criteria, :data:`DEFAULT_CRITERIA` is used.

Dimensions (each 0-100, deterministic):
- correctness: 100, minus 6 per recovered tool error and 20 per unrecovered one, minus 35 per
  negative feedback; at most 20 when the task failed.
- efficiency: starts at 100, minus 10 per retry and 5 per error, minus up to 20 for a long
  duration (> 5 min) and up to 20 for heavy token use (> 200k non-cache tokens).
- confidence: 100 minus 15 per retry and 25 per re-run of an identical failing call, minus 15
  when the answer hedges, 30 when it admits failure.
- completeness: a final answer, no unresolved error, nothing left mid-call; positive feedback
  confirms it.
- documentation: a substantive final report (length), documentation files written.
- testing: tests run and passing; neutral (70) when no test was run.
- feedback: user satisfaction (+1 → 100, none → 75, -1 → 15).
- outcome: 90 on success, 30 on failure (and the fallback for unknown names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kioku.evaluation.signals import Signals

if TYPE_CHECKING:
    from kioku.evaluation.verdict import TurnVerdict

DEFAULT_CRITERIA: dict[str, int] = {
    "accuracy": 35, "completeness": 25, "efficiency": 20, "confidence": 10, "user_satisfaction": 10,
}

# keyword (substring of the lower-cased criterion name) -> dimension; first match wins
KEYWORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("accura", "correct", "precis", "reliab", "bug", "quality", "正確", "品質"), "correctness"),
    (("effic", "speed", "fast", "perform", "time", "cost", "token", "concise", "効率", "速"), "efficiency"),
    (("confiden", "decisiv", "certain", "自信"), "confidence"),
    (("test", "verif", "validat", "テスト", "検証"), "testing"),
    (("complet", "thorough", "coverage", "finish", "網羅", "完了"), "completeness"),
    (("document", "doc", "comment", "explain", "clarity", "clear", "communicat", "readab", "文書", "説明"),
     "documentation"),
    (("satisf", "feedback", "helpful", "user", "満足"), "feedback"),
)


def dimension_for(criterion: str) -> str:
    name = criterion.lower()
    for words, dim in KEYWORDS:
        if any(w in name for w in words):
            return dim
    return "outcome"


def _clamp(x: float) -> float:
    return float(max(0.0, min(100.0, x)))


def dimension_scores(sig: Signals) -> dict[str, float]:
    unrecovered = sum(1 for r in sig.recoveries if r.fixed_by is None)
    recovered = sig.tool_errors - unrecovered
    correctness = 100 - 6 * recovered - 20 * unrecovered - 35 * sig.negative_feedback
    if not sig.success:
        correctness = min(correctness, 20)
    efficiency = 100 - 10 * sig.retries - 5 * sig.tool_errors
    efficiency -= min(20.0, max(0.0, (sig.duration_s - 300) / 60))
    efficiency -= min(20.0, max(0.0, (sig.non_cache_tokens - 200_000) / 20_000))
    confidence = 100 - 15 * sig.retries - 25 * sig.same_input_retries - 15 * sig.hedging - 30 * sig.failure_admitted
    completeness = 100.0
    if not sig.has_answer:
        completeness -= 50
    if sig.unresolved_error or sig.incomplete:
        completeness -= 40
    if sig.failure_admitted:
        completeness -= 30
    completeness -= 20 * sig.negative_feedback
    if sig.feedback > 0:
        completeness = max(completeness, 90)
    documentation = 40 + min(45.0, sig.answer_chars / 4) + min(15, 15 * sig.docs_written)
    if sig.tests_run:
        testing = 100 - 60 * (sig.tests_failed / sig.tests_run) * (0.5 if sig.success else 1.0)
    else:
        testing = 70.0
    feedback = {1: 100.0, 0: 75.0, -1: 15.0}[max(-1, min(1, sig.feedback))]
    return {
        "correctness": _clamp(correctness), "efficiency": _clamp(efficiency), "confidence": _clamp(confidence),
        "completeness": _clamp(completeness), "documentation": _clamp(documentation),
        "testing": _clamp(testing), "feedback": _clamp(feedback), "outcome": 90.0 if sig.success else 30.0,
    }


def score(sig: Signals, criteria: dict[str, int] | None = None) -> tuple[float, dict[str, float]]:
    """(quality 0-100, per-criterion scores) for ``sig`` under ``criteria`` (default set when empty)."""
    weights = {k: float(v) for k, v in (criteria or DEFAULT_CRITERIA).items() if float(v) > 0}
    if not weights:
        weights = {k: float(v) for k, v in DEFAULT_CRITERIA.items()}
    dims = dimension_scores(sig)
    per = {name: round(dims[dimension_for(name)], 1) for name in weights}
    total = sum(weights.values())
    quality = sum(per[name] * w for name, w in weights.items()) / total
    return round(_clamp(quality), 1), per


# ---- per-turn quality, normalised by the work done ------------------------------------------

_OUTCOME_SCORE = {"success": 100.0, "no_task": 90.0, "partial": 50.0, "interrupted": 45.0, "failed": 10.0}
HEAVY_NON_CACHE_TOKENS_PER_CALL = 20_000


def turn_dimensions(verdict: "TurnVerdict", next_feedback: str = "none") -> dict[str, float]:
    """The dimensions for one turn. Error penalties are rates (errors per tool call), so a long
    task with a few recovered errors scores like a short clean one; only the agent's own errors
    count (rejections, hook blocks and cascades are not its fault)."""
    calls = max(1, verdict.tool_calls)
    unrecovered = max(0, verdict.agent_errors - verdict.recovered_errors)
    error_rate = verdict.agent_errors / calls
    unrecovered_rate = unrecovered / calls
    outcome = _OUTCOME_SCORE.get(verdict.outcome, 50.0)
    correctness = min(outcome, 100 - 60 * unrecovered_rate - 20 * error_rate)
    heavy = verdict.tokens.non_cache / calls > HEAVY_NON_CACHE_TOKENS_PER_CALL
    efficiency = 100 - 60 * error_rate - 30 * (verdict.retries / calls) - 15 * heavy
    confidence = 100 - 50 * unrecovered_rate - (40 if verdict.outcome == "failed" else 0)
    completeness = outcome
    documentation = 70.0 if verdict.outcome in ("success", "no_task") else 40.0
    testing = 70.0 if verdict.outcome != "partial" else 40.0
    feedback = {"positive": 100.0, "negative": 15.0}.get(next_feedback, 75.0)
    return {
        "correctness": _clamp(correctness), "efficiency": _clamp(efficiency), "confidence": _clamp(confidence),
        "completeness": _clamp(completeness), "documentation": _clamp(documentation),
        "testing": _clamp(testing), "feedback": feedback, "outcome": 90.0 if verdict.succeeded else 30.0,
    }


def score_turn(verdict: "TurnVerdict", criteria: dict[str, int] | None = None, *,
               next_feedback: str = "none") -> tuple[float, dict[str, float]]:
    """(quality 0-100, per-criterion scores) of one turn under the agent's ``criteria``."""
    weights = {k: float(v) for k, v in (criteria or DEFAULT_CRITERIA).items() if float(v) > 0}
    if not weights:
        weights = {k: float(v) for k, v in DEFAULT_CRITERIA.items()}
    dims = turn_dimensions(verdict, next_feedback)
    per = {name: round(dims[dimension_for(name)], 1) for name in weights}
    quality = sum(per[name] * w for name, w in weights.items()) / sum(weights.values())
    return round(_clamp(quality), 1), per
