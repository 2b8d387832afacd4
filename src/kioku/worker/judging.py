"""Judging a session's turns once each, by the model where one may be called, else by the rules.

A turn is ready to be judged when its hindsight exists: the next prompt has arrived, or the
session has ended (a SessionEnd or SubagentStop job, a subagent's own transcript, or a session
idle for :data:`IDLE_S`). Its *judge key* is its content: the prompt's uuid, the uuid of its last
transcript line and a hash of the next prompt (or "end"). A decision is stored with its key in
the session's cursor; a turn whose key is stored is never sent again, so a session costs one
call per batch of new turns, not one per turn per Stop.

:func:`judge_session` returns the decisions for the turns that have one (new and stored) and says
which turns still wait: for hindsight (``waiting``) or because the model was unreachable for a
moment (``deferred``: the job stays queued and is tried again). With no model allowed (no
backend, turned off, the day's budget spent) the rules decide as they always have.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kioku.evaluation import quality
from kioku.evaluation.criteria import load_section
from kioku.evaluation.judge.model_judge import Complete, ModelJudge
from kioku.evaluation.judge.prompt import DEFAULT_CATEGORIES
from kioku.evaluation.judge.protocol import Decision, JudgeContext, TurnCase
from kioku.evaluation.judge.rules import previous_answer
from kioku.evaluation.per_turn import PerTurnResult
from kioku.evaluation.verdict import TurnVerdict
from kioku.infra.config import ConfigError
from kioku.learning import credit, ledger
from kioku.lessons.digest import texts_by_id
from kioku.model.client import unavailable_reason
from kioku.model.settings import ModelSettings, load_settings

IDLE_S = 3600.0
ENDING_EVENTS = frozenset({"SessionEnd", "SubagentStop", "idle"})
log = logging.getLogger("kioku.worker")


def judge_key(entries: list[dict], next_prompt: str | None) -> str:
    """The content key of a turn: its prompt line, its last line and what came next."""
    first = str(entries[0].get("uuid") or "") if entries else ""
    last = str(entries[-1].get("uuid") or len(entries)) if entries else ""
    after = hashlib.sha256(next_prompt.encode("utf-8")).hexdigest()[:16] if next_prompt is not None else "end"
    return hashlib.sha256(f"{first}|{last}|{after}".encode("utf-8")).hexdigest()[:24]


@dataclass
class SessionJudgement:
    decisions: dict[str, Decision] = field(default_factory=dict)   # prompt uuid -> decision
    judged: dict[str, dict[str, Any]] = field(default_factory=dict)  # the cursor's record, updated
    waiting: list[str] = field(default_factory=list)      # uuids waiting for their hindsight
    deferred: list[str] = field(default_factory=list)     # uuids the model could not judge just now
    model_active: bool = False                           # a model judges this session's turns
    fallback: str = ""
    calls: int = 0


def model_settings(root: Path) -> ModelSettings | None:
    try:
        return load_settings(root)
    except ConfigError as exc:
        log.warning("model settings unreadable, the rules judge: %s", exc)
        return None


def judge_context(agent: str, root: Path, lesson_ids: set[str]) -> JudgeContext:
    section = load_section(agent, root)
    criteria = dict(section.criteria) if section and section.criteria else dict(quality.DEFAULT_CRITERIA)
    categories = dict(section.categories) if section and section.categories else dict(DEFAULT_CATEGORIES)
    texts = texts_by_id(agent, root) if lesson_ids else {}
    return JudgeContext(agent, criteria, categories, {i: texts[i] for i in lesson_ids if i in texts})


def _ledger_turns(agent: str, session_id: str, verdicts: list[TurnVerdict]) -> dict[str, dict]:
    turns = ledger.turns(session_id, agent)
    return {v.prompt_uuid: t for v, t in credit.join(verdicts, turns) if t is not None}


@dataclass
class SessionCases:
    """The turns of a session that a judge must decide now, and what it is told about them."""
    cases: list[TurnCase] = field(default_factory=list)
    context: JudgeContext | None = None
    previous: dict[str, str] = field(default_factory=dict)     # case id -> the previous turn's answer
    keys: dict[str, str] = field(default_factory=dict)         # prompt uuid -> judge key
    stored: dict[str, Decision] = field(default_factory=dict)  # prompt uuid -> decision kept from before
    waiting: list[str] = field(default_factory=list)


def session_cases(agent: str, session_id: str, result: PerTurnResult, root: Path, *, session_ended: bool,
                  judged: dict[str, dict[str, Any]]) -> SessionCases:
    out = SessionCases()
    ledger_turns = _ledger_turns(agent, session_id, result.verdicts)
    turns = result.turns
    for i, (verdict, turn) in enumerate(zip(result.verdicts, turns)):
        next_prompt = turns[i + 1].text if i + 1 < len(turns) else None
        if next_prompt is None and not session_ended:
            out.waiting.append(verdict.prompt_uuid)
            continue
        key = judge_key(turn.entries, next_prompt)
        stored = judged.get(verdict.prompt_uuid)
        if isinstance(stored, dict) and stored.get("key") == key and isinstance(stored.get("decision"), dict):
            out.stored[verdict.prompt_uuid] = Decision.from_json(stored["decision"])
            continue
        out.keys[verdict.prompt_uuid] = key
        book = ledger_turns.get(verdict.prompt_uuid, {})
        case = TurnCase(f"t{turn.index + 1}", turn, verdict, next_prompt, given=dict(book.get("given", {})),
                        held_back=dict(book.get("held_back", {})))
        before = previous_answer(turns, i)
        if before.strip():
            out.previous[case.id] = before
        out.cases.append(case)
    lesson_ids = {i for case in out.cases for i in (*case.given, *case.held_back)}
    out.context = judge_context(agent, root, lesson_ids)
    return out


def judge_session(agent: str, session_id: str, result: PerTurnResult, root: Path, *, session_ended: bool,
                  judged: dict[str, dict[str, Any]], force_rules_reason: str = "",
                  complete: Complete | None = None) -> SessionJudgement:
    """Decide the session's turns that are ready (see the module docstring).

    ``complete`` replaces the model call (``kioku eval --import-verdicts`` answers from files)."""
    out = SessionJudgement(judged=dict(judged))
    settings = None if force_rules_reason else model_settings(root)
    if complete is None:
        reason = force_rules_reason or (unavailable_reason("judge", settings) if settings else "settings unreadable")
    else:
        reason, settings = "", settings or ModelSettings()
    out.model_active = not reason
    if not out.model_active and not force_rules_reason:
        return out  # the rules' verdicts stand, as they always have
    plan = session_cases(agent, session_id, result, root, session_ended=session_ended, judged=judged)
    out.waiting = plan.waiting
    out.decisions.update(plan.stored)
    if not plan.cases:
        _no_feedback_without_work(out.decisions, result)
        return out
    by_case = {case.id: case for case in plan.cases}
    if force_rules_reason:
        from kioku.evaluation.judge.rules_judge import RulesJudge

        decisions = RulesJudge(f"rules ({force_rules_reason})").decide(plan.cases, plan.context)
        deferred: list[str] = []
        out.fallback = force_rules_reason
    else:
        run = ModelJudge(settings, complete=complete, project_root=root).run(plan.cases, plan.context, plan.previous)
        decisions, deferred, out.fallback, out.calls = run.decisions, run.deferred, run.fallback, run.calls
    for case_id, decision in decisions.items():
        uuid = by_case[case_id].verdict.prompt_uuid
        out.decisions[uuid] = decision
        out.judged[uuid] = {"key": plan.keys[uuid], "decision": decision.to_json()}
    out.deferred = [by_case[cid].verdict.prompt_uuid for cid in deferred]
    _no_feedback_without_work(out.decisions, result)
    return out


def _no_feedback_without_work(decisions: dict[str, Decision], result: PerTurnResult) -> None:
    """A file's first prompt judges nothing unless the agent worked before it (a continued session)."""
    if result.turns and result.turns[0].prompt_uuid in decisions and not previous_answer(result.turns, 0).strip():
        decisions[result.turns[0].prompt_uuid].feedback_on_previous = "none"


def apply(verdict: TurnVerdict, decision: Decision) -> None:
    """Put a judge's decision into the verdict; counts, tokens and times stay the transcript's."""
    verdict.outcome = decision.outcome
    verdict.reason = decision.reason or verdict.reason
    verdict.feedback_on_previous = decision.feedback_on_previous
    verdict.judged_by = decision.judged_by
    verdict.confidence = decision.confidence
    verdict.scores = dict(decision.scores) if decision.judged_by.startswith("model:") else {}
    verdict.lesson = decision.lesson.to_json() if decision.lesson else None
    verdict.lesson_uses = [use.to_json() for use in decision.lesson_uses]
