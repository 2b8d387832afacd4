"""Quality score 0-100 of one turn, weighted by the agent's quality criteria.

An agent's Memory Configuration section (parsed by ``kioku.render.section.parse_section``)
may define criteria such as ``{"accuracy": 40, "efficiency": 30, "documentation": 30}``.
Each criterion *name* is mapped by keywords to one dimension below; a name that matches nothing
is scored with the overall outcome (``outcome``). Weights are relative (they need not sum to
100). Without criteria, :data:`DEFAULT_CRITERIA` is used.

Dimensions of a turn (each 0-100, from its verdict; error penalties are rates per tool call):
correctness, efficiency, confidence, completeness, documentation, testing, feedback (the next
prompt's), and outcome (90 on success, 30 otherwise; the fallback for unknown names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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


def weighted(scores: dict[str, float], criteria: dict[str, int] | None) -> float:
    """The weighted mean of per-criterion scores (criteria missing from ``scores`` count 0)."""
    weights = {k: float(v) for k, v in (criteria or DEFAULT_CRITERIA).items() if float(v) > 0}
    if not weights:
        weights = {k: float(v) for k, v in DEFAULT_CRITERIA.items()}
    total = sum(weights.values())
    return round(_clamp(sum(float(scores.get(name, 0.0)) * w for name, w in weights.items()) / total), 1)


def turn_quality(verdict: "TurnVerdict", criteria: dict[str, int] | None = None, *,
                 next_feedback: str = "none") -> tuple[float, dict[str, float]]:
    """(quality, per-criterion scores): the judge's scores when a model gave them, else the rules'."""
    if verdict.scores:
        return weighted(verdict.scores, criteria), dict(verdict.scores)
    return score_turn(verdict, criteria, next_feedback=next_feedback)
