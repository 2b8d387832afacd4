"""Per-turn credit through the real hooks, Stop job and worker, on a recorded multi-turn transcript."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import learn
from kioku.infra import jobs
from kioku.worker import drain as worker
from kioku.evaluation.verdict import TurnVerdict
from kioku.hooks import stop, user_prompt_submit
from kioku.learning import credit, evidence, ledger

LESSONS = {
    "parser": "When the parser grammar rejects a token, print the lexer state first",
    "docker": "Before a docker deploy, build the container image locally and run it once",
    "postgres": "Run a postgres migration inside a transaction so a failure rolls back",
}
SESSION = "3f0c2a4e-0000-4000-8000-00000000abcd"


@pytest.fixture
def lessons(project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    monkeypatch.setenv("KIOKU_BACKGROUND_MAINTENANCE", "0")
    monkeypatch.setenv("KIOKU_HOLD_BACK", "0")
    return {key: learn("main", text, "search_strategy", 0.8, project_root=project)[0]
            for key, text in LESSONS.items()}


def _meta(project: Path, rec_id: str) -> dict:
    sc.reset_store_cache()
    return sc.open_scope("global", project).get("main", "improvements", ids=[rec_id])[0].metadata


def _prompt(project: Path, text: str, prompt_id: str) -> str:
    payload = {"session_id": SESSION, "prompt_id": prompt_id, "prompt": text, "cwd": str(project),
               "hook_event_name": "UserPromptSubmit", "transcript_path": ""}
    result = user_prompt_submit.handle(payload)
    return result.additional_context if result else ""


def _stop(project: Path, transcript: Path, prompt_id: str, last: str) -> dict:
    stop.handle({"session_id": SESSION, "prompt_id": prompt_id, "cwd": str(project), "hook_event_name": "Stop",
                 "transcript_path": str(transcript), "stop_hook_active": False, "last_assistant_message": last})
    assert len(jobs.pending()) == 1
    report = worker.drain(wait=True, lag_wait=0)
    assert report["failed"] == 0, report
    return report


def _user(text: str, uuid: str, prompt_id: str | None) -> dict:
    line = {"type": "user", "uuid": uuid, "sessionId": SESSION, "isSidechain": False,
            "timestamp": f"2026-01-01T00:00:{int(uuid[-1]) * 10:02d}Z", "message": {"role": "user", "content": text}}
    if prompt_id:
        line["promptId"] = prompt_id
    return line


def _assistant(text: str, uuid: str) -> dict:
    return {"type": "assistant", "uuid": uuid, "sessionId": SESSION, "isSidechain": False,
            "timestamp": f"2026-01-01T00:00:{int(uuid[-1]) * 10 + 5:02d}Z",
            "message": {"id": f"m-{uuid}", "role": "assistant", "model": "claude-x", "stop_reason": "end_turn",
                        "content": [{"type": "text", "text": text}],
                        "usage": {"input_tokens": 10, "output_tokens": 5}}}


def _append(path: Path, *lines: dict) -> None:
    import json

    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(line) + "\n" for line in lines))


@pytest.mark.parametrize("with_prompt_ids", [True, False], ids=["prompt_id", "prompt_sha256"])
def test_turn_outcome_reaches_only_its_lessons_and_feedback_corrects_it(project, lessons, tmp_path,
                                                                         with_prompt_ids):
    live = tmp_path / f"{SESSION}.jsonl"
    live.write_text("", encoding="utf-8")
    turns = [("Fix the parser grammar: the lexer rejects this token", "Fixed the grammar rule for the token."),
             ("Now deploy it with docker to the staging container", "Deployed the container to staging."),
             ("That's wrong, the docker deploy still fails on staging", "Looking at the deploy again.")]
    given_by_turn: list[set[str]] = []
    for n, (prompt, reply) in enumerate(turns, 1):
        pid = f"p-{n}" if with_prompt_ids else ""
        context = _prompt(project, prompt, pid)
        given = set(ledger.turns(SESSION, "main")[-1]["given"])
        given_by_turn.append(given)
        for rec_id in given:  # what the ledger says was given is what the model saw
            assert LESSONS[next(k for k, v in lessons.items() if v == rec_id)] in context
        _append(live, _user(prompt, f"u-{2 * n - 1}", pid or None), _assistant(reply, f"u-{2 * n}"))
        _stop(project, live, pid, reply)
        if n == 2:
            turn2 = {i: _meta(project, i) for i in given_by_turn[1]}
    assert given_by_turn[0] == {lessons["parser"]} and given_by_turn[1] == {lessons["docker"]}
    # turn 2's outcome reached the docker lesson only, once
    assert turn2[lessons["docker"]]["turns_given"] == 1 and turn2[lessons["docker"]]["success_given"] == 1
    parser = _meta(project, lessons["parser"])
    assert (parser["turns_given"], parser["success_given"]) == (1, 1)  # its own turn 1, untouched by turn 2
    assert int(_meta(project, lessons["postgres"]).get("turns_given", 0) or 0) == 0
    # turn 3 said turn 2 was wrong: the docker lesson's credit is corrected, turn 1's is not
    docker = _meta(project, lessons["docker"])
    assert (docker["turns_given"], docker["success_given"]) == (1, 0)
    assert (_meta(project, lessons["parser"])["success_given"]) == 1
    # the same jobs again (a retried worker) change nothing
    jobs.enqueue({"agent": "main", "session_id": SESSION, "transcript_path": str(live), "cwd": str(project),
                  "event": "Stop"})
    worker.drain(wait=True, lag_wait=0)
    assert (_meta(project, lessons["docker"])["turns_given"], _meta(project, lessons["docker"])["success_given"]) == (1, 0)


def _verdict(index: int, outcome: str, prompt_id: str, feedback: str = "none") -> TurnVerdict:
    return TurnVerdict(prompt_uuid=f"u{index}", prompt_index=index, outcome=outcome, prompt_id=prompt_id,
                       feedback_on_previous=feedback)


def _open(project: Path, prompt_id: str, given: dict, held: dict) -> None:
    ledger.open_turn(SESSION, "main", prompt_id=prompt_id, prompt_sha256="", given=given, held_back=held,
                     project_root=str(project))


def test_restart_mid_session_loses_no_credit_and_double_counts_none(project, lessons):
    a, b = lessons["parser"], lessons["docker"]
    _open(project, "p1", {a: "global"}, {b: "global"})
    _open(project, "p2", {b: "global"}, {a: "global"})
    # a worker died after writing turn 1's rows but before the lifecycle step
    evidence.write_turn("main", SESSION, "t1", {a: "global"}, {b: "global"}, True, 0.0)
    verdicts = [_verdict(0, "success", "p1"), _verdict(1, "failed", "p2")]
    for _attempt in range(3):  # the restarted worker, then two retries
        report = credit.apply_turn_verdicts("main", SESSION, verdicts, project)
        assert report.matched == 2 and report.credited == 2
    ma, mb = _meta(project, a), _meta(project, b)
    assert (ma["turns_given"], ma["success_given"], ma["turns_held_back"], ma["success_held_back"]) == (1, 1, 1, 0)
    assert (mb["turns_given"], mb["success_given"], mb["turns_held_back"], mb["success_held_back"]) == (1, 0, 1, 1)
    assert ma["usage_count"] == 1 and ma["success_rate"] == 1.0  # the seed's counters are the given arm


def test_feedback_before_the_turns_own_verdict_still_wins(project, lessons):
    a = lessons["parser"]
    _open(project, "p1", {a: "global"}, {})
    _open(project, "p2", {}, {})
    credit.apply_turn_verdicts("main", SESSION, [_verdict(1, "success", "p2", feedback="negative")], project)
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "success", "p1")], project)
    assert (_meta(project, a)["turns_given"], _meta(project, a)["success_given"]) == (1, 0)


def test_interrupted_and_no_task_turns_credit_nothing(project, lessons):
    a = lessons["parser"]
    _open(project, "p1", {a: "global"}, {})
    _open(project, "p2", {a: "global"}, {})
    report = credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "interrupted", "p1"),
                                                          _verdict(1, "no_task", "p2")], project)
    assert report.credited == 0 and evidence.totals("main", [a])[a] == (0, 0, 0, 0)


def test_join_falls_back_from_prompt_id_to_sha_to_order():
    sha = hashlib.sha256(b"deploy").hexdigest()
    turns = [{"n": 1, "prompt_id": "", "prompt_sha256": ""}, {"n": 2, "prompt_id": "", "prompt_sha256": sha},
             {"n": 3, "prompt_id": "p3", "prompt_sha256": ""}]
    verdicts = [TurnVerdict("u0", 0, "success"),
                TurnVerdict("u1", 1, "success", prompt_sha256=sha),
                TurnVerdict("u2", 2, "success", prompt_id="p3")]
    assert [t["n"] for _v, t in credit.join(verdicts, turns)] == [1, 2, 3]
    assert credit.join([TurnVerdict("x", 5, "success", prompt_id="nope")], turns) == [(TurnVerdict("x", 5, "success", prompt_id="nope"), None)]


def test_a_credited_turn_records_when_the_lesson_was_last_given(project):
    import time

    from kioku.lessons.improvements import all_improvements, learn
    from kioku.learning import evidence
    from kioku.learning import lifecycle as learning_lifecycle

    [given] = learn("main", "Run the focused test file first", "testing_patterns", 0.8, project_root=project)
    [held] = learn("main", "Read the whole stack trace", "error_handling", 0.8, project_root=project)
    at = time.time() - 60
    evidence.write_turn("main", "s1", "t1", {given: "global"}, {held: "global"}, True, at, {given: 0.9, held: 0.9})
    learning_lifecycle.refresh("main", {given: "global", held: "global"}, project)
    meta = {r.id: r.metadata or {} for _s, r in all_improvements("main", project)}
    assert abs(meta[given]["last_used_epoch"] - at) < 1e-6 and meta[given]["last_used"].endswith("Z")
    assert meta[held]["last_used"] == "" and meta[held]["last_used_epoch"] == 0.0  # held back is not used


def test_a_promotion_the_later_evidence_no_longer_supports_is_withdrawn_in_the_store(project):
    from kioku.lessons.digest import read_digest
    from kioku.learning import lifecycle as learning_lifecycle

    [rec_id] = learn("main", "Run the focused test file first", "testing_patterns", 0.8, project_root=project)
    arm = {rec_id: "global"}

    def turns(start: int, given: list[int], held: list[int]) -> None:
        outcomes = [(ok, arm, {}) for ok in given] + [(ok, {}, arm) for ok in held]
        for n, (ok, given_arm, held_arm) in enumerate(outcomes, start=start):
            evidence.write_turn("main", f"s{n}", "t1", given_arm, held_arm, bool(ok), 1_000.0 + n)

    turns(0, [1] * 10, [1, 1] + [0] * 8)  # 10/10 given against 2/10 held back: promoted at the first look
    assert learning_lifecycle.refresh("main", arm, project) == {rec_id: "promoted"}
    assert _meta(project, rec_id)["confidence"] == 0.85
    turns(100, [0] * 10, [1] * 12)  # 10/20 against 14/22: the second look finds the uplift below zero
    assert learning_lifecycle.refresh("main", arm, project) == {rec_id: "active"}
    meta = _meta(project, rec_id)
    assert meta["promoted"] is False and meta["confidence"] == 0.8 and meta["deprecated"] is False
    assert meta["decision_reason"].startswith("promotion withdrawn: uplift -0.14")
    [entry] = [e for e in read_digest("main", project_root=project) if e["id"] == rec_id]
    assert entry["decision"] == "active"  # the hooks no longer give it first
