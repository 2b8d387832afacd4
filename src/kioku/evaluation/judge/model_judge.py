"""A Claude model as the judge: a session's waiting turns in as few calls as fit, checked answers.

``ModelJudge(settings).run(cases, context) -> JudgeRun``:
- the turns are split into batches of at most :data:`BATCH_TURNS` turns and
  :data:`BATCH_CHARS` rendered characters, in session order (``batches``);
- each batch is one call through ``kioku.model.client.complete`` (caps, opt-out, the per-home
  call lock, usage); an answer that cannot be used is sent back once with the reason, then that
  batch is judged by the rules and the reason is recorded (``kioku.model.usage.record_fallback``);
- a transient failure (rate limit, API error, timeout) stores nothing: that batch and the rest
  are returned as ``deferred`` so the caller keeps them queued; a lasting one (no login, no
  backend, the day's budget spent, the purpose turned off) leaves the rest to the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kioku.evaluation.judge import prompt
from kioku.evaluation.judge.parse import AnswerError, parse_answer
from kioku.evaluation.judge.protocol import Decision, JudgeContext, TurnCase
from kioku.evaluation.judge.rules_judge import RulesJudge
from kioku.model import usage
from kioku.model.request import CallCapReached, ModelOutputError, ModelReply, ModelRequest, ModelUnavailable, pack
from kioku.model.settings import ModelSettings

BATCH_TURNS = 8
BATCH_CHARS = 20_000


@dataclass
class JudgeRun:
    decisions: dict[str, Decision] = field(default_factory=dict)
    deferred: list[str] = field(default_factory=list)        # case ids to judge again later
    fallback: str = ""                                         # why some turns were judged by the rules
    calls: int = 0
    requests: list[prompt.Request] = field(default_factory=list)


def batches(cases: list[TurnCase], context: JudgeContext, *, max_turns: int | None = None,
            max_chars: int | None = None) -> list[list[TurnCase]]:
    from kioku.evaluation.judge.render import render_turn

    return pack(cases, lambda case: len(render_turn(case)), max_items=max_turns or BATCH_TURNS,
                max_chars=max_chars or BATCH_CHARS)


def with_neighbours(batch: list[TurnCase], previous: dict[str, str]) -> list[TurnCase]:
    """The batch, its first turn told how the turn before it ended when that one is judged apart,
    and each turn whose next turn is in the batch pointed at it instead of repeating its prompt."""
    if batch and batch[0].id in previous and not batch[0].previous_answer:
        batch[0].previous_answer = previous[batch[0].id]
    for case, following in zip(batch, batch[1:]):
        if following.turn.index == case.turn.index + 1 and case.next_prompt == following.turn.text:
            case.next_in_request = following.id
    return batch


Complete = Callable[[ModelRequest], ModelReply]


class ModelJudge:
    name = "model"

    def __init__(self, settings: ModelSettings, complete: Complete | None = None,
                 project_root: Path | None = None) -> None:
        self.settings = settings
        self._live = complete is None   # answers from a real call count in the usage ledger
        if complete is None:
            from kioku.model.client import complete as client_complete

            def complete(request: ModelRequest) -> ModelReply:
                return client_complete(request, settings=settings, project_root=project_root)
        self._complete = complete

    def decide(self, cases: list[TurnCase], context: JudgeContext) -> dict[str, Decision]:
        return self.run(cases, context).decisions

    def plan(self, cases: list[TurnCase], context: JudgeContext,
             previous_answers: dict[str, str] | None = None) -> list[prompt.Request]:
        """The requests :meth:`run` sends for ``cases``, in order (one per batch)."""
        return [prompt.build(with_neighbours(batch, previous_answers or {}), context)
                for batch in batches(cases, context)]

    def run(self, cases: list[TurnCase], context: JudgeContext,
            previous_answers: dict[str, str] | None = None) -> JudgeRun:
        result = JudgeRun()
        requests = self.plan(cases, context, previous_answers)
        by_id = {case.id: case for case in cases}
        for index, request in enumerate(requests):
            result.requests.append(request)
            batch = [by_id[cid] for cid in request.case_ids]
            try:
                result.decisions.update(self._ask(request, result))
            except ModelUnavailable as exc:
                rest = [by_id[cid] for later in requests[index:] for cid in later.case_ids]
                if exc.transient:
                    result.deferred = [case.id for case in rest]
                else:
                    result.fallback = str(exc)
                    result.decisions.update(RulesJudge(f"rules ({exc})").decide(rest, context))
                break
            except (AnswerError, ModelOutputError) as exc:
                result.fallback = f"unusable answer: {exc}"
                result.decisions.update(RulesJudge(f"rules (unusable answer: {exc})").decide(batch, context))
                if self._live:
                    usage.record_fallback("judge", len(batch))
        return result

    def _ask(self, request: prompt.Request, result: JudgeRun) -> dict[str, Decision]:
        """The decisions of one call, asking once more with the reason when the answer is unusable."""
        problem = ""
        while True:
            sent = prompt.retry(request, problem) if problem else request
            result.calls += 1
            try:
                reply = self._complete(sent.model_request)
                return parse_answer(reply.json(), request, f"model:{reply.model or self.settings.model}")
            except CallCapReached:
                raise
            except (AnswerError, ModelOutputError) as exc:
                if problem:
                    raise
                problem = str(exc)
