"""SubagentStart: inject the subagent's own learned improvements into its context.

A subagent does not see the main session's SessionStart context, so each agent's lessons
(kioku.agent.digest for ``agent_type``, the agent's name) are injected here, fenced as
remembered data. The ids are recorded with kioku.agent.usage keyed by ``agent_id``, the
same key the SubagentStop job uses, so the subagent's outcome updates exactly these.
"""

from __future__ import annotations

from typing import Any

from kioku.core.hookio import MAX_CONTEXT_CHARS, HookResult
from kioku.handlers import _common


def handle(payload: dict[str, Any]) -> HookResult | None:
    agent = payload.get("agent_type")
    if not isinstance(agent, str) or not agent.strip():
        return None
    root = _common.project_root(payload)
    items = _common.read_improvements(agent, root)
    block, shown = _common.improvements_block(agent, items, MAX_CONTEXT_CHARS)
    if not block:
        return None
    agent_id = payload.get("agent_id")
    if isinstance(agent_id, str) and agent_id:
        from kioku.agent.usage import record_injection

        ids, scopes = _common.scope_map(shown)
        _common.soft("SubagentStart usage",
                     lambda: record_injection(agent_id, agent, ids, scopes), None)
    return HookResult(additional_context=block)
