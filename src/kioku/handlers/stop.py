"""Stop: queue the self-evaluation of the turn just finished; never delays or steers Claude.

Returns None always (no stdout: any Stop output would make Claude keep working). When
``stop_hook_active`` is set (Claude is continuing because of some Stop hook) the turn is
not finished yet, so nothing is queued. Otherwise one job is enqueued with
kioku.core.jobs.enqueue (a small JSON file + a detached ``kioku worker``); the worker reads
the transcript incrementally later, because here it may lag and may be huge. The hook never
opens the transcript, so its cost does not depend on the transcript's size. The job holds
only flags derived from ``last_assistant_message``, never its text.
"""

from __future__ import annotations

import re
from typing import Any

from kioku.core.hookio import HookResult
from kioku.handlers import _common

_FAILURE = re.compile(r"\b(?:fail(?:ed|s|ure)?|error|unable|could ?n[o']t|cannot|can't)\b|失敗|エラー|できません",
                      re.IGNORECASE)
_SUCCESS = re.compile(r"\b(?:done|fixed|passed|succeeded|works?|completed?)\b|完了|成功", re.IGNORECASE)


def message_flags(message: Any) -> dict[str, Any]:
    text = message if isinstance(message, str) else ""
    stripped = text.rstrip()
    return {
        "has_message": bool(stripped),
        "chars": len(text),
        "ends_with_question": stripped.endswith(("?", "？")),
        "mentions_failure": bool(_FAILURE.search(text[-4000:])),
        "mentions_success": bool(_SUCCESS.search(text[-4000:])),
    }


def build_job(payload: dict[str, Any], *, agent: str, session_key: Any, transcript: Any,
              event: str) -> dict[str, Any] | None:
    if not isinstance(transcript, str) or not transcript:
        return None
    root = _common.project_root(payload)
    return {
        "type": "evaluate",
        "event": event,
        "agent": agent,
        "session_id": session_key if isinstance(session_key, str) else "",
        "parent_session_id": payload.get("session_id") if isinstance(payload.get("session_id"), str) else "",
        "transcript_path": transcript,
        "project_root": str(root),
        "cwd": payload.get("cwd") if isinstance(payload.get("cwd"), str) else str(root),
        "flags": message_flags(payload.get("last_assistant_message")),
    }


def handle(payload: dict[str, Any]) -> HookResult | None:
    if payload.get("stop_hook_active"):
        return None
    root = _common.project_root(payload)
    job = build_job(payload, agent=_common.main_agent(root), session_key=payload.get("session_id"),
                    transcript=payload.get("transcript_path"), event="Stop")
    if job is not None:
        from kioku.core.jobs import enqueue

        enqueue(job)
    return None
