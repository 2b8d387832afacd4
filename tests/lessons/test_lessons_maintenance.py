"""Daily/weekly/monthly maintenance, archives that lose nothing, and the background trigger."""

from __future__ import annotations

import json
import os
import time

import pytest

from kioku.lessons import improvements as im
from kioku.lessons import lesson_state
from kioku.lessons import maintenance
from kioku.lessons.transfer.importing import import_file
from kioku.infra import paths


def _use(store, rid, uses, wins):
    store.update_metadata("coder", "improvements", [rid], [{
        "usage_count": uses, "success_count": wins, "success_rate": wins / uses, "tested": True}])


def test_daily_snapshots_and_stamps_and_leaves_decisions_to_evidence(project, store_of, kioku, evaluation_writer):
    store = store_of("global")
    evaluation_writer(store, "coder", "ev1", success=True, quality=90.0)
    bad = im.learn("coder", "Rewrite modules from scratch", "code_quality", 0.8)[0]
    good = im.learn("coder", "Quote every shell variable", "code_quality", 0.8)[0]
    _use(store, bad, 12, 3)
    _use(store, good, 25, 23)
    assert maintenance.is_due("coder")
    res = kioku("lessons", "maintain", "--agent", "coder", "--daily", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert "deprecated" not in report and "promoted" not in report
    m = {r.id: r.metadata for r in store.get("coder", "improvements")}
    # the seed's absolute-rate rule is a second opinion only: no held-back turns, no decision
    assert not m[bad]["deprecated"] and not m[good]["promoted"] and m[good]["confidence"] == 0.8
    assert len(store.get("coder", "performance")) == 1
    assert not maintenance.is_due("coder")
    again = kioku("lessons", "maintain", "--agent", "coder", "--daily", "--if-due", cwd=project)
    assert again.returncode == 0 and "not due" in again.stdout
    assert len(store.get("coder", "performance")) == 1


def test_weekly_top_bottom_and_trends(project, store_of):
    store = store_of("global")
    ids = [im.learn("coder", f"Lesson {n} about shell quoting rule {n}", "code_quality", 0.8)[0]
           for n in range(4)]
    for n, rid in enumerate(ids):
        _use(store, rid, 10, 3 + 2 * n)  # 3/10, 5/10, 7/10, 9/10: absolute success ranks nothing
    # the evidence: lesson 0 lifts success most, lesson 3 (the most "successful") hurts
    uplifts = {ids[0]: (0.30, 0.10, 0.50), ids[1]: (0.10, -0.05, 0.25), ids[2]: (0.0, -0.20, 0.20),
               ids[3]: (-0.30, -0.50, -0.10)}
    store.update_metadata("coder", "improvements", list(uplifts), [
        {"turns_given": 40, "turns_held_back": 20, "uplift": u, "uplift_low": lo, "uplift_high": hi}
        for u, lo, hi in uplifts.values()])
    unmeasured = im.learn("coder", "Lesson without held-back turns yet", "code_quality", 0.8)[0]
    report = maintenance.run_weekly("coder", project, top=2)
    assert [r["id"] for r in report["top_improvements"]] == [ids[0], ids[1]]
    assert [r["id"] for r in report["bottom_improvements"]] == [ids[3], ids[2]]
    assert unmeasured not in {r["id"] for r in report["top_improvements"] + report["bottom_improvements"]}
    assert report["improvements_last_7_days"] == 5
    assert set(report["trends"]) >= {"success_rate", "avg_quality"}


def test_monthly_archives_old_evaluations_and_prunes_deprecated(project, store_of, evaluation_writer):
    store = store_of("global")
    evaluation_writer(store, "coder", "old1", success=True, quality=80, age_days=120)
    evaluation_writer(store, "coder", "old2", success=False, quality=20, age_days=95)
    evaluation_writer(store, "coder", "new1", success=True, quality=90, age_days=3)
    dead = im.learn("coder", "Rewrite modules from scratch", "code_quality", 0.8)[0]
    recent = im.learn("coder", "Mock the clock in scheduler tests", "code_quality", 0.8)[0]
    im.learn("coder", "Quote every shell variable", "code_quality", 0.8)
    long_ago = time.time() - 100 * 86400
    store.update_metadata("coder", "improvements", [dead, recent], [
        {"deprecated": True, "deprecated_reason": "x", "deprecated_at_epoch": long_ago},
        {"deprecated": True, "deprecated_reason": "y", "deprecated_at_epoch": time.time() - 60}])
    report = maintenance.run_monthly("coder", project, older_than_days=90)
    assert report["evaluations_archived"] == 2 and report["improvements_pruned"] == 1
    # deprecated a minute ago: still in the store, so `kioku lessons restore` finds it
    assert recent in [r.id for r in store.get("coder", "improvements")]
    assert lesson_state.set_deprecated("coder", recent, False, project, reason="user restored")[1] != "deprecated"
    assert [r.id for r in store.get("coder", "evaluations")] == ["new1"]
    assert dead not in [r.id for r in store.get("coder", "improvements")]
    archives = {os.path.basename(p).rsplit("-", 3)[0]: p for p in report["archives"]}
    assert set(archives) == {"evaluations", "improvements-deprecated"}
    rows = [json.loads(line) for line in open(archives["evaluations"], encoding="utf-8")]
    assert {r["id"] for r in rows} == {"old1", "old2"}
    assert rows[0]["metadata"]["agent_name"] == "coder" and oct(os.stat(archives["evaluations"]).st_mode)[-3:] == "600"
    # not lost: the archive imports back
    import_file(archives["evaluations"])
    import_file(archives["improvements-deprecated"])
    assert {r.id for r in store.get("coder", "evaluations")} == {"old1", "old2", "new1"}
    assert dead in [r.id for r in store.get("coder", "improvements")]


@pytest.mark.slow
def test_run_due_in_background_spawns_detached_daily_run(project, store_of, evaluation_writer):
    im.learn("coder", "Quote every shell variable", "code_quality", 0.8)
    evaluation_writer(store_of("global"), "coder", "ev1", success=True, quality=90.0)
    import subprocess

    spawned: list[dict] = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs) -> None:
            spawned.append({"kwargs": kwargs, "waited": False})
            super().__init__(*args, **kwargs)

        def wait(self, timeout=None):  # noqa: ANN001 - Popen's signature
            spawned[-1]["waited"] = True
            return super().wait(timeout)

        def communicate(self, *args, **kwargs):  # noqa: ANN002, ANN003
            spawned[-1]["waited"] = True
            return super().communicate(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(maintenance.subprocess, "Popen", Recorded)
        assert maintenance.run_due_in_background("coder", project) is True
    # returns at once: one detached child in a session of its own, never waited for
    assert len(spawned) == 1 and spawned[0]["kwargs"]["start_new_session"] is True and not spawned[0]["waited"]
    assert maintenance.run_due_in_background("coder", project) is False  # just spawned
    deadline = time.time() + 90
    while maintenance.is_due("coder") and time.time() < deadline:
        time.sleep(0.5)
    log = paths.logs_dir() / "maintenance.log"
    assert not maintenance.is_due("coder"), log.read_text() if log.exists() else "no log"
    assert len(store_of("global").get("coder", "performance")) == 1
    assert maintenance.run_due_in_background("coder", project) is False  # not due any more
    assert oct(log.stat().st_mode)[-3:] == "600"  # private, like every log of Kioku's


def test_background_maintenance_can_be_switched_off(project, monkeypatch):
    monkeypatch.setenv("KIOKU_BACKGROUND_MAINTENANCE", "0")
    assert maintenance.run_due_in_background("coder", project) is False
    monkeypatch.delenv("KIOKU_BACKGROUND_MAINTENANCE")
    monkeypatch.setenv("KIOKU_DISABLE", "1")
    assert maintenance.run_due_in_background("coder", project) is False
    assert not maintenance.stamp_path("coder").with_suffix(".spawned").exists()


@pytest.mark.parametrize("days", [0, -5, float("nan")])
def test_monthly_refuses_an_age_below_one_day(days, kioku):
    out = kioku("lessons", "maintain", "--agent", "coder", "--monthly", "--older-than", str(days))
    assert out.returncode == 2 and "at least 1 day" in out.stderr and "Traceback" not in out.stderr


def test_a_day_without_evaluations_stores_no_snapshot_and_says_so(project, store_of, kioku):
    im.learn("coder", "Quote every shell variable", "code_quality", 0.8)
    out = kioku("lessons", "maintain", "--agent", "coder", "--daily", cwd=project)
    assert out.returncode == 0 and "no evaluations in the last 30 days" in out.stdout and "0%" not in out.stdout
    assert store_of("global").get("coder", "performance") == []
    weekly = kioku("lessons", "maintain", "--agent", "coder", "--weekly", cwd=project)
    assert "success_rate: this week no data" in weekly.stdout
