"""A session continued after compaction: the agent works before the user's first prompt, and that
prompt may judge the work; a file's first prompt with no work before it judges nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluation"))

from tx_builder import Tx  # noqa: E402

from kioku.evaluation.judge.rules import previous_answer  # noqa: E402
from kioku.evaluation.per_turn import evaluate_entries  # noqa: E402
from kioku.model.request import ModelReply, ModelRequest  # noqa: E402
from kioku.worker import judging  # noqa: E402

SUMMARY = "This session is being continued from a previous conversation that ran out of context. Summary: ..."


def _session(*, continued: bool) -> Tx:
    tx = Tx("sess-cont")
    tx.raw({"type": "summary", "summary": "Wrapper fixes", "leafUuid": "x"})
    if continued:
        tx.user(SUMMARY, isCompactSummary=True)
        tx.assistant("", [("p1", "Bash", {"command": "wrapper --modules"})])
        tx.result("p1", "Critical 1/1 installed")
        tx.assistant("Verification complete: every wrapper function works.")
    tx.user("--modules is giving me failures and it says claude is not a valid binary")
    tx.assistant("", [("c1", "Bash", {"command": "wrapper --modules"})])
    tx.result("c1", "ok")
    tx.assistant("Fixed the binary check.")
    tx.user("thanks, now add a --version flag")
    tx.assistant("Added --version.")
    return tx


class Model:
    """Answers every judge request with negative feedback on every turn, and keeps the requests."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        criteria = request.schema["properties"]["turns"]["items"]["properties"]["scores"]["required"]
        turns = [{"id": f"t{n}", "outcome": "success", "reason": "r", "feedback_on_previous": "negative",
                  "confidence": 0.9, "scores": {c: 80 for c in criteria}, "lesson": None}
                 for n in (1, 2) if f"=== t{n} ===" in request.prompt]
        return ModelReply(text=json.dumps({"turns": turns}), model="claude-haiku-test")


def test_the_work_before_a_continued_sessions_first_prompt_is_what_that_prompt_judges() -> None:
    result = evaluate_entries(_session(continued=True).lines, "s.jsonl")
    assert [t.text for t in result.turns][0].startswith("--modules")   # the summary is no prompt
    assert previous_answer(result.turns, 0) == "Verification complete: every wrapper function works."
    plan = judging.session_cases("main", "sess-cont", result, Path.cwd(), session_ended=True, judged={})
    assert plan.previous["t1"] == "Verification complete: every wrapper function works."


def test_the_model_is_shown_that_work_and_its_feedback_on_it_is_kept(project: Path) -> None:
    result = evaluate_entries(_session(continued=True).lines, "s.jsonl")
    model = Model()
    judgement = judging.judge_session("main", "sess-cont", result, project, session_ended=True, judged={},
                                      complete=model)
    assert "(The previous turn ended with: Verification complete" in model.requests[0].prompt
    first = result.verdicts[0]
    judging.apply(first, judgement.decisions[first.prompt_uuid])
    assert first.feedback_on_previous == "negative"


def test_a_first_prompt_with_nothing_before_it_judges_nothing(project: Path) -> None:
    result = evaluate_entries(_session(continued=False).lines, "s.jsonl")
    assert previous_answer(result.turns, 0) == ""
    model = Model()
    judgement = judging.judge_session("main", "sess-cont", result, project, session_ended=True, judged={},
                                      complete=model)
    assert "The previous turn ended with" not in model.requests[0].prompt.split("=== t2 ===")[0]
    feedback = [judgement.decisions[v.prompt_uuid].feedback_on_previous for v in result.verdicts]
    assert feedback == ["none", "negative"]
    # decisions kept from an earlier run are read the same way
    again = judging.judge_session("main", "sess-cont", result, project, session_ended=True,
                                  judged=judgement.judged, complete=Model())
    assert [again.decisions[v.prompt_uuid].feedback_on_previous for v in result.verdicts] == ["none", "negative"]


def test_the_rules_read_a_continued_sessions_first_prompt_too() -> None:
    tx = _session(continued=True)
    tx.lines[5]["message"]["content"] = "that's wrong, it still fails"   # the first real prompt
    result = evaluate_entries(tx.lines, "s.jsonl")
    assert result.turns[0].text == "that's wrong, it still fails"
    assert result.verdicts[0].feedback_on_previous == "negative"
    plain = evaluate_entries(_session(continued=False).lines, "s.jsonl")
    assert plain.verdicts[0].feedback_on_previous == "none"
