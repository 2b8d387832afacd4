"""The per-turn verdict: what self-evaluation hands to learning (pure data, stdlib only).

A *turn* starts at a real user prompt and runs until the next one. Evaluation turns a
transcript into a list of :class:`TurnVerdict` and writes nothing; the learning loop credits the
lessons that were in a turn's context with that turn's ``outcome``, and lets the next turn's
``feedback_on_previous`` correct it. Counts, tokens and times always come from the transcript;
outcome, reason and feedback come from the judge named in ``judged_by``, and a model judge adds
criteria scores, a lesson draft and what it saw of the lessons in play.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

OUTCOMES = ("success", "partial", "failed", "interrupted", "no_task")
FEEDBACK = ("positive", "negative", "none")
# Outcomes that say nothing about whether the lessons in context helped.
NEUTRAL_OUTCOMES = frozenset({"interrupted", "no_task"})


@dataclass
class TurnTokens:
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0

    @property
    def non_cache(self) -> int:
        return self.input + self.output + self.cache_write


@dataclass
class TurnVerdict:
    prompt_uuid: str                 # ``uuid`` of the prompt's transcript line
    prompt_index: int                # 0-based index among the file's real prompts
    outcome: str                     # one of OUTCOMES
    reason: str = ""                 # one line a person can read
    prompt_id: str = ""              # ``promptId`` of the prompt line (Claude Code 2.1.196+; the
                                     # hooks' ``prompt_id``), "" in older transcripts
    prompt_sha256: str = ""          # sha256 of the prompt text as the user typed it; joins a
                                     # turn to what UserPromptSubmit saw when there is no prompt_id
    feedback_on_previous: str = "none"   # one of FEEDBACK
    task: str = ""                   # the prompt, shortened and redacted
    session_id: str = ""
    agent_errors: int = 0
    user_rejections: int = 0
    hook_blocks: int = 0
    cascade_errors: int = 0
    recovered_errors: int = 0
    retries: int = 0
    tool_calls: int = 0
    interrupted: bool = False
    tokens: TurnTokens = field(default_factory=TurnTokens)
    active_s: float = 0.0
    wall_s: float = 0.0
    started_at: str = ""             # transcript time of the prompt (ISO 8601)
    # who decided outcome and feedback: "rules", "model:<model id>", or "rules (<why no model>)"
    judged_by: str = "rules"
    confidence: float | None = None  # the model's confidence in the outcome (None: the rules)
    scores: dict[str, float] = field(default_factory=dict)   # criterion -> 0..100 (the model's)
    lesson: dict[str, Any] | None = None                      # the model's lesson draft, if any
    lesson_uses: list[dict[str, Any]] = field(default_factory=list)   # the model's attribution

    @property
    def credits_lessons(self) -> bool:
        """Whether this turn's outcome says anything about the lessons in its context."""
        return self.outcome not in NEUTRAL_OUTCOMES

    @property
    def succeeded(self) -> bool:
        return self.outcome in ("success", "no_task")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
