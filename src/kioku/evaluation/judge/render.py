"""A turn condensed to what a judge needs to read, within :data:`TURN_CHARS` (pure).

The rendering holds the prompt, each tool call with its result cut to :data:`RESULT_CHARS` and
who was at fault when it failed, whether the user interrupted, the agent's final answer, and the
next prompt as hindsight (or that the session ended). Terminal escapes are removed before
anything is cut (some shells print a banner of them before every result), the user's home
folder becomes ``~``, and the whole text passes Kioku's secret filter (``redact_outgoing``)
before it can be part of a request. When a turn is too long, calls are left out from the middle
(failed calls are kept) and the count of what was left out is said.
"""

from __future__ import annotations

import json
import os
import re

from kioku.evaluation import blame as bl
from kioku.evaluation import transcript as tr
from kioku.evaluation.judge.protocol import TurnCase
from kioku.evaluation.judge.rules import final_answer
from kioku.infra import paths
from kioku.text.secrets import redact_across_lines

PROMPT_CHARS = 700
ANSWER_CHARS = 600
NEXT_CHARS = 500
PREVIOUS_CHARS = 300
RESULT_CHARS = 200
READ_RESULT_CHARS = 80   # what a file read returned matters less than what was done with it
_EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})   # their output echoes the file
CALL_CHARS = 160
TURN_CHARS = 3000
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BLAME = {bl.REJECTION: "rejected by the user", bl.HOOK: "blocked by a hook", bl.CASCADE: "cancelled (a parallel call failed)",
          bl.AGENT: "error"}


def redact_outgoing(text: str) -> str:
    """Kioku's secret filter, applied to every text that leaves the machine in a model request."""
    return redact_across_lines(text)


def clean(text: str) -> str:
    """Escapes and control characters removed, whitespace collapsed."""
    return " ".join(_CONTROL.sub(" ", _ANSI.sub("", text)).split())


def cut(text: str, limit: int, *, keep_end: int | None = None) -> str:
    """``text`` within ``limit`` characters: its head, and its last ``keep_end`` characters."""
    if len(text) <= limit:
        return text
    tail = limit // 3 if keep_end is None else keep_end
    head = max(0, limit - tail - 3)
    return text[:head].rstrip() + " … " + text[len(text) - tail:].lstrip() if tail else text[:limit - 1] + "…"


def _shorter_paths(text: str, entries: list[dict]) -> str:
    """The session's working folder left out of paths (``./src/x.py``), the user's home as ``~``."""
    folders = {str(e.get("cwd")).rstrip("/") for e in entries if isinstance(e.get("cwd"), str) and len(e["cwd"]) > 1}
    for folder in sorted(folders, key=len, reverse=True):
        text = text.replace(folder + "/", "./")
    home = str(paths.user_home()).rstrip(os.sep)
    if len(home) > 1:
        text = text.replace(home + os.sep, "~" + os.sep)
    return text


def describe_call(call: tr.ToolCall) -> str:
    inp = call.input
    name = call.name
    if name == "Bash" and isinstance(inp.get("command"), str):
        detail = inp["command"]
    elif any(isinstance(inp.get(k), str) for k in ("file_path", "notebook_path")):
        detail = str(inp.get("file_path") or inp.get("notebook_path"))
    elif name in ("Grep", "Glob") and isinstance(inp.get("pattern"), str):
        detail = inp["pattern"] + (f" in {inp['path']}" if isinstance(inp.get("path"), str) else "")
    elif name in ("Agent", "Task"):
        detail = f"{inp.get('subagent_type', '')}: {inp.get('description') or inp.get('prompt', '')}"
    elif isinstance(inp.get("url"), str):
        detail = inp["url"]
    elif name == "TodoWrite":
        detail = "(updates the todo list)"
    else:
        detail = json.dumps(inp, ensure_ascii=False, sort_keys=True) if inp else ""
    return cut(clean(f"{name} {detail}".strip()), CALL_CHARS)


