"""SubagentStart: inject the subagent's own learned improvements into its context.

A subagent does not see the main session's SessionStart context, so each agent's lessons
(kioku.agent.digest for ``agent_type``, the agent's name) are injected here, fenced as
remembered data. The ids are recorded with kioku.agent.usage for (session_id, agent_type),
the key the evaluation worker uses when the SubagentStop job's outcome is applied.
"""

from __future__ import annotations



from kioku.core.hookio import MAX_CONTEXT_CHARS, HookResult
from kioku.handlers import _common


def handle(payload: dict) -> HookResult | None:
    agent = payload.get("agent_type")
    if not isinstance(agent, str) or not agent.strip():
        return None
    root = _common.project_root(payload)
    items = _common.read_improvements(agent, root)
    block, shown = _common.improvements_block(agent, items, MAX_CONTEXT_CHARS)
    if not block:
        return None
    session_id = payload.get("session_id")
    if isinstance(session_id, str) and session_id:
        from kioku.agent.usage import record_injection

        ids, scopes = _common.scope_map(shown)
        _common.soft("SubagentStart usage",
                     lambda: record_injection(session_id, agent, ids, scopes, project_root=root), None)
    return HookResult(additional_context=block)
