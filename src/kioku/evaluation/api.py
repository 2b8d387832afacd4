"""Self-evaluation entry points beside the pure per-turn evaluator.

Per turn (what the worker and ``kioku evaluate`` run): ``per_turn.evaluate_path`` /
``evaluate_entries`` judge each turn (pure), ``records.store_turns`` stores one record per turn,
then :func:`learn_from_turns` is the learning step: cause→fix lessons through the candidate
ledger (``lessons``), the per-turn credit of the lessons each turn was given or held back
from (``kioku.learning.credit.apply_turn_verdicts``), and due maintenance.
``load_criteria(agent, project_root)`` gives the agent's criteria from the Memory Configuration
section of ``.claude/agents/<agent>.md`` (project first, then the user's Claude dir; a file
whose frontmatter ``name`` matches is also found), ``None`` when there is none.

The whole transcript as one task (``evaluate_transcript`` / ``evaluate_entries`` ->
``Evaluation``: the first real prompt is the task, later prompts are feedback) is kept only as
the baseline the evaluation benchmark compares with: no command or hook stores it or learns
from it. Its summary is never transcript text and passes ``secrets.redact``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from kioku.core import paths
from kioku.core import transcript as tr
from kioku.core.detect import feedback_polarity
from kioku.core.secrets import redact
from kioku.evaluation import quality as ql
from kioku.evaluation.insights import Insight, derive_insights, strengths_and_weaknesses
from kioku.evaluation.signals import Signals, measure
from kioku.evaluation.turns import Turn
from kioku.evaluation.verdict import TurnVerdict

LEARN_MIN_QUALITY = 70.0
LESSON_CONFIDENCE = 0.75   # a confirmed or recurring cause→fix lesson (active: >= 0.7)
TASK_CHARS = 100
log = logging.getLogger("kioku.evaluation")


@dataclass
class Evaluation:
    agent: str
    session_id: str
    task_id: str
    success: bool
    quality: float
    duration_s: float
    tokens: int
    tool_errors: int
    retries: int
    feedback: int
    strengths: list[str] = field(default_factory=list)
    weaknesses: list[str] = field(default_factory=list)
    insights: list[Insight] = field(default_factory=list)
    task: str = ""                       # the task prompt, shortened and redacted
    tool_calls: int = 0
    criteria_scores: dict[str, float] = field(default_factory=dict)
    criteria_source: str = "default"     # "agent" when the agent's section defined them
    transcript_kind: str = "main"        # "main" | "subagent"
    opening_feedback: int = 0            # polarity of the span's first prompt (about the previous turn)
    timestamp: str = ""
    timestamp_epoch: float = 0.0

    def summary(self) -> str:
        outcome = "succeeded" if self.success else "failed"
        parts = [f"Task: {self.task or '(no prompt)'}",
                 f"Outcome: {outcome}, quality {self.quality:.0f}/100, {self.tool_calls} tool call(s), "
                 f"{self.tool_errors} error(s), {self.retries} retr{'y' if self.retries == 1 else 'ies'}."]
        if self.strengths:
            parts.append("Strengths: " + "; ".join(self.strengths) + ".")
        if self.weaknesses:
            parts.append("Weaknesses: " + "; ".join(self.weaknesses) + ".")
        if self.insights:
            parts.append("Insights: " + " ".join(i.lesson for i in self.insights))
        return redact("\n".join(parts))

    def metadata(self, project_id: str = "") -> dict[str, Any]:
        return {
            "agent_name": self.agent, "session_id": self.session_id, "task_id": self.task_id,
            "success": bool(self.success), "quality": float(self.quality), "duration_s": float(self.duration_s),
            "tokens": int(self.tokens), "tool_errors": int(self.tool_errors), "retries": int(self.retries),
            "feedback": int(self.feedback), "strengths": "; ".join(self.strengths),
            "weaknesses": "; ".join(self.weaknesses), "insights_count": len(self.insights),
            "timestamp": self.timestamp, "timestamp_epoch": float(self.timestamp_epoch),
            "tool_calls": int(self.tool_calls), "criteria_source": self.criteria_source,
            "criteria_scores": json.dumps(self.criteria_scores, ensure_ascii=False),
            "transcript_kind": self.transcript_kind, "project_id": project_id,
        }


def _now() -> tuple[str, float]:
    dt = datetime.now(timezone.utc)
    return dt.isoformat(timespec="seconds").replace("+00:00", "Z"), dt.timestamp()


def _short(text: str) -> str:
    text = " ".join(redact(text).split())
    return text if len(text) <= TASK_CHARS else text[:TASK_CHARS - 1] + "…"


def evaluate_parsed(transcript: tr.Transcript, agent: str, criteria: dict[str, int] | None = None, *,
                    session_id: str = "", task_id: str = "full") -> Evaluation:
    sig: Signals = measure(transcript)
    quality, per = ql.score(sig, criteria)
    strengths, weaknesses = strengths_and_weaknesses(sig)
    prompts = transcript.prompts
    iso, epoch = _now()
    if transcript.last_ts:
        iso = datetime.fromtimestamp(transcript.last_ts, timezone.utc).isoformat(timespec="seconds").replace(
            "+00:00", "Z")
        epoch = transcript.last_ts
    return Evaluation(
        agent=agent, session_id=session_id or transcript.session_id or "unknown", task_id=task_id,
        success=sig.success, quality=quality, duration_s=sig.duration_s, tokens=sig.tokens,
        tool_errors=sig.tool_errors, retries=sig.retries, feedback=sig.feedback,
        strengths=strengths, weaknesses=weaknesses, insights=derive_insights(sig),
        task=_short(prompts[0].text) if prompts else "", tool_calls=sig.tool_calls,
        criteria_scores=per, criteria_source="agent" if criteria else "default",
        transcript_kind="subagent" if transcript.is_sidechain else "main",
        opening_feedback=feedback_polarity(prompts[0].text) if prompts else 0,
        timestamp=iso, timestamp_epoch=epoch,
    )


def evaluate_entries(entries: Iterable[dict], agent: str, criteria: dict[str, int] | None = None, *,
                     session_id: str = "", task_id: str = "full") -> Evaluation:
    return evaluate_parsed(tr.parse(entries), agent, criteria, session_id=session_id, task_id=task_id)


def evaluate_transcript(path: Path | str, agent: str, criteria: dict[str, int] | None = None) -> Evaluation:
    return evaluate_entries(tr.read_all(Path(path).expanduser()).entries, agent, criteria)


# ---- the agent's criteria ------------------------------------------------------------------

def find_agent_file(agent: str, project_root: Path | None = None) -> Path | None:
    root = project_root or paths.find_project_root()
    for base in (root / ".claude" / "agents", paths.claude_dir() / "agents"):
        direct = base / f"{agent}.md"
        if direct.is_file():
            return direct
        if base.is_dir():
            for candidate in sorted(base.rglob("*.md")):
                try:
                    head = candidate.read_text(encoding="utf-8", errors="replace")[:2000]
                except OSError:
                    continue
                if _frontmatter_name(head) == agent:
                    return candidate
    return None


def _frontmatter_name(text: str) -> str | None:
    try:
        from kioku.render.splice import frontmatter_name
    except ImportError:
        return None
    return frontmatter_name(text)


def load_criteria(agent: str, project_root: Path | None = None) -> dict[str, int] | None:
    path = find_agent_file(agent, project_root)
    if path is None:
        return None
    try:
        from kioku.render.section import parse_section
        config = parse_section(path.read_text(encoding="utf-8", errors="replace"))
    except (ImportError, OSError):
        return None
    return dict(config.criteria) if config and config.criteria else None


# ---- maintenance after learning --------------------------------------------------------------

def _run_maintenance(agent: str, root: Path) -> None:
    try:
        from kioku.agent import maintenance
    except ImportError:
        return  # no maintenance module in this installation: nothing to run
    runner = getattr(maintenance, "run_due_in_background", None)
    if runner is not None:
        runner(agent, project_root=root)


# ---- the learning step after per-turn evaluation ------------------------------------------------

@dataclass
class JudgedTurn:
    """A stored turn handed to the learning step."""
    verdict: TurnVerdict
    turn: Turn
    next_feedback: str = "none"     # the following prompt's feedback on this turn
    is_new: bool = True             # first time stored (False: re-stored because feedback changed)


def learn_from_turns(agent: str, session_id: str, items: list[JudgedTurn], root: Path) -> int:
    """Learn from turns whose verdicts are already stored; returns how many lessons were stored.

    Cause→fix lessons (``lessons.lessons_from_turn``) of successful turns whose quality clears
    :data:`LEARN_MIN_QUALITY` go to the candidate ledger first; a lesson is stored only when it
    recurs in another session or the user confirmed the turn (positive feedback on it), in the
    project scope when it is path-bound. Then each turn's verdict credits the lessons that were
    given or held back in that turn (``kioku.learning.credit.apply_turn_verdicts``, idempotent,
    feedback on a previous turn corrects that turn), and due maintenance runs."""
    from kioku.evaluation.lessons import CandidateLedger, lessons_from_turn
    from kioku.evaluation.quality import score_turn

    ledger = CandidateLedger(agent)
    stored = 0
    for item in items:
        verdict = item.verdict
        if verdict.outcome != "success" or item.next_feedback == "negative":
            continue
        if score_turn(verdict, next_feedback=item.next_feedback)[0] < LEARN_MIN_QUALITY:
            continue
        ready = ledger.observe(lessons_from_turn(item.turn), session_id,
                               confirmed=item.next_feedback == "positive")
        for lesson in ready:
            stored += len(_learn_lesson(agent, lesson, root))
    from kioku.learning.credit import apply_turn_verdicts

    apply_turn_verdicts(agent, session_id, [i.verdict for i in items], root)
    _run_maintenance(agent, root)
    return stored


def _learn_lesson(agent: str, lesson, root: Path) -> list[str]:
    from kioku.agent import improvements
    from kioku.core.errors import KiokuError

    try:
        return improvements.learn(agent, lesson.text, lesson.category, LESSON_CONFIDENCE, tags=lesson.tags,
                                  scope="project" if lesson.path_bound else "auto",
                                  learned_from="self_evaluation", project_root=root)
    except KiokuError as exc:  # a lesson refused (secret, store rule) must not lose the evaluation
        log.warning("lesson not stored: %s", exc)
        return []