def describe_result(result: tr.ToolResult | None, limit: int = RESULT_CHARS) -> str:
    if result is None:
        return "no result: the turn ended during this call"
    if result.is_error:
        label = _BLAME[bl.blame_of(result.head or result.first_line)]
        code = f", exit {result.exit_code}" if result.exit_code is not None else ""
        head, tail = clean(result.head), clean(result.tail)
        text = head if len(head) >= len(tail) or tail in head else cut(head, RESULT_CHARS // 2) + " … " + tail
        return f"{label}{code}: {cut(text, RESULT_CHARS, keep_end=RESULT_CHARS // 2)}"
    text = clean(result.tail)
    return f"ok: {cut(text, limit, keep_end=limit - limit // 5)}" if text else "ok"


def _call_lines(parsed: tr.Transcript) -> list[tuple[str, bool]]:
    results = parsed.results
    lines = []
    for number, call in enumerate(parsed.tool_calls, 1):
        result = results.get(call.id)
        failed = result is None or result.is_error
        limit = READ_RESULT_CHARS if call.name in ("Read", "NotebookRead", "TodoWrite") else RESULT_CHARS
        shown = ("ok" if call.name in _EDIT_TOOLS and result is not None and not result.is_error
                 else describe_result(result, limit))
        lines.append((f"{number}. {describe_call(call)} → {shown}", failed))
    return lines


def _fit_calls(lines: list[tuple[str, bool]], budget: int) -> list[str]:
    """The call lines within ``budget`` characters: failed calls, the first two and the last ones."""
    if sum(len(text) + 1 for text, _ in lines) <= budget:
        return [text for text, _ in lines]
    keep = [failed or i < 2 for i, (_, failed) in enumerate(lines)]
    used = sum(len(text) + 1 for (text, _), k in zip(lines, keep) if k)
    for i in range(len(lines) - 1, 1, -1):
        if keep[i]:
            continue
        if used + len(lines[i][0]) + 1 > budget - 60:
            break
        keep[i] = True
        used += len(lines[i][0]) + 1
    out: list[str] = []
    skipped = 0
    for (text, _), k in zip(lines, keep):
        if k:
            if skipped:
                out.append(f"   … {skipped} successful call(s) left out …")
                skipped = 0
            out.append(text if used <= budget else cut(text, 120))
        else:
            skipped += 1
    if skipped:
        out.append(f"   … {skipped} successful call(s) left out …")
    return out


def render_turn(case: TurnCase) -> str:
    """The turn as the judge reads it (redacted)."""
    turn = case.turn
    parsed = tr.parse(turn.entries[1:])
    prompt = cut(clean(turn.text), PROMPT_CHARS, keep_end=200)
    answer = final_answer(parsed)
    answer_text = cut(clean(answer), ANSWER_CHARS, keep_end=250) if answer.strip() else ""
    if case.next_prompt is None:
        following = "(none: the session ended after this turn)"
    elif case.next_in_request:
        following = f"(the prompt of {case.next_in_request}, below)"
    else:
        following = cut(clean(case.next_prompt), NEXT_CHARS, keep_end=150) or "(empty)"
    head = [f"=== {case.id} ===", f"User prompt: {prompt}"]
    if case.previous_answer:
        head.insert(1, f"(The previous turn ended with: {cut(clean(case.previous_answer), PREVIOUS_CHARS)})")
    tail = [f"Final answer: {answer_text}" if answer_text else "Final answer: (none: the turn ended without one)"]
    if turn.interrupted:
        tail.insert(0, "The user interrupted the agent during this turn.")
    tail.append(f"Next user prompt: {following}")
    fixed = sum(len(line) + 1 for line in head + tail)
    calls = _call_lines(parsed)
    call_block = ([f"Tool calls ({len(calls)}):"] + _fit_calls(calls, max(400, TURN_CHARS - fixed - 20))
                  if calls else ["Tool calls: none"])
    text = "\n".join(head + call_block + tail)
    return redact_outgoing(_shorter_paths(text, turn.entries))
