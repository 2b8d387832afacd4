"""The rules as a :class:`~kioku.evaluation.judge.protocol.Judge`: today's verdict, passed through.

The rules' outcome and feedback are already in each case's verdict
(``kioku.evaluation.judge.rules.judge``); the criteria scores are the verdict's dimensions
(``kioku.evaluation.quality``). The rules write no lesson text (the cause→fix template in
``kioku.evaluation.lessons`` is applied by the learning step) and say nothing of lesson use.
"""

from __future__ import annotations

from kioku.evaluation import quality
from kioku.evaluation.judge.protocol import Decision, JudgeContext, TurnCase
from kioku.evaluation.verdict import TurnVerdict


def rules_decision(verdict: TurnVerdict, criteria: dict[str, int], next_feedback: str = "none",
                   judged_by: str = "rules") -> Decision:
    _, scores = quality.score_turn(verdict, criteria or None, next_feedback=next_feedback)
    return Decision(outcome=verdict.outcome, reason=verdict.reason, feedback_on_previous=verdict.feedback_on_previous,
                    judged_by=judged_by, scores=scores)


class RulesJudge:
    name = "rules"

    def __init__(self, judged_by: str = "rules") -> None:
        self.judged_by = judged_by

    def decide(self, cases: list[TurnCase], context: JudgeContext) -> dict[str, Decision]:
        from kioku.evaluation.feedback import classify

        out: dict[str, Decision] = {}
        for case in cases:
            following = classify(case.next_prompt) if case.next_prompt else "none"
            out[case.id] = rules_decision(case.verdict, context.criteria, following, self.judged_by)
        return out
