"""SessionStart (startup | resume | clear | compact): inject what Kioku remembers.

Output: one ``additionalContext`` of at most 10,000 characters (Claude Code's cap) made of
1. the main agent's top learned improvements (kioku.agent.digest, a small derived file -
   Chroma is never touched here), at most ~2,500 characters, and
2. the memory recall text (kioku.memory.api.build_recall: user + project MEMORY.md index,
   ranked, fenced as remembered data) in the remaining budget.
The injected improvement ids are recorded for this session (kioku.agent.usage) so the
session's outcome can later update their success statistics.
Each part fails softly (logged) so the other part still reaches Claude.

Side effect: when Claude Code provides ``CLAUDE_ENV_FILE``, the installed ``kioku`` launcher's
folder is put on PATH for the session's Bash tool calls, so every ``kioku ...`` command the
skills tell Claude to run works as written (the install does not touch the user's shell).
"""

from __future__ import annotations



from kioku.core.hookio import MAX_CONTEXT_CHARS, HookResult
from kioku.handlers import _common

IMPROVEMENTS_BUDGET = 2500
SEPARATOR = "\n\n"


def handle(payload: dict) -> HookResult | None:
    root = _common.project_root(payload)
    agent = _common.soft("SessionStart config", lambda: _common.main_agent(root), "main")
    items = _common.soft("SessionStart digest", lambda: _common.read_improvements(agent, root), [])
    block, shown = _common.improvements_block(agent, items, IMPROVEMENTS_BUDGET)
    budget = MAX_CONTEXT_CHARS - len(block) - (len(SEPARATOR) if block else 0)
    recall = _common.soft("SessionStart recall", lambda: _build_recall(root, budget), "")
    if len(recall) > budget:  # never let Claude Code turn our context into a file preview
        recall = ""
    session_id = payload.get("session_id")
    if shown and isinstance(session_id, str) and session_id:
        ids, scopes = _common.scope_map(shown)
        _common.soft("SessionStart usage",
                     lambda: _record(session_id, agent, ids, scopes, root), None)
    _common.soft("SessionStart PATH", _export_kioku_on_path, None)
    text = SEPARATOR.join(part for part in (recall, block) if part)
    return HookResult(additional_context=text) if text else None


def _export_kioku_on_path() -> None:
    import os
    import sys

    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if not env_file:
        return
    # <claude dir>/kioku/hooks/kioku_hook.py beside <claude dir>/kioku/bin/kioku (install.py), or
    # <plugin root>/hooks/kioku_hook.py beside <plugin root>/bin/kioku (the plugin)
    bin_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))), "bin")
    if not os.path.isfile(os.path.join(bin_dir, "kioku")):
        return
    quoted = bin_dir.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
    line = f'export PATH="{quoted}:$PATH"\n'
    try:
        with open(env_file, encoding="utf-8") as handle:
            if line in handle.read():
                return
    except FileNotFoundError:
        pass
    with open(env_file, "a", encoding="utf-8") as handle:
        handle.write(line)


def _build_recall(root, budget: int) -> str:
    from kioku.memory.api import build_recall

    return build_recall(project_root=root, budget=budget) or ""


def _record(session_id: str, agent: str, ids: list[str], scopes: dict[str, str], root) -> None:
    from kioku.agent.usage import record_injection

    record_injection(session_id, agent, ids, scopes, project_root=root)
