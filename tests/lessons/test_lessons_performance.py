"""Performance metrics over real evaluation records, snapshots and the dashboard."""

from __future__ import annotations

import json
import time

import pytest

from kioku.infra import clock
from kioku.lessons import dashboard, performance
from kioku.lessons import improvements as im


def test_metrics_window_trend_and_snapshot(project, store_of, evaluation_writer):
    store = store_of("global")
    now = time.time()
    # 4 old ones outside the 30-day window must not count
    for n in range(4):
        evaluation_writer(store, "coder", f"old{n}", success=False, quality=10, age_days=40 + n, now=now)
    # 6 recent: older half quality 50, newer half 80; 4 successes
    for n, (ok, q) in enumerate([(False, 50), (True, 50), (False, 50), (True, 80), (True, 80), (True, 80)]):
        evaluation_writer(store, "coder", f"e{n}", success=ok, quality=q, age_days=6 - n, now=now,
                          duration_s=10 * (n + 1), tokens=100 * (n + 1), insights=1)
    im.learn("coder", "Keep functions short", "code_quality", 0.8)
    m = performance.current_metrics("coder", project, now_epoch=now)
    assert m["evaluations"] == 6
    assert m["success_rate"] == round(4 / 6, 4)
    assert m["avg_quality"] == 65.0 and m["quality_trend"] == 30.0 and m["improving"] is True
    assert m["avg_duration_s"] == 35.0 and m["avg_tokens"] == 350.0
    assert m["insights_count"] == 6 and m["improvements_stored"] == 1
    snap = performance.snapshot("coder", project)
    stored = store.get("coder", "performance")
    assert len(stored) == 1 and stored[0].metadata["avg_quality"] == 65.0
    # Chroma may round a float by one ulp on the way back (see tests/lessons/store/test_store_meta.py)
    assert stored[0].metadata["timestamp_epoch"] == pytest.approx(snap["timestamp_epoch"], abs=1e-3)
    assert performance.latest_snapshot("coder", project)["success_rate"] == m["success_rate"]


def test_only_last_hundred_evaluations(project, store_of, evaluation_writer):
    store = store_of("global")
    now = time.time()
    from kioku.lessons.store.client import Record  # noqa: F401  (batch write below for speed)
    recs = []
    for n in range(105):
        ok = n >= 5  # the 5 oldest are failures and fall out of the window
        epoch = now - (105 - n) * 60
        recs.append(Record(id=f"e{n:03d}", document="summary", metadata={
            "agent_name": "coder", "success": ok, "quality": 70.0, "duration_s": 1.0, "tokens": 1,
            "insights_count": 0, "timestamp": "t", "timestamp_epoch": epoch}))
    store.upsert("coder", "evaluations", recs)
    m = performance.current_metrics("coder", project, now_epoch=now)
    assert m["evaluations"] == 100 and m["success_rate"] == 1.0 and m["quality_trend"] == 0.0
    assert m["improving"] is False


def test_empty_agent_metrics():
    m = performance.compute_metrics([], 0)
    assert m["evaluations"] == 0 and m["success_rate"] == 0.0 and m["improving"] is False


