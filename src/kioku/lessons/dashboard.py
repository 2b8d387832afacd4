"""An agent's learning dashboard (``kioku dashboard --agent NAME [--json]``).

JSON keys: ``total_improvements``, ``active_improvements`` (retrievable:
confidence >= 0.7, not deprecated), ``deprecated_improvements``,
``total_evaluations``, ``recent_success_rate`` (last 100 evaluations within 30 days),
``latest_metrics`` (the newest stored performance snapshot, or the metrics computed now when
there is none or an evaluation was stored after it),
``top_improvements`` (best 5 by digest score, each with uses, successes, success_rate,
wilson_lower), ``improvements_last_7_days``; plus ``agent``, ``promoted_improvements``,
``candidate_improvements`` (stored below 0.7 from user feedback), ``cross_validated_improvements``,
``by_scope``, ``by_category``, ``current_metrics``, ``maintenance_due``, and
``recent_evaluations`` (the newest :data:`RECENT_LISTED` of the last 30 days, newest first: when,
task, outcome, reason, quality). ``recent_success_rate`` is over ``recent_success_turns``, the
recent turns that had a task and were not interrupted (``kioku.lessons.performance``); it is ``null``
when there is none - "no data" is not 0 %. ``lessons``: every lesson (deprecated ones too, so a reader
sees why) with the evidence fields of ``kioku.lessons.stats.lesson_evidence`` (``turns_given``,
``turns_held_back``, ``success_given``, ``success_held_back``, ``uplift``, ``uplift_low``,
``uplift_high``, ``decision``, ``decision_reason``, ``suspension``), promoted first, deprecated
last. Top improvements carry the same fields. The two copies one ``kioku lessons learn`` wrote of a lesson
into both scopes are one lesson everywhere (scope ``"project + global"``, the copy the hooks give;
``kioku.lessons.lesson_state.one_per_lesson``) except in ``by_scope``, which counts stored records.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kioku.lessons import scopes as sc
from kioku.text.defang import defang, defang_line
from kioku.lessons import stats

RECENT_LISTED = 10
_OUTCOME_OF_SUCCESS = {True: "success", False: "failed"}


def _recent_listing(evaluations: list[Any]) -> list[dict[str, Any]]:
    """What each recent evaluation was about and how it went (per-turn records carry
    ``outcome``/``reason``/``task``; older whole-session records only ``success`` and a summary)."""
    out: list[dict[str, Any]] = []
    for rec in reversed(evaluations[-RECENT_LISTED:]):
        m = rec.metadata or {}
        task = str(m.get("task") or "")
        if not task and isinstance(rec.document, str) and rec.document.startswith("Task: "):
            task = rec.document.splitlines()[0][len("Task: "):]
        out.append({"id": rec.id, "timestamp": m.get("timestamp", ""), "task": task,
                    "outcome": m.get("outcome") or _OUTCOME_OF_SUCCESS.get(m.get("success"), "unknown"),
                    "reason": m.get("reason") or m.get("weaknesses") or "",
                    "quality": m.get("quality")})
    return out


def _fresh_snapshot(snapshot: dict[str, Any] | None, recent: list[Any]) -> dict[str, Any] | None:
    """The stored snapshot, unless an evaluation was stored after it (then it is stale and the
    metrics computed now are shown instead)."""
    if not snapshot:
        return None
    newest = max((float((r.metadata or {}).get("timestamp_epoch", 0) or 0) for r in recent), default=0.0)
    return snapshot if float(snapshot.get("timestamp_epoch", 0) or 0) >= newest else None


def build_dashboard(agent: str, project_root: Path | None = None, top: int = 5) -> dict[str, Any]:
    from kioku.lessons import maintenance, performance
    from kioku.lessons.improvements import all_improvements
    from kioku.lessons.lesson_state import one_per_lesson

    agent = sc.validate_agent(agent)
    recs = all_improvements(agent, project_root)
    by_scope: dict[str, int] = {}
    for s, _r in recs:  # stored records: a lesson kept in both scopes counts in each
        by_scope[s] = by_scope.get(s, 0) + 1
    metas = [(s, r, r.metadata or {}) for s, r in one_per_lesson(recs)]
    week_ago = time.time() - 7 * 86400
    total_evals = 0
    for scope in sc.existing_scopes(project_root):
        total_evals += sc.open_scope(scope, project_root).count(agent, "evaluations")
    current = performance.current_metrics(agent, project_root)
    recent = performance.recent_evaluations(agent, project_root)
    latest = _fresh_snapshot(performance.latest_snapshot(agent, project_root), recent) or current
    ranked = sorted(((stats.digest_score(m), s, r, m) for s, r, m in metas if stats.is_active(m)),
                    key=lambda t: (-t[0], t[2].id))
    by_category: dict[str, int] = {}
    for _s, _r, m in metas:
        cat = str(m.get("category", ""))
        by_category[cat] = by_category.get(cat, 0) + 1
    return {
        "agent": agent,
        "total_improvements": len(metas),
        "active_improvements": sum(1 for _s, _r, m in metas if stats.is_active(m)),
        "deprecated_improvements": sum(1 for _s, _r, m in metas if stats.decision_of(m) == "deprecated"),
        "promoted_improvements": sum(1 for _s, _r, m in metas if stats.decision_of(m) == "promoted"),
        "suspended_improvements": sum(1 for _s, _r, m in metas if stats.decision_of(m) == "suspended"),
        "candidate_improvements": sum(1 for _s, _r, m in metas if stats.decision_of(m) == "candidate"),
        "cross_validated_improvements": sum(1 for _s, _r, m in metas if m.get("cross_validated")),
        "total_evaluations": total_evals,
        "recent_success_rate": current["success_rate"] if current.get("success_turns") else None,
        "recent_success_turns": int(current.get("success_turns", 0) or 0),
        "recent_evaluations": _recent_listing(recent),
        "latest_metrics": _no_data_as_null(latest),
        "current_metrics": _no_data_as_null(current),
        "top_improvements": [
            {"id": r.id, "improvement": r.document, "scope": s, "category": m.get("category", ""),
             "confidence": m.get("confidence"), "uses": stats.usage_of(m)[1],
             "successes": stats.usage_of(m)[0], "success_rate": m.get("success_rate", -1.0),
             "wilson_lower": stats.wilson_of(m), "cross_validated": bool(m.get("cross_validated")),
             "score": score, **stats.lesson_evidence(m)}
            for score, s, r, m in ranked[:top]
        ],
        "lessons": [
            {"id": r.id, "improvement": r.document, "scope": s, "category": m.get("category", ""),
             **stats.lesson_evidence(m)}
            for s, r, m in sorted(metas, key=lambda t: (_ORDER.get(stats.decision_of(t[2]), 9),
                                                         -float(t[2].get("uplift", 0.0) or 0.0), t[1].id))
        ],
        "improvements_last_7_days": sum(1 for _s, _r, m in metas
                                        if float(m.get("created_at_epoch", 0) or 0) >= week_ago),
        "by_scope": by_scope,
        "by_category": dict(sorted(by_category.items())),
        "maintenance_due": maintenance.is_due(agent),
    }


_ORDER = {"promoted": 0, "active": 1, "suspended": 2, "candidate": 3, "deprecated": 4}


def _uplift_text(e: dict[str, Any]) -> str:
    if e.get("uplift") is None:
        return "uplift n/a"
    return f"uplift {e['uplift']:+.2f} [{e['uplift_low']:+.2f}, {e['uplift_high']:+.2f}]"


def _pct(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "-"
    return "untested" if v < 0 else f"{v:.0%}"


def _no_data_as_null(metrics: dict[str, Any]) -> dict[str, Any]:
    """``metrics`` with the rates that have nothing behind them as None, not 0: a success rate
    over no turn with a task, quality and its trend over no evaluation."""
    out = dict(metrics)
    if not out.get("evaluations"):
        for key in ("avg_quality", "quality_trend", "avg_duration_s", "avg_tokens"):
            if key in out:
                out[key] = None
    if not out.get("success_turns") and "success_rate" in out:
        out["success_rate"] = None
    return out


def format_dashboard(d: dict[str, Any]) -> str:
    m = d.get("latest_metrics") or {}
    recent_n = d["current_metrics"].get("evaluations", 0)
    judged = d.get("recent_success_turns", 0)
    if not recent_n:
        recent_line = f"Evaluations: {d['total_evaluations']} total; no data in the last 30 days"
    elif d["recent_success_rate"] is None:
        recent_line = (f"Evaluations: {d['total_evaluations']} total, {recent_n} in the last 30 days; "
                       "success rate: no data (none of them had a task and ran to the end)")
    else:
        recent_line = (f"Evaluations: {d['total_evaluations']} total; recent success rate "
                       f"{_pct(d['recent_success_rate'])} of the {judged} turns with a task, "
                       "not interrupted "
                       f"({recent_n} evaluations in the last 30 days)")
    if m.get("evaluations"):
        over = f" of {m['success_turns']} turns with a task" if "success_turns" in m else ""
        success = (f"success {_pct(m.get('success_rate'))}{over}" if m.get("success_rate") is not None
                   else "success: no data (no turn with a task ran to the end)")
        metric_lines = [
            f"  {success}, quality {float(m.get('avg_quality') or 0):.1f} "
            f"(trend {float(m.get('quality_trend') or 0):+.1f}, {'improving' if m.get('improving') else 'not improving'}),",
            f"  avg time {float(m.get('avg_duration_s') or 0):.1f} s, avg tokens {float(m.get('avg_tokens') or 0):.0f}, "
            f"insights {m.get('insights_count', 0)}, improvements stored {m.get('improvements_stored', 0)}",
        ]
    else:
        metric_lines = ["  no data (no evaluation in the window)"]
    lines = [
        f"Agent memory dashboard: {d['agent']}",
        "",
        f"Improvements: {d['total_improvements']} total, {d['active_improvements']} active, "
        f"{d['deprecated_improvements']} deprecated, {d['promoted_improvements']} promoted, "
        f"{d.get('suspended_improvements', 0)} suspended, "
        f"{d['cross_validated_improvements']} cross-validated, {d['candidate_improvements']} candidates",
        f"New in the last 7 days: {d['improvements_last_7_days']}",
        recent_line,
        "",
        "Latest metrics" + (f" ({m['timestamp']})" if m.get("timestamp") else " (computed now)") + ":",
        *metric_lines,
        "",
        "Top improvements (score = confidence x evidence x cross-validation):",
    ]
    if not d["top_improvements"]:
        lines.append("  (none yet)")
    for i, t in enumerate(d["top_improvements"], 1):
        rate = _pct(t["success_rate"])
        lines.append(f"  {i}. [{t['category']}/{t['scope']}] {defang_line(t['improvement'])}")
        lines.append(f"     confidence {float(t['confidence']):.2f}, used {t['uses']}x, success {rate}, "
                     f"Wilson lower bound {t['wilson_lower']:.2f}"
                     + (", cross-validated" if t["cross_validated"] else ""))
    if d.get("recent_evaluations"):
        lines += ["", "Recent evaluations (newest first):"]
        for e in d["recent_evaluations"]:
            quality = e.get("quality")
            q = f", quality {float(quality):.0f}" if isinstance(quality, (int, float)) else ""
            lines.append(f"  {str(e['timestamp'])[:16]} {e['outcome']}{q}: {defang_line(str(e['task']))[:80]}")
            if e.get("reason"):
                lines.append(f"     {defang_line(str(e['reason']))[:120]}")
    lines += ["", "Lessons (evidence: turns given / held back, uplift with 95% interval):"]
    if not d.get("lessons"):
        lines.append("  (none yet)")
    for e in d.get("lessons", []):
        lines.append(f"  [{e['decision']}] {defang_line(e['improvement'])[:100]}")
        lines.append(f"     given {e['turns_given']} ({e['success_given']} ok), held back {e['turns_held_back']} "
                     f"({e['success_held_back']} ok), {_uplift_text(e)}")
        if e.get("decision_reason"):
            # the figures of the look the decision was taken at, which may be older than the line above
            lines.append(f"     last decision: {defang_line(e['decision_reason'])}")
        held = e.get("suspension")
        if held:
            task = f' ("{held["task"]}")' if held["task"] else ""
            lines.append(f"     suspended {held['at']} for session {held['session']}, turn {held['turn']}"
                         + defang_line(f"{task}: {held['reason']}") + f"; given in {held['given_since']} turns since")
    if d.get("maintenance_due"):
        lines += ["", f"Daily maintenance is due (kioku lessons maintain --agent {d['agent']} --daily)."]
    return "\n".join(lines)
