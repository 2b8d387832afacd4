"""Cause→fix lessons worth keeping, from one judged turn (pure).

``lessons_from_turn(turn) -> list[Lesson]`` (pure): for each error the agent made itself, the fix
is the next *successful* call with the same key (``call_keys.call_key``: the same command
family such as ``git push``, or the same file/target) - not any later call. A fix identical to
the failed call (a transient retry) teaches nothing and is skipped. User rejections, hook blocks
and cascades are not the agent's mistakes and give no lesson.

Text is data: commands are cut to :data:`MAX_CALL_CHARS`, secrets are redacted
(``kioku.text.secrets.redact_derived``), markup is neutralised (``kioku.text.defang.defang``), and
machine details are replaced by placeholders: paths ``{path}``, URLs ``{url}``, hosts ``{host}``,
user names ``{user}``, branch names ``{branch}``. A lesson that still names something of this
machine or project (a file name, a path fragment) is ``path_bound`` and goes to the project scope;
only lessons without one may go global.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kioku.evaluation import transcript as tr
from kioku.text.defang import defang
from kioku.text.placeholders import placeholders
from kioku.text.secrets import redact_derived
from kioku.evaluation import blame as bl
from kioku.evaluation.call_keys import call_key
from kioku.evaluation.turns import Turn

MAX_CALL_CHARS = 80
_FILE_NAME = re.compile(r"\b[\w-]+\.(?:py|js|ts|tsx|jsx|ex|exs|rb|go|rs|java|kt|c|h|cpp|md|json|ya?ml|toml|lock|txt|sh)\b")


@dataclass
class Lesson:
    text: str
    key: str              # what "the same pattern" means across sessions
    category: str
    tags: list[str]
    path_bound: bool      # still names a file of this project: project scope only


def describe(call: tr.ToolCall) -> str:
    inp = call.input
    if call.name == "Bash" and isinstance(inp.get("command"), str):
        text = " ".join(inp["command"].split())
    elif isinstance(inp.get("file_path"), str):
        text = f"{call.name} {inp['file_path']}"
    else:
        text = call.name
    text = placeholders(redact_derived(text))
    if len(text) > MAX_CALL_CHARS:
        text = text[:MAX_CALL_CHARS - 1] + "…"
    return text.replace("`", "'")


def lessons_from_turn(turn: Turn) -> list[Lesson]:
    parsed = tr.parse(turn.entries[1:])
    results = parsed.results
    calls = parsed.tool_calls
    out: list[Lesson] = []
    seen: set[str] = set()
    for i, call in enumerate(calls):
        res = results.get(call.id)
        if res is None or not res.is_error or bl.blame_of(res.head or res.first_line) != bl.AGENT:
            continue
        key = call_key(call)
        fix = next((c for c in calls[i + 1:] if call_key(c) == key and (r := results.get(c.id)) is not None
                    and not r.is_error), None)
        if fix is None:
            continue
        failed, fixed = describe(call), describe(fix)
        if failed == fixed or not _changes_approach(failed, fixed) or _too_specific(failed) or _too_specific(fixed):
            continue
        kind = res.error_kind or "error"
        text = redact_derived(defang(f"When `{failed}` fails with '{kind}', `{fixed}` worked."))
        pattern = redact_derived(f"{placeholders(key)}|{kind}|{fixed}")
        if pattern in seen:
            continue
        seen.add(pattern)
        bound = bool(_FILE_NAME.search(text))
        out.append(Lesson(text, pattern, "error_handling",
                          [call.name.lower(), re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")], bound))
    return out


_NOISE_WORDS = re.compile(r"^(?:2>&1|[12]?>/dev/null|\||&&|tail|head|-\d+|-n|\d+|cd|\{path\})$")


def _too_specific(described: str) -> bool:
    """A script, heredoc or cut command: its wording will not recur, so it cannot be a lesson."""
    return described.endswith("…") or "<<" in described or bool(re.search(r"\s-[ce]\s+['\"]", described))


def _changes_approach(failed: str, fixed: str) -> bool:
    """Whether the fix is a different way, not the same command re-run with output plumbing or
    extra operands (a retry after edits elsewhere teaches nothing about the command)."""
    before = {w for w in failed.split() if not _NOISE_WORDS.match(w)}
    after = {w for w in fixed.split() if not _NOISE_WORDS.match(w)}
    added = after - before
    if not before <= after:
        return True   # a different command or tool
    return any(w.startswith("-") for w in added)   # the fix is an option (e.g. --set-upstream)
