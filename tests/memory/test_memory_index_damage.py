"""MEMORY.md against its topic files: a cut index, a cut topic file and an emptied topic file are
reported by doctor (with the fix), recall and SessionStart still show every memory they can, and
a save into an emptied topic file keeps the memory's type."""

from __future__ import annotations

import io
import json
from pathlib import Path

from kioku.hooks.dispatch import run
from kioku.install.doctor import run_checks
from kioku.memory import api

MEMORIES = [("feedback", "Never summarise at the end of a reply"),
            ("feedback", "Use tabs for indentation in Makefiles"),
            ("project", "We deploy with fly.io from the main branch"),
            ("project", "The staging database runs on port 5433"),
            ("reference", "Design notes live in the docs folder of the wiki")]


def _checks(project: Path) -> dict[str, dict]:
    return {c["check"]: c for c in run_checks(project)}


def _session_start(project: Path) -> dict:
    out, err = io.StringIO(), io.StringIO()
    payload = {"hook_event_name": "SessionStart", "session_id": "damage", "cwd": str(project), "source": "startup"}
    assert run("SessionStart", stdin=io.StringIO(json.dumps(payload)), stdout=out, stderr=err) == 0
    return json.loads(out.getvalue())


def _save_all() -> None:
    for type_, text in MEMORIES:
        api.remember(text, type=type_)


def test_a_cut_index_is_completed_for_recall_and_reported(project: Path, kioku) -> None:
    _save_all()
    index = project / ".agents" / "memory" / "MEMORY.md"
    text = index.read_text()
    index.write_text(text[: text.index(MEMORIES[3][1]) + 10])  # cut inside the second project line: 4 of 5 lost
    checks = _checks(project)
    assert not checks["project memory index"]["ok"]
    assert "does not list 4 memories" in checks["project memory index"]["detail"]
    assert "kioku organize --repair" in checks["project memory index"]["detail"]
    assert "MEMORY.md" in checks["project memory cut files"]["detail"]
    recall = kioku("recall", cwd=project)
    assert recall.returncode == 0
    assert all(summary in recall.stdout for _t, summary in MEMORIES), recall.stdout
    assert "was cut short" in recall.stderr
    started = _session_start(project)
    assert all(summary in started["hookSpecificOutput"]["additionalContext"] for _t, summary in MEMORIES)
    assert "was cut short" in started["systemMessage"]
    assert kioku("organize", "--repair", cwd=project).returncode == 0
    after = _checks(project)
    assert "project memory index" not in after and "project memory cut files" not in after
    assert "systemMessage" not in _session_start(project)


def test_a_cut_topic_file_is_reported_and_recall_still_lists_its_memories(project: Path, kioku) -> None:
    _save_all()
    topic = project / ".agents" / "memory" / "infrastructure-notes.md"
    data = topic.read_text()
    topic.write_text(data[: data.rindex("The staging database") + 8])  # the last memory's text cut
    checks = _checks(project)
    assert "infrastructure-notes.md" in checks["project memory cut files"]["detail"]
    assert "git checkout" in checks["project memory cut files"]["detail"]
    recall = kioku("recall", cwd=project)
    assert "The staging database runs on port 5433" in recall.stdout
    assert "The staging database runs on port 5433" in _session_start(project)["hookSpecificOutput"]["additionalContext"]


def test_an_emptied_topic_file_is_reported_and_the_next_save_keeps_its_type(project: Path, kioku) -> None:
    saved = kioku("remember", "--type", "feedback", "--topic", "deploy-notes", "Always deploy on Tuesdays only",
                  cwd=project)
    assert saved.returncode == 0, saved.stderr
    topic = project / ".agents" / "memory" / "deploy-notes.md"
    topic.write_text("")
    check = _checks(project)["project memory index lines"]
    assert not check["ok"] and "point to no memory in deploy-notes.md" in check["detail"]
    assert "kioku organize --repair" in check["detail"]
    # the index still holds its summary: recall and SessionStart show what is left of it
    assert "Always deploy on Tuesdays only" in kioku("recall", cwd=project).stdout
    assert "Always deploy on Tuesdays only" in _session_start(project)["hookSpecificOutput"]["additionalContext"]
    again = kioku("remember", "--type", "feedback", "--topic", "deploy-notes", "Always tag releases before deploying",
                  cwd=project)
    assert again.returncode == 0, again.stderr
    assert "type: feedback" in topic.read_text() and "type: project" not in topic.read_text()
