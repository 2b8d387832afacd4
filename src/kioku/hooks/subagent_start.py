"""SubagentStart: inject the subagent's own learned improvements into its context.

A subagent does not see the main session's SessionStart context, so each agent's lessons
(``agent_type``, the agent's name) are injected here, fenced as remembered data. The payload
carries no task text; the task is read from the ``Agent`` tool call in the tail of the parent's
transcript (kioku.learning.subagent_task) and selects relevant lessons through the FTS5 index
(kioku.learning.select); when it cannot be found, the digest's top list is used. The turn is
keyed ``agent:<agent_id>`` and by the sha256 of the task text, which is the subagent
transcript's first prompt (its ``promptId`` is the parent's), so its verdict joins on the hash. The subagent's task is one turn in the session ledger
(kioku.learning.ledger) under the agent's name, keyed ``agent:<agent_id>``: the key the
credit step joins the SubagentStop evaluation on.
"""

from __future__ import annotations



from kioku.hooks.dispatch import MAX_CONTEXT_CHARS, HookResult
from kioku.hooks import common as _common


def handle(payload: dict) -> HookResult | None:
    agent = payload.get("agent_type")
    if not isinstance(agent, str) or not agent.strip():
        return None
    root = _common.project_root(payload)
    session_id = payload.get("session_id")
    session_id = session_id if isinstance(session_id, str) else ""
    agent_id = payload.get("agent_id")
    turn = f"agent:{agent_id}" if isinstance(agent_id, str) and agent_id else ""
    from kioku.learning.subagent_task import task_text

    task = _common.soft("SubagentStart task", lambda: task_text(payload.get("transcript_path"), agent), "")
    block, given, held, chances = _common.inject_lessons(agent, root, task, session_id=session_id,
                                                         turn=turn or "subagent", budget=MAX_CONTEXT_CHARS,
                                                         exclude=set(), about_the_task=False)
    if session_id and turn and (given or held):
        from kioku.infra.sha import sha256
        from kioku.learning.ledger import open_turn

        # the subagent transcript's first prompt is this task text, so its verdict joins on the hash
        sha = sha256(task.encode("utf-8")).hexdigest() if task else ""
        _common.soft("SubagentStart ledger",
                     lambda: open_turn(session_id, agent, prompt_id=turn, prompt_sha256=sha, given=given,
                                       held_back=held, project_root=str(root), propensity=chances), None)
    return HookResult(additional_context=block) if block else None
