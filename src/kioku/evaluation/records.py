"""One stored evaluation record per turn (the worker's and ``kioku eval transcript``'s store step).

- ``record_id(agent, session_id, source, prompt_uuid)``: ``source`` is the subagent id, or the
  transcript file name when there is none, so a subagent's turns (whose lines carry the parent's
  session id) never overwrite the parent's; re-evaluating a turn overwrites its own record.
- ``turn_record(verdict, ...) -> (id, document, metadata)``: the metadata keeps the keys the
  performance metrics and the dashboard read (``success``, ``quality``, ``timestamp_epoch``, ...;
  ``timestamp`` is the time of evaluation, so recent work counts as recent) beside the
  verdict's fields and the transcript's own time (``transcript_timestamp``).
- ``store_turns(agent, verdicts, ...) -> list[str]`` upserts them into the agent's
  ``evaluations`` collection of the global store (an agent is aggregated across projects;
  ``project_id`` keeps the origin).
The document is a short summary (task, verdict, reason, counts), never transcript text; it passes
``kioku.text.secrets.redact_derived`` (so do the task and the reason in the metadata, which the
store's journal checks again) and the task passes ``kioku.text.defang.defang``.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kioku.infra import clock, paths
from kioku.text.defang import defang
from kioku.text.secrets import redact_derived
from kioku.evaluation import quality as ql
from kioku.evaluation.verdict import TurnVerdict

KIND = "evaluations"
# Relative price of a token kind against an input token (Anthropic list prices: output 5x,
# cache write 1.25x, cache read 0.1x); the weighted figure is what "heavy" should mean.
TOKEN_WEIGHTS = {"input": 1.0, "output": 5.0, "cache_write": 1.25, "cache_read": 0.1}


def record_id(agent: str, session_id: str, source: str, prompt_uuid: str) -> str:
    key = f"{agent}\0{session_id}\0{source}\0{prompt_uuid}"
    return "eval_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def weighted_tokens(verdict: TurnVerdict) -> float:
    t = verdict.tokens
    return round(t.input * TOKEN_WEIGHTS["input"] + t.output * TOKEN_WEIGHTS["output"]
                 + t.cache_write * TOKEN_WEIGHTS["cache_write"] + t.cache_read * TOKEN_WEIGHTS["cache_read"], 1)


def _epoch_of(iso: str) -> float:
    """Seconds since the epoch of an ISO 8601 time ("...Z" included); 0.0 when there is none."""
    if not iso:
        return 0.0
    try:
        value = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()


def summary(verdict: TurnVerdict, quality: float) -> str:
    parts = [f"Task: {defang(verdict.task) or '(no prompt)'}",
             f"Verdict: {verdict.outcome} ({verdict.reason}), quality {quality:.0f}/100.",
             f"{verdict.tool_calls} tool call(s); errors: {verdict.agent_errors} agent, "
             f"{verdict.user_rejections} rejected by the user, {verdict.hook_blocks} hook block(s), "
             f"{verdict.cascade_errors} cascade; {verdict.recovered_errors} recovered."]
    if verdict.feedback_on_previous != "none":
        parts.append(f"Feedback on the previous turn: {verdict.feedback_on_previous}.")
    return redact_derived("\n".join(parts))


def turn_record(verdict: TurnVerdict, *, agent: str, source: str, kind: str, project_id: str,
                criteria: dict[str, int] | None, next_feedback: str, transcript_epoch: float | None,
                evaluated_epoch: float) -> tuple[str, str, dict[str, Any]]:
    quality, per = ql.turn_quality(verdict, criteria, next_feedback=next_feedback)
    t = verdict.tokens
    meta: dict[str, Any] = {
        "agent_name": agent, "session_id": verdict.session_id, "task_id": verdict.prompt_uuid,
        "success": verdict.succeeded, "quality": float(quality), "duration_s": float(verdict.active_s),
        "tokens": int(t.input + t.output + t.cache_write + t.cache_read),
        "tool_errors": int(verdict.agent_errors), "retries": int(verdict.retries),
        "feedback": {"positive": 1, "negative": -1}.get(next_feedback, 0),
        "strengths": "", "weaknesses": "" if verdict.succeeded else redact_derived(verdict.reason), "insights_count": 0,
        "timestamp": clock.iso_z(evaluated_epoch), "timestamp_epoch": float(evaluated_epoch),
        "evaluated_at": clock.iso_z(evaluated_epoch), "evaluated_at_epoch": float(evaluated_epoch),
        "transcript_timestamp": clock.iso_z(transcript_epoch) if transcript_epoch else "",
        "transcript_epoch": float(transcript_epoch or 0.0),
        # when the turn's prompt was written (the work's own time, shown by the web app)
        "started_at": verdict.started_at, "started_at_epoch": _epoch_of(verdict.started_at),
        "tool_calls": int(verdict.tool_calls), "criteria_source": "agent" if criteria else "default",
        "criteria_scores": json.dumps(per, ensure_ascii=False), "transcript_kind": kind,
        "project_id": project_id, "source": source,
        "outcome": verdict.outcome, "reason": redact_derived(verdict.reason), "task": redact_derived(defang(verdict.task)),
        "prompt_uuid": verdict.prompt_uuid, "prompt_index": int(verdict.prompt_index),
        "prompt_id": verdict.prompt_id, "prompt_sha256": verdict.prompt_sha256,
        "feedback_on_previous": verdict.feedback_on_previous, "next_feedback": next_feedback,
        "agent_errors": int(verdict.agent_errors), "user_rejections": int(verdict.user_rejections),
        "hook_blocks": int(verdict.hook_blocks), "cascade_errors": int(verdict.cascade_errors),
        "recovered_errors": int(verdict.recovered_errors), "interrupted": bool(verdict.interrupted),
        "tokens_input": int(t.input), "tokens_output": int(t.output), "tokens_cache_write": int(t.cache_write),
        "tokens_cache_read": int(t.cache_read), "tokens_weighted": weighted_tokens(verdict),
        "active_s": float(verdict.active_s), "wall_s": float(verdict.wall_s),
        "judged_by": verdict.judged_by,
        "confidence": float(verdict.confidence) if verdict.confidence is not None else -1.0,
    }
    rid = record_id(agent, verdict.session_id, source, verdict.prompt_uuid)
    return rid, summary(verdict, quality), meta


def store_turns(agent: str, verdicts: list[TurnVerdict], *, source: str, kind: str,
                criteria: dict[str, int] | None, next_feedback: dict[str, str],
                transcript_epoch: float | None, project_root: Path | None = None) -> list[str]:
    """Upsert one record per verdict; ``next_feedback`` maps prompt_uuid → the next turn's feedback."""
    if not verdicts:
        return []
    from kioku.lessons.scopes import open_scope
    from kioku.lessons.store.client import Record

    root = Path(project_root) if project_root else paths.find_project_root()
    project_id = paths.project_identity(root)
    now = datetime.now(timezone.utc).timestamp()
    records = []
    for verdict in verdicts:
        rid, doc, meta = turn_record(verdict, agent=agent, source=source, kind=kind, project_id=project_id,
                                     criteria=criteria, next_feedback=next_feedback.get(verdict.prompt_uuid, "none"),
                                     transcript_epoch=transcript_epoch, evaluated_epoch=now)
        records.append(Record(rid, doc, meta))
    open_scope("global", root).upsert(agent, KIND, records)
    return [r.id for r in records]
