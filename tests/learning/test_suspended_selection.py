"""A suspended lesson is not given in the normal way: only in a small share of its eligible turns, drawn
and recorded with that chance, through the selection and through the prompt hook reading the digest."""

from __future__ import annotations

from pathlib import Path

import pytest

from kioku.evaluation.verdict import TurnVerdict
from kioku.hooks import user_prompt_submit
from kioku.learning import credit, ledger, select
from kioku.lessons.improvements import learn


def test_a_suspended_lesson_is_given_in_its_share_of_turns_with_that_chance_recorded():
    pool = ([{"id": f"p{n}", "decision": "promoted"} for n in range(3)]
            + [{"id": f"u{n}", "decision": "active"} for n in range(3)]
            + [{"id": "s0", "decision": "suspended"}, {"id": "s1", "decision": "suspended"}])
    turns = 3000
    gap = {e["id"]: 0.0 for e in pool}
    given_count = {e["id"]: 0 for e in pool}
    for n in range(turns):
        chosen = select.select("main", ".", "", session_id="s", turn=str(n), k=5, hold_back=0.1, pool=pool)
        given = {e["id"] for e in chosen.given}
        assert len(given) <= 5 and set(chosen.propensity) == set(gap)
        assert chosen.propensity["s0"] in (0.0, select.SUSPENDED_SHARE)
        for rec_id, chance in chosen.propensity.items():
            gap[rec_id] += (rec_id in given) - chance
            given_count[rec_id] += rec_id in given
    assert all(abs(g) / turns < 0.02 for g in gap.values()), gap        # the recorded chance is the real one
    for rec_id in ("s0", "s1"):                                        # given in about its share, no more
        assert abs(given_count[rec_id] / turns - select.SUSPENDED_SHARE) < 0.03
    assert min(given_count[f"u{n}"] for n in range(3)) / turns > 0.3    # the others are given as before


def test_a_suspended_lesson_keeps_the_exploration_slot_when_promoted_ones_fill_every_slot():
    pool = [{"id": f"p{n}", "decision": "promoted"} for n in range(6)] + [{"id": "s", "decision": "suspended"}]
    picked = [select.select("main", ".", "", session_id="x", turn=str(n), k=5, hold_back=0.0, pool=pool)
              for n in range(400)]
    shares = sum("s" in {e["id"] for e in c.given} for c in picked) / len(picked)
    assert abs(shares - select.SUSPENDED_SHARE) < 0.06
    assert all(c.propensity["s"] == select.SUSPENDED_SHARE for c in picked)
    # never a slot for it when the share is 0: held back, with chance 0
    none = select.select("main", ".", "", session_id="x", turn="0", k=5, hold_back=0.0, pool=pool, suspended_share=0.0)
    assert "s" not in {e["id"] for e in none.given} and none.propensity["s"] == 0.0
    assert "s" in {e["id"] for e in none.held_back}


@pytest.fixture
def docker_lessons(project: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    monkeypatch.setenv("KIOKU_BACKGROUND_MAINTENANCE", "0")
    monkeypatch.setenv("KIOKU_HOLD_BACK", "0")
    texts = ["Before a docker deploy, build the container image locally and run it once",
             "After a docker deploy, check the container logs for the health probe"]
    return [learn("main", text, "search_strategy", 0.8, project_root=project)[0] for text in texts]


def _prompt(project: Path, session: str, prompt: str) -> dict:
    user_prompt_submit.handle({"session_id": session, "prompt_id": f"{session}-p", "prompt": prompt,
                               "cwd": str(project), "hook_event_name": "UserPromptSubmit", "transcript_path": ""})
    return ledger.turns(session, "main")[-1]


def test_the_prompt_hook_gives_a_suspended_lesson_only_in_its_share_of_turns(project, docker_lessons):
    harmful, other = docker_lessons
    first = _prompt(project, "sess-0", "the docker deploy of the container fails")
    assert set(first["given"]) == {harmful, other}                      # both given, in the normal way
    hurt = [{"lesson_id": harmful, "relevant": True, "followed": True, "effect": "hurt",
             "reason": "the user said the local build was the problem"}]
    verdict = TurnVerdict("u0", 0, "failed", prompt_id="sess-0-p", judged_by="model:test", lesson_uses=hurt)
    assert credit.apply_turn_verdicts("main", "sess-0", [verdict], project).decisions[harmful] == "suspended"
    turns = [_prompt(project, f"sess-{n}", "the docker deploy of the container fails") for n in range(1, 121)]
    share = sum(harmful in t["given"] for t in turns) / len(turns)
    assert 0.1 < share < 0.4                                            # about SUSPENDED_SHARE, not every turn
    assert all(harmful in t["given"] or harmful in t["held_back"] for t in turns)   # eligible, recorded
    assert {t["propensity"][harmful] for t in turns} == {select.SUSPENDED_SHARE}
    assert all(other in t["given"] for t in turns)                      # the other lesson as before
