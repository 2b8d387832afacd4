"""SubagentStop: queue the self-evaluation of the subagent's task into that agent's memory.

The subagent's own transcript is ``agent_transcript_path`` (``transcript_path`` is the
parent's); the agent is ``agent_type`` (the agent's name). The job carries the parent
``session_id`` and the ``agent_id``; the worker scores the improvements SubagentStart recorded
for (session_id, agent_type). Like Stop, it
returns None (no output) and never reads the transcript itself.
"""

from __future__ import annotations

from kioku.hooks.dispatch import HookResult
from kioku.hooks.stop import build_job


def handle(payload: dict) -> HookResult | None:
    agent = payload.get("agent_type")
    if payload.get("stop_hook_active") or not isinstance(agent, str) or not agent.strip():
        return None
    job = build_job(payload, agent=agent, transcript=payload.get("agent_transcript_path"),
                    event="SubagentStop")
    if job is not None:
        from kioku.infra.jobs import enqueue

        enqueue(job)
    return None
