"""SubagentStart: inject the subagent's own learned improvements into its context.

A subagent does not see the main session's SessionStart context, so each agent's lessons
(``agent_type``, the agent's name) are injected here, fenced as remembered data. The payload
carries no task text, so the digest's top list is used, with exploration
(kioku.learning.select). The subagent's task is one turn in the session ledger
(kioku.learning.ledger) under the agent's name, keyed ``agent:<agent_id>``: the key the
credit step joins the SubagentStop evaluation on.
"""

from __future__ import annotations



from kioku.core.hookio import MAX_CONTEXT_CHARS, HookResult
from kioku.handlers import _common


def handle(payload: dict) -> HookResult | None:
    agent = payload.get("agent_type")
    if not isinstance(agent, str) or not agent.strip():
        return None
    root = _common.project_root(payload)
    session_id = payload.get("session_id")
    session_id = session_id if isinstance(session_id, str) else ""
    agent_id = payload.get("agent_id")
    turn = f"agent:{agent_id}" if isinstance(agent_id, str) and agent_id else ""
    block, given, held = _common.inject_lessons(agent, root, "", session_id=session_id, turn=turn or "subagent",
                                                budget=MAX_CONTEXT_CHARS, exclude=set())
    if session_id and turn and (given or held):
        from kioku.learning.ledger import open_turn

        _common.soft("SubagentStart ledger",
                     lambda: open_turn(session_id, agent, prompt_id=turn, prompt_sha256="", given=given,
                                       held_back=held, project_root=str(root)), None)
    return HookResult(additional_context=block) if block else None
