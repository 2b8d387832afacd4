"""Who was at fault for a failed tool call (its *blame*): the agent, the user, a hook, or a sibling.

``blame_of(result_text) -> str`` returns one of
- ``user_rejection``: the person declined the call or a plan, or a permission was not granted;
- ``hook_block``: a PreToolUse hook or a git hook (pre-commit, commit-msg, pre-push) stopped it;
- ``cascade``: a parallel call cancelled because a sibling call failed ("Sibling tool call
  errored"); the sibling's own error is counted once where it happened;
- ``agent``: anything else - the agent's own call failed (bad command, failing tests, timeouts,
  "File has not been read yet").

The symptom of an error (its message, ``ToolResult.error_kind``) is another thing: this module
names only the party at fault. A turn record stores the counts per blame as ``agent_errors``,
``user_rejections``, ``hook_blocks`` and ``cascade_errors``.
"""

from __future__ import annotations

import re

AGENT, REJECTION, HOOK, CASCADE = "agent", "user_rejection", "hook_block", "cascade"

_REJECTION = re.compile(
    r"doesn't want to proceed with this tool use|tool use was rejected|user rejected|user declined"
    r"|haven't granted it yet|permission to use \S+ (?:has been|was) denied|user denied"
    r"|the user chose not to|plan was rejected|user doesn't want to", re.I)
_HOOK = re.compile(
    r"hook (?:blocking )?error|blocked by (?:a |the )?\S*\s*hook|(?:PreToolUse|UserPromptSubmit)\S* hook"
    r"|pre-?commit (?:validation|hook|failed)|commit-msg hook|pre-push hook|husky - |hook exited with", re.I)
_CASCADE = re.compile(r"Sibling tool call errored|Cancelled: parallel tool call|cancelled because a sibling", re.I)


def blame_of(text: str) -> str:
    """The party at fault for a failed call, from the head of its result text."""
    head = text[:2000]
    if _CASCADE.search(head):
        return CASCADE
    if _REJECTION.search(head):
        return REJECTION
    if _HOOK.search(head):
        return HOOK
    return AGENT
