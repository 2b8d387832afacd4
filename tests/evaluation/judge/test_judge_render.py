"""What the judge reads of a turn: condensed, cut to size, redacted, paths shortened."""

from __future__ import annotations

from judge_support import Tx, cases_of, two_turn_session

from kioku.evaluation.judge import render
from kioku.evaluation.judge.protocol import TurnCase

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_a_turn_shows_prompt_calls_with_blame_answer_and_hindsight() -> None:
    first, second = cases_of(two_turn_session())
    text = render.render_turn(first)
    assert text.startswith("=== t1 ===\nUser prompt: Fix the failing test in tests/test_x.py")
    assert "1. Bash pytest -q tests/test_x.py → error: E assert 1 == 2 1 failed in 0.2s" in text
    assert "2. Edit /p/src/x.py → ok" in text and "has been updated" not in text  # edits echo the file
    assert "Final answer: Fixed: the test passes now." in text
    assert "Next user prompt: No, it still fails. Use the fixture, not a live server." in text
    assert render.render_turn(second).endswith("Next user prompt: (none: the session ended after this turn)")


def test_a_rejected_call_and_an_interrupt_are_said_as_such() -> None:
    tx = Tx()
    tx.user("Delete the build folder")
    tx.assistant("", [("c1", "Bash", {"command": "rm -rf build"})])
    tx.result("c1", "The user doesn't want to proceed with this tool use.", error=True)
    tx.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    [case] = cases_of(tx)
    text = render.render_turn(case)
    assert "→ rejected by the user:" in text
    assert "The user interrupted the agent during this turn." in text
    assert "Final answer: (none: the turn ended without one)" in text


def test_terminal_escapes_go_before_a_result_is_cut_and_the_end_is_kept() -> None:
    banner = "\x1b[1;35m" + "█" * 40 + "\x1b[0m" + " welcome " * 120
    tx = Tx()
    tx.user("run the tests")
    tx.assistant("", [("c1", "Bash", {"command": "make test"})])
    tx.result("c1", banner + "\n... 12 passed, 3 failed in 2.1s")
    tx.assistant("Done.")
    [case] = cases_of(tx)
    text = render.render_turn(case)
    assert "\x1b" not in text and "12 passed, 3 failed in 2.1s" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("1. "))
    assert len(line) < render.CALL_CHARS + render.RESULT_CHARS + 40


def test_a_long_turn_fits_its_budget_and_keeps_every_failed_call() -> None:
    tx = Tx()
    tx.user("refactor everything " + "please " * 300)
    calls = []
    for n in range(60):
        calls.append((f"c{n}", "Bash", {"command": f"python step_{n}.py --flag " + "x" * 60}))
    for tool_id, name, inp in calls:
        tx.assistant("", [(tool_id, name, inp)])
        tx.result(tool_id, ("Traceback: boom " if tool_id == "c30" else "fine ") * 40, error=tool_id == "c30")
    tx.assistant("Refactored. " + "details " * 400)
    [case] = cases_of(tx)
    text = render.render_turn(case)
    assert len(text) <= render.TURN_CHARS + 200
    assert "31. Bash python step_30.py" in text and "error:" in text   # the failed call survives the cut
    assert "successful call(s) left out" in text
    assert "60. Bash python step_59.py" in text                         # the last calls are kept


def test_secrets_never_reach_the_rendering_and_the_working_folder_is_left_out() -> None:
    tx = Tx()
    tx.user(f"log in with the token {SECRET}", cwd="/srv/projects/app")
    tx.assistant("", [("c1", "Bash", {"command": f"gh auth login --with-token {SECRET}"})], cwd="/srv/projects/app")
    tx.result("c1", "error: token rejected for /srv/projects/app/.git/config", error=True)
    tx.assistant(f"Could not log in with {SECRET[:20]} {SECRET[20:]}.")
    [case] = cases_of(tx)
    text = render.render_turn(case)
    assert SECRET not in text and SECRET[4:24] not in text
    assert "/srv/projects/app/" not in text and "./.git/config" in text


def test_a_turn_points_at_the_next_turn_in_the_same_request_instead_of_repeating_it() -> None:
    first, second = cases_of(two_turn_session())
    first.next_in_request = second.id
    assert "Next user prompt: (the prompt of t2, below)" in render.render_turn(first)


def test_the_previous_answer_is_shown_when_that_turn_is_judged_apart() -> None:
    _, second = cases_of(two_turn_session())
    case = TurnCase(second.id, second.turn, second.verdict, None, previous_answer="Fixed: the test passes now.")
    assert "(The previous turn ended with: Fixed: the test passes now.)" in render.render_turn(case)
