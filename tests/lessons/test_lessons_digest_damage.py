"""A damaged lesson digest (kioku.lessons.digest) is reported by doctor, set aside by the next
SessionStart with one message to the user, and rebuilt from the store by the detached worker."""

from __future__ import annotations

import io
import json
from pathlib import Path

from kioku.hooks.dispatch import run
from kioku.infra import jobs
from kioku.install.doctor import run_checks
from kioku.lessons.digest import digest_path
from kioku.lessons.improvements import learn
from kioku.worker import drain

LESSON = "Run the linter before committing"


def _session_start(project: Path, session: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    payload = {"hook_event_name": "SessionStart", "session_id": session, "cwd": str(project), "source": "startup"}
    assert run("SessionStart", stdin=io.StringIO(json.dumps(payload)), stdout=out, stderr=err) == 0
    assert err.getvalue() == ""
    return json.loads(out.getvalue()) if out.getvalue() else {}


def _digest_check(project: Path) -> dict | None:
    return {c["check"]: c for c in run_checks(project)}.get("lessons digest (global)")


def test_a_damaged_digest_is_reported_set_aside_and_rebuilt(project: Path, monkeypatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    learn("main", LESSON, "code_quality", 0.9, scope="global", project_root=project)
    assert LESSON in _session_start(project, "s0")["hookSpecificOutput"]["additionalContext"]
    path = Path(digest_path("main", "global", project))
    path.write_text(path.read_text()[:40])  # cut in the middle
    check = _digest_check(project)
    assert check is not None and not check["ok"] and "damaged: main.json" in check["detail"]

    first = _session_start(project, "s1")
    assert LESSON not in json.dumps(first)
    assert "lessons digest" in first["systemMessage"] and "damaged" in first["systemMessage"]
    assert "the worker is rebuilding it" in first["systemMessage"]
    assert not path.exists() and list(path.parent.glob("main.json.corrupt-*"))
    [job] = [jobs.load(p) for p in jobs.pending()]
    assert job["kind"] == "rebuild_digests" and job["agent"] == "main"
    assert "systemMessage" not in _session_start(project, "s2")  # said once

    report = drain.drain(wait=True, lag_wait=0)
    assert report["processed"] == 1 and report["failed"] == 0, report
    assert LESSON in _session_start(project, "s3")["hookSpecificOutput"]["additionalContext"]
    assert _digest_check(project) is None


def test_doctor_reports_an_agent_whose_digest_is_missing(project: Path) -> None:
    learn("main", LESSON, "code_quality", 0.9, scope="global", project_root=project)
    Path(digest_path("main", "global", project)).unlink()
    check = _digest_check(project)
    assert check is not None and not check["ok"] and "missing for main" in check["detail"]
    assert "kioku lessons maintain --agent main --daily" in check["detail"]
