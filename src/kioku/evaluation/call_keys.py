"""What makes a later tool call a *retry* of an earlier one: the same key.

``call_key(call)`` is the same command family (program and sub-command, e.g. ``git push`` or
``mix test``) for Bash, or the same file/target for file tools, not merely the same tool.
"""

from __future__ import annotations

import re
import shlex

from kioku.evaluation.transcript import ToolCall

_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "timeout", "npx", "uv", "poetry", "bundle", "pipenv"})
_SUBCOMMAND_TOOLS = frozenset({"git", "npm", "pnpm", "yarn", "mix", "cargo", "go", "docker", "kubectl", "uv",
                               "pip", "python", "python3", "make", "just", "gh", "bd", "bun", "deno", "poetry",
                               "dotnet", "gradle", "mvn", "terraform", "brew", "apt", "apt-get"})


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
