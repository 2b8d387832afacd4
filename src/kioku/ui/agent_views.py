"""The agent views: lessons with their evidence, latest evaluations, trends (app and report).

``csrf`` is the per-run token for the app's forms; the static report passes ``None`` and
gets the same tables without buttons.
"""

from __future__ import annotations

from typing import Any

from kioku.ui import charts
from kioku.ui.html import NO_DATA, cell, e, e_defanged, interval, num, pct, post_form, signed, table

LESSON_HEADERS = ("Lesson", "Category", "Scope", "Confidence", "Turns given", "Turns held back",
                  "Success given", "Success held back", "Uplift (95% interval)", "Decision")


def _rate(successes: float | None, turns: float | None) -> str:
    if successes is None:
        return NO_DATA
    if turns:
        return f"{num(successes)} ({successes / turns:.0%})"
    return num(successes)


def lesson_rows(agent: str, lessons: list[dict[str, Any]], csrf: str | None) -> list[str]:
    rows = []
    for lesson in lessons:
        decision = f'<span class="decision {e(lesson["decision"])}">{e(lesson["decision"])}</span>'
        if lesson["decision_reason"]:
            decision += f'<div class="reason">{e(lesson["decision_reason"])}</div>'
        held = lesson.get("suspension")
        if held:
            task = f' ("{held["task"]}")' if held["task"] else ""
            decision += (f'<div class="suspension">Suspended {e(held["at"])}: the judge says following it hurt in '
                         f'session {e(held["session"])}, turn {e(held["turn"])}{e(task)}: {e(held["reason"])}. '
                         f'Given in {e(held["given_since"])} turns since; the uplift test confirms or lifts it.</div>')
        if csrf is not None:
            # a suspended lesson can be brought back, or retired for good, by hand
            actions = ([("restore", "Restore")] if lesson["deprecated"] or held else []) + \
                ([("deprecate", "Deprecate")] if not lesson["deprecated"] else [])
            for action, label in actions:
                decision += post_form("/agents/lesson", csrf, {"agent": agent, "id": lesson["id"], "action": action},
                                      label, css=f"lesson-{action}",
                                      confirm=f"{label} this lesson?")
        text = f'<div class="lesson-text">{e(lesson["lesson"])}</div>'
        if lesson["tags"]:
            text += f'<div class="tags">{e(lesson["tags"])}</div>'
        uplift = signed(lesson["uplift"])
        if lesson["uplift"] is not None:
            uplift += f' <span class="interval">({interval(lesson["uplift_low"], lesson["uplift_high"])})</span>'
        rows.append(
            f'<tr data-lesson="{e(lesson["id"])}">' + cell(text) + cell(e(lesson["category"])) + cell(e(lesson["scope"]))
            + cell(num(lesson["confidence"], 2)) + cell(num(lesson["turns_given"]))
            + cell(num(lesson["turns_held_back"])) + cell(_rate(lesson["success_given"], lesson["turns_given"]))
            + cell(_rate(lesson["success_held_back"], lesson["turns_held_back"])) + cell(uplift)
            + cell(decision) + "</tr>")
    return rows


def lessons_section(agent: str, lessons: list[dict[str, Any]], csrf: str | None) -> str:
    counts: dict[str, int] = {}
    for lesson in lessons:
        counts[lesson["decision"]] = counts.get(lesson["decision"], 0) + 1
    summary = ", ".join(f"{n} {e(k)}" for k, n in sorted(counts.items())) or "none yet"
    return (f'<section id="lessons"><h2>Lessons of {e(agent)}</h2><p class="summary">{len(lessons)} lessons: '
            f'{summary}</p>{table(LESSON_HEADERS, lesson_rows(agent, lessons, csrf), "lessons")}</section>')


def _errors(errors: dict[str, float | str | None]) -> str:
    parts = [f"{e(k.replace('_', ' '))} {num(v) if isinstance(v, (int, float)) else e(v)}"
             for k, v in errors.items() if v]
    if parts:
        return ", ".join(parts)
    return "none" if any(v is not None for v in errors.values()) else NO_DATA


def _tokens(tokens: dict[str, float | None]) -> str:
    if "total" in tokens:
        return f"{num(tokens['total'])} total"
    parts = [f"{e(k.replace('_', ' '))} {num(v)}" for k, v in tokens.items() if v is not None]
    return ", ".join(parts) or NO_DATA


def evaluations_section(agent: str, rows: list[dict[str, Any]], total: int | None = None) -> str:
    headers = ("When", "Task", "Verdict", "Reason", "Quality", "Error kinds", "Tokens", "Active time")
    body = []
    for row in rows:
        verdict = row["outcome"] or NO_DATA
        active = f'{row["active_s"]:.1f} s' if row["active_s"] is not None else NO_DATA
        body.append(f'<tr class="eval {e(verdict)}">' + cell(e(row["timestamp"] or NO_DATA)) + cell(e_defanged(row["task"] or NO_DATA))
                    + cell(f'<span class="verdict {e(verdict)}">{e(verdict)}</span>')
                    + cell(e_defanged(row["reason"] or NO_DATA)) + cell(num(row["quality"]))
                    + cell(_errors(row["errors"])) + cell(_tokens(row["tokens"])) + cell(active) + "</tr>")
    shown = f" (newest {len(rows)} of {total})" if total is not None and total > len(rows) else ""
    return (f'<section id="evaluations"><h2>Latest turns of {e(agent)}{shown}</h2>'
            f'{table(headers, body, "evaluations")}</section>')


def trends_section(agent: str, trend: dict[str, Any]) -> str:
    days = [d["day"][5:] for d in trend["daily"]]
    success = charts.line_chart(f"Success rate per day: {agent}", days,
                                [("success rate", [d["success_rate"] for d in trend["daily"]])], 1.0, "percent")
    quality = charts.line_chart(f"Quality per day: {agent}", days,
                                [("average quality", [d["quality"] for d in trend["daily"]])], 100.0)
    weeks = [w["week"] for w in trend["weekly"]]
    learned = charts.bar_chart(f"Lessons per week: {agent}", weeks,
                               [("learned", [w["learned"] for w in trend["weekly"]]),
                                ("deprecated", [w["deprecated"] for w in trend["weekly"]])])
    return (f'<section id="trends"><h2>Trends of {e(agent)}</h2><div class="charts">'
            f'<figure>{success}</figure><figure>{quality}</figure><figure>{learned}</figure></div></section>')


def summary_section(dashboard: dict[str, Any]) -> str:
    """The numbers of ``kioku dashboard`` at the top of the report."""
    def get(key: str) -> str:
        value = dashboard.get(key)
        return e(value) if value is not None else NO_DATA

    rate = dashboard.get("recent_success_rate")
    rate_text = pct(float(rate)) if isinstance(rate, (int, float)) and rate >= 0 else NO_DATA
    items = [("Lessons", get("total_improvements")), ("Active", get("active_improvements")),
             ("Promoted", get("promoted_improvements")), ("Suspended", get("suspended_improvements")),
             ("Candidates", get("candidate_improvements")),
             ("Deprecated", get("deprecated_improvements")), ("Evaluations", get("total_evaluations")),
             ("Recent success", rate_text), ("New in 7 days", get("improvements_last_7_days"))]
    tiles = "".join(f'<div class="tile"><div class="value">{v}</div><div class="label">{e(k)}</div></div>'
                    for k, v in items)
    return f'<section id="summary"><div class="tiles">{tiles}</div></section>'
