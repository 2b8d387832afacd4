"""The judge's contract: turns in, one :class:`Decision` per turn out.

Only the judgement is pluggable: whether the turn did what was asked (``outcome``), what its
prompt says about the previous turn (``feedback_on_previous``), a score per quality criterion, at
most one lesson, and which of the lessons in play were relevant and helped or hurt. Error counts,
tokens and times stay structural: they come from the transcript (``kioku.evaluation.judge.rules``)
whichever judge decides. Two judges implement :class:`Judge`: the rules
(``kioku.evaluation.judge.rules_judge``) and a model (``kioku.evaluation.judge.model_judge``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from kioku.evaluation.turns import Turn
from kioku.evaluation.verdict import TurnVerdict

LESSON_KINDS = ("strategy", "pitfall", "preference")
EFFECTS = ("helped", "hurt", "none")


@dataclass
class TurnCase:
    """One turn as a judge sees it."""
    id: str                               # "t1", "t2", ... within one request
    turn: Turn
    verdict: TurnVerdict                  # the rules' verdict: counts, tokens, times, their outcome
    next_prompt: str | None               # the hindsight; None when the session ended
    previous_answer: str = ""             # the previous turn's answer, when that turn is judged apart
    next_in_request: str = ""             # the id of the next turn when it is in the same request
    given: dict[str, str] = field(default_factory=dict)       # lesson id -> scope, given in the turn
    held_back: dict[str, str] = field(default_factory=dict)   # eligible but not given


@dataclass(frozen=True)
class JudgeContext:
    """What the judge is told about the agent and the lessons in play."""
    agent: str
    criteria: dict[str, int]                  # criterion -> weight
    categories: dict[str, str]                # insight category -> what it covers
    lessons: dict[str, str] = field(default_factory=dict)    # lesson id -> its text


@dataclass
class LessonDraft:
    kind: str                 # one of LESSON_KINDS
    category: str             # one of the agent's insight categories
    text: str
    applies_when: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LessonUse:
    """What the judge says of one lesson in one turn."""
    lesson_id: str
    relevant: bool
    followed: bool | None = None     # None: not given, or cannot tell
    effect: str = "none"             # one of EFFECTS
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Decision:
    outcome: str
    reason: str
    feedback_on_previous: str
    judged_by: str                            # "rules", "model:<model>", "rules (fallback: ...)"
    confidence: float | None = None
    scores: dict[str, float] = field(default_factory=dict)   # criterion -> 0..100
    lesson: LessonDraft | None = None
    lesson_uses: list[LessonUse] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["lesson"] = self.lesson.to_json() if self.lesson else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        lesson = data.get("lesson")
        return cls(outcome=str(data["outcome"]), reason=str(data.get("reason", "")),
                   feedback_on_previous=str(data.get("feedback_on_previous", "none")),
                   judged_by=str(data.get("judged_by", "rules")), confidence=data.get("confidence"),
                   scores={str(k): float(v) for k, v in (data.get("scores") or {}).items()},
                   lesson=LessonDraft(**lesson) if isinstance(lesson, dict) else None,
                   lesson_uses=[LessonUse(**u) for u in data.get("lesson_uses") or [] if isinstance(u, dict)])


class Judge(Protocol):
    name: str

    def decide(self, cases: list[TurnCase], context: JudgeContext) -> dict[str, Decision]:
        """A decision for each case, by case id."""
        ...