def test_dashboard_json_and_text(project, store_of, evaluation_writer, kioku):
    store = store_of("global")
    evaluation_writer(store, "coder", "e1", success=True, quality=90)
    evaluation_writer(store, "coder", "e2", success=False, quality=40)
    a = im.learn("coder", "Quote every variable in shell scripts", "code_quality", 0.8)[0]
    im.learn("coder", "Services live in app/services", "architecture_patterns", 0.9)
    b = im.learn("coder", "Rewrite modules from scratch", "code_quality", 0.8)[0]
    store.update_metadata("coder", "improvements", [b], [{"deprecated": True}])
    store.update_metadata("coder", "improvements", [a], [{"usage_count": 10, "success_count": 9,
                                                          "success_rate": 0.9, "tested": True}])
    res = kioku("dashboard", "--agent", "coder", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    for key in ("total_improvements", "active_improvements", "deprecated_improvements",
                "total_evaluations", "recent_success_rate", "latest_metrics", "top_improvements",
                "improvements_last_7_days"):
        assert key in d
    assert (d["total_improvements"], d["active_improvements"], d["deprecated_improvements"]) == (3, 2, 1)
    assert d["total_evaluations"] == 2 and d["recent_success_rate"] == 0.5
    assert d["improvements_last_7_days"] == 3
    assert d["top_improvements"][0]["id"] == a and d["top_improvements"][0]["wilson_lower"] > 0.55
    assert d["latest_metrics"]["evaluations"] == 2
    text = kioku("dashboard", "--agent", "coder", cwd=project)
    assert text.returncode == 0 and "3 total, 2 active, 1 deprecated" in text.stdout
    assert "Quote every variable" in text.stdout
    empty = dashboard.build_dashboard("ghost", project)
    assert empty["total_improvements"] == 0 and empty["top_improvements"] == []


def test_dashboard_says_no_data_and_lists_recent_evaluations(project, store_of, evaluation_writer):
    empty = dashboard.build_dashboard("ghost", project)
    assert empty["recent_success_rate"] is None and empty["recent_evaluations"] == []
    text = dashboard.format_dashboard(empty)
    assert "no data in the last 30 days" in text and "0%" not in text
    for metrics in (empty["latest_metrics"], empty["current_metrics"]):  # the JSON says null, not 0
        assert metrics["success_rate"] is None and metrics["avg_quality"] is None
    evaluation_writer(store_of("global"), "coder", "e1", success=False, quality=40)
    d = dashboard.build_dashboard("coder", project)
    [listed] = d["recent_evaluations"]
    assert listed["outcome"] == "failed" and listed["id"] == "e1"
    assert "Recent evaluations" in dashboard.format_dashboard(d)


def test_dashboard_shows_metrics_computed_now_when_the_snapshot_is_stale(project, store_of, evaluation_writer):
    store = store_of("global")
    now = time.time()
    evaluation_writer(store, "coder", "e1", success=False, quality=40, age_days=1, now=now)
    performance.snapshot("coder", project)
    d = dashboard.build_dashboard("coder", project)
    assert d["latest_metrics"]["evaluations"] == 1 and "timestamp" in d["latest_metrics"]  # the snapshot
    evaluation_writer(store, "coder", "e2", success=True, quality=90, age_days=-0.01, now=now)  # stored after it
    d = dashboard.build_dashboard("coder", project)
    assert d["latest_metrics"]["evaluations"] == 2 and "timestamp" not in d["latest_metrics"]
    assert "Latest metrics (computed now):" in dashboard.format_dashboard(d)


def test_success_rate_is_over_turns_with_a_task_that_were_not_interrupted(project, store_of, evaluation_writer,
                                                                        kioku):
    from kioku.lessons.store.client import Record

    store = store_of("global")
    now = time.time()
    for n in range(8):
        evaluation_writer(store, "coder", f"ok{n}", success=True, quality=90, age_days=1, now=now)
    for rid, outcome, ok in (("int", "interrupted", False), ("none", "no_task", True), ("bad", "failed", False)):
        meta = {"agent_name": "coder", "success": ok, "quality": 50.0, "outcome": outcome,
                "timestamp": "t", "timestamp_epoch": now - 3600}
        store.upsert("coder", "evaluations", [Record(rid, f"turn {rid}", meta)])
    m = performance.current_metrics("coder", project, now_epoch=now)
    # 8 successes and 1 failure judged; the interrupted and the no-task turn are not turns with a task
    assert m["evaluations"] == 11 and m["success_turns"] == 9 and m["success_rate"] == round(8 / 9, 4)
    d = dashboard.build_dashboard("coder", project)
    assert d["recent_success_rate"] == round(8 / 9, 4) and d["recent_success_turns"] == 9
    text = dashboard.format_dashboard(d)
    assert "recent success rate 89% of the 9 turns with a task, not interrupted (11 evaluations" in text, text
    only_neutral = performance.compute_metrics([Record("i", "", {"outcome": "interrupted", "success": False}),
                                                Record("n", "", {"outcome": "no_task", "success": True})])
    assert only_neutral["success_turns"] == 0 and only_neutral["success_rate"] == 0.0


def test_dashboard_hint_names_the_agent(project):
    text = dashboard.format_dashboard(dashboard.build_dashboard("coder", project))
    assert "kioku lessons maintain --agent coder --daily" in text and "--agent NAME" not in text


def test_weekly_report_says_no_data_for_a_week_without_snapshots(project, kioku):
    im.learn("coder", "Keep functions short", "code_quality", 0.8)
    res = kioku("lessons", "maintain", "--agent", "coder", "--weekly", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "None" not in res.stdout and "last week no data" in res.stdout, res.stdout


def test_dashboard_of_an_agent_without_memory_names_the_agents_that_have_some(project, kioku):
    im.learn("coder", "Keep functions short", "code_quality", 0.8)
    res = kioku("dashboard", "--agent", "codr", cwd=project)
    assert res.returncode == 0
    assert "agent 'codr' has no lessons or evaluations here" in res.stderr and "coder" in res.stderr
    assert kioku("dashboard", "--agent", "coder", cwd=project).stderr == ""


def test_a_lesson_over_several_lines_is_printed_on_one_line(project, store_of, kioku):
    from kioku.lessons import improvements as im

    im.learn("coder", "Check the lockfile first\n  [promoted] Always push to main", "code_quality", 0.9)
    out = kioku("dashboard", "--agent", "coder", cwd=project)
    assert out.returncode == 0
    assert not any(line.startswith("  [promoted] Always") for line in out.stdout.splitlines())
    assert "Check the lockfile first [promoted] Always push to main" in out.stdout
    found = kioku("lessons", "search", "--agent", "coder", "check the lockfile first", cwd=project)
    assert "1. Check the lockfile first [promoted] Always push to main" in found.stdout


def test_the_web_app_dates_a_turn_by_when_it_happened_not_when_it_was_judged(project, store_of):
    from kioku.lessons.store.client import Record
    from kioku.ui import data

    store = store_of("global")
    now = time.time()
    week_ago = now - 7 * 86400
    records = []
    for index in (0, 1):
        meta = {"agent_name": "coder", "timestamp": "", "timestamp_epoch": now, "outcome": "success",
                "success": True, "quality": 90.0, "task": f"turn {index}", "prompt_index": index,
                "started_at_epoch": week_ago, "transcript_epoch": week_ago}
        records.append(Record(id=f"ev_turn_{index}", document=f"Task: turn {index}", metadata=meta))
    store.upsert("coder", "evaluations", records)
    rows = data.evaluation_rows("coder", project)
    assert [r["task"] for r in rows] == ["turn 1", "turn 0"]  # newest first, by the turn's place too
    assert all(abs(r["epoch"] - week_ago) < 1 for r in rows)
    [day] = data.trends("coder", project, lesson_rows=[])["daily"]
    assert day["turns"] == 2 and day["day"] == clock.utc_day(week_ago)


def test_an_html_report_of_an_agent_without_memory_names_the_agents_that_have_some(project, kioku, tmp_path):
    from kioku.lessons import improvements as im

    im.learn("coder", "Quote shell variables", "code_quality", 0.9)
    out = kioku("dashboard", "--agent", "codr", "--html", str(tmp_path / "r.html"), cwd=project)
    assert out.returncode == 0 and "agent 'codr' has no lessons or evaluations" in out.stderr
    assert "coder" in out.stderr
    ok = kioku("dashboard", "--agent", "coder", "--html", str(tmp_path / "r2.html"), cwd=project)
    assert ok.returncode == 0 and ok.stderr == ""
