"""The model judge's batches, retry, fallback and deferral, with the model call replaced by a script."""

from __future__ import annotations

from judge_support import CONTEXT, Tx, answer, cases_of, two_turn_session

from kioku.evaluation.judge import model_judge
from kioku.evaluation.judge.model_judge import ModelJudge
from kioku.model.request import CallCapReached, ModelOutputError, ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings


class Script:
    """Answers model calls in order: a string is the reply's text, an exception is raised."""

    def __init__(self, *steps) -> None:
        self.steps = list(steps)
        self.requests: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        text = step(request) if callable(step) else step
        return ModelReply(text=text, model="claude-haiku-test")


def _judge(script: Script) -> ModelJudge:
    return ModelJudge(ModelSettings(), complete=script)


def test_a_good_answer_decides_every_turn_in_one_call() -> None:
    script = Script(lambda r: answer(r, "partial"))
    run = _judge(script).run(cases_of(two_turn_session()), CONTEXT)
    assert run.calls == 1 and len(script.requests) == 1
    assert {d.outcome for d in run.decisions.values()} == {"partial"}
    assert {d.judged_by for d in run.decisions.values()} == {"model:claude-haiku-test"}
    assert run.deferred == [] and run.fallback == ""


def test_a_malformed_answer_is_sent_back_once_with_the_reason() -> None:
    script = Script("I think it went well.", lambda r: answer(r, "failed"))
    run = _judge(script).run(cases_of(two_turn_session()), CONTEXT)
    assert run.calls == 2
    assert "Your previous answer could not be used: the answer is not JSON" in script.requests[1].prompt
    assert {d.outcome for d in run.decisions.values()} == {"failed"}


def test_malformed_twice_leaves_that_batch_to_the_rules_and_says_why() -> None:
    cases = cases_of(two_turn_session())
    script = Script('{"turns": []}', '{"turns": [{"id": "t1"}]}')
    run = _judge(script).run(cases, CONTEXT)
    assert run.calls == 2 and "unusable answer" in run.fallback
    assert [d.outcome for d in run.decisions.values()] == [c.verdict.outcome for c in cases]
    assert all(d.judged_by.startswith("rules (unusable answer") for d in run.decisions.values())


def test_a_refusal_from_the_backend_is_retried_then_the_rules_decide() -> None:
    script = Script(ModelOutputError("the run ended without an answer"), ModelOutputError("again"))
    run = _judge(script).run(cases_of(two_turn_session()), CONTEXT)
    assert run.calls == 2 and all(d.judged_by.startswith("rules (") for d in run.decisions.values())


def test_the_per_call_cap_is_not_asked_again() -> None:
    script = Script(CallCapReached("the run stopped at the per-call cap"))
    run = _judge(script).run(cases_of(two_turn_session()), CONTEXT)
    assert run.calls == 1 and "per-call cap" in run.fallback


def test_a_transient_failure_defers_every_turn_and_stores_no_verdict() -> None:
    script = Script(ModelUnavailable("rate limited", transient=True))
    run = _judge(script).run(cases_of(two_turn_session()), CONTEXT)
    assert run.decisions == {} and run.deferred == ["t1", "t2"]


def test_a_lasting_failure_leaves_the_rest_to_the_rules_without_more_calls(monkeypatch) -> None:
    monkeypatch.setattr(model_judge, "BATCH_TURNS", 1)
    cases = cases_of(two_turn_session())
    script = Script(lambda r: answer(r, "success"), ModelUnavailable("not logged in", transient=False))
    run = _judge(script).run(cases, CONTEXT)
    assert run.calls == 2 and run.decisions["t1"].judged_by.startswith("model:")
    assert run.decisions["t2"].judged_by == "rules (not logged in)" and run.deferred == []


def test_turns_are_batched_in_order_within_the_size_caps(monkeypatch) -> None:
    tx = Tx()
    for n in range(11):
        tx.user(f"task number {n}")
        tx.assistant(f"answer {n}")
    cases = cases_of(tx)
    groups = model_judge.batches(cases, CONTEXT)
    assert [len(g) for g in groups] == [model_judge.BATCH_TURNS, 11 - model_judge.BATCH_TURNS]
    assert [c.id for g in groups for c in g] == [f"t{n + 1}" for n in range(11)]
    small = model_judge.batches(cases, CONTEXT, max_chars=400)
    assert len(small) > 2 and all(len(g) >= 1 for g in small)
    # the second batch's first turn is told how the turn before it ended
    script = Script(lambda r: answer(r), lambda r: answer(r))
    previous = {c.id: f"answer {int(c.id[1:]) - 2}" for c in cases[1:]}
    _judge(script).run(cases, CONTEXT, previous)
    assert "(The previous turn ended with: answer 7)" in script.requests[1].prompt
