"""Lessons shown outside a turn's selection (the MCP tool lessons_for) in the session ledger."""

from __future__ import annotations

from pathlib import Path

from kioku.learning import ledger


def test_shown_lessons_count_as_in_the_conversation_and_credit_no_turn(project: Path) -> None:
    ledger.open_turn("s1", "main", prompt_id="p1", prompt_sha256="a", given={"L1": "project"},
                     held_back={"L2": "global"}, project_root=str(project))
    ledger.record_shown("s1", "main", {"L3": "project"}, str(project))
    view = ledger.SessionView("s1", "main", "p2")
    assert view.in_session == {"L1", "L3"} and ledger.given_in_session("s1", "main") == {"L1", "L3"}
    assert [sorted(t["given"]) for t in ledger.turns("s1", "main")] == [["L1"]]
    ledger.record_shown("", "main", {"L4": "project"}, str(project))  # no session: nothing written
    ledger.record_shown("s1", "main", {}, str(project))
    assert ledger.given_in_session("s1", "main") == {"L1", "L3"}


def test_held_back_now_is_the_latest_selections_comparison_group(project: Path) -> None:
    assert ledger.held_back_now("nobody", "main") == set()
    ledger.record_pending("s2", "main", {"L1": "project"}, {"L2": "project"}, str(project))
    assert ledger.held_back_now("s2", "main") == {"L2"}  # SessionStart's, before any prompt
    ledger.open_turn("s2", "main", prompt_id="p1", prompt_sha256="a", given={}, held_back={"L3": "global"},
                     project_root=str(project))
    assert ledger.held_back_now("s2", "main") == {"L2", "L3"}  # the pending lessons joined the turn
    ledger.open_turn("s2", "main", prompt_id="p2", prompt_sha256="b", given={"L2": "project"}, held_back={},
                     project_root=str(project))
    assert ledger.held_back_now("s2", "main") == set()
    assert ledger.held_back_now("s2", "reviewer") == set()
