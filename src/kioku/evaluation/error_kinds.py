"""Whose fault a failed tool call was: the agent's, the user's, a hook's, or a sibling's.

``error_kind(result_text) -> str`` returns one of
- ``user_rejection``: the person declined the call or a plan, or a permission was not granted;
- ``hook_block``: a PreToolUse hook or a git hook (pre-commit, commit-msg, pre-push) stopped it;
- ``cascade``: a parallel call cancelled because a sibling call failed ("Sibling tool call
  errored"); the sibling's own error is counted once where it happened;
- ``agent``: anything else - the agent's own call failed (bad command, failing tests, timeouts,
  "File has not been read yet").

``call_key(call)`` is what makes a later call a *retry*: the same command family (program and
sub-command, e.g. ``git push`` or ``mix test``) or the same file/target, not merely the same tool.
"""

from __future__ import annotations

import re
import shlex

from kioku.evaluation.transcript import ToolCall

AGENT, REJECTION, HOOK, CASCADE = "agent", "user_rejection", "hook_block", "cascade"

_REJECTION = re.compile(
    r"doesn't want to proceed with this tool use|tool use was rejected|user rejected|user declined"
    r"|haven't granted it yet|permission to use \S+ (?:has been|was) denied|user denied"
    r"|the user chose not to|plan was rejected|user doesn't want to", re.I)
_HOOK = re.compile(
    r"hook (?:blocking )?error|blocked by (?:a |the )?\S*\s*hook|(?:PreToolUse|UserPromptSubmit)\S* hook"
    r"|pre-?commit (?:validation|hook|failed)|commit-msg hook|pre-push hook|husky - |hook exited with", re.I)
_CASCADE = re.compile(r"Sibling tool call errored|Cancelled: parallel tool call|cancelled because a sibling", re.I)
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "timeout", "npx", "uv", "poetry", "bundle", "pipenv"})
_SUBCOMMAND_TOOLS = frozenset({"git", "npm", "pnpm", "yarn", "mix", "cargo", "go", "docker", "kubectl", "uv",
                               "pip", "python", "python3", "make", "just", "gh", "bd", "bun", "deno", "poetry",
                               "dotnet", "gradle", "mvn", "terraform", "brew", "apt", "apt-get"})


def error_kind(text: str) -> str:
    head = text[:2000]
    if _CASCADE.search(head):
        return CASCADE
    if _REJECTION.search(head):
        return REJECTION
    if _HOOK.search(head):
        return HOOK
    return AGENT


def command_family(command: str) -> str:
    """``git push`` for ``cd x && git push -u origin b``: the first program of the last
    command in a chain, with its sub-command when the program has sub-commands."""
    last = re.split(r"&&|\|\||;|\|", command.strip())
    for part in reversed(last):
        if part.strip():
            chosen = part.strip()
            break
    else:
        return ""
    try:
        words = shlex.split(chosen, posix=True)
    except ValueError:
        words = chosen.split()
    words = [w for w in words if "=" not in w or w.startswith("-")]
    while words and words[0] in _WRAPPERS:
        words = words[1:]
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    if program in _SUBCOMMAND_TOOLS:
        rest = [w for w in words[1:] if not w.startswith("-")]
        if program in ("python", "python3") and len(words) > 2 and words[1] == "-m":
            return f"{program} -m {words[2]}"
        return f"{program} {rest[0]}" if rest else program
    return program


def call_key(call: ToolCall) -> str:
    """The command family for Bash, the target for file tools, else the tool name."""
    inp = call.input
    if call.name == "Bash" and isinstance(inp.get("command"), str):
        return "bash:" + command_family(inp["command"])
    for field in ("file_path", "notebook_path", "path", "url"):
        if isinstance(inp.get(field), str) and inp[field]:
            return f"target:{inp[field]}"
    return "tool:" + call.name
