"""Strengths, weaknesses and learnable insights from signals - short, generic, redacted.

Insights are lessons another run of the agent can use, never raw output:
- error → different approach that worked: "When `ls /x` (Bash) fails with 'No such file or
  directory', `ls` worked instead." (category error_handling)
- the identical failing call re-run unchanged: "Re-running `cmd` unchanged after it failed with
  'E' did not help; change the approach first." (error_handling)
- a result the user rejected and then accepted after a fix: a verification lesson
  (code_quality).
Commands are cut to 80 characters and passed through ``kioku.core.secrets.redact``; error text
is reduced to a generic kind (``transcript.classify_error``) - the tool output itself is never
stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kioku.core.secrets import redact
from kioku.core.transcript import ToolCall
from kioku.evaluation.signals import Signals

MAX_CALL_CHARS = 80


@dataclass
class Insight:
    lesson: str
    category: str
    confidence: float
    tags: list[str] = field(default_factory=list)


def describe_call(call: ToolCall) -> str:
    """`command` for Bash, the file name for file tools, else the tool name; short and redacted."""
    inp = call.input
    if call.name == "Bash" and inp.get("command"):
        text = " ".join(str(inp["command"]).split())
    elif inp.get("file_path"):
        text = f"{call.name} {str(inp['file_path']).rsplit('/', 1)[-1]}"
    elif inp.get("pattern"):
        text = f"{call.name} {inp['pattern']}"
    elif inp.get("url"):
        text = f"{call.name} {inp['url']}"
    else:
        text = call.name
    text = redact(text)
    if len(text) > MAX_CALL_CHARS:
        text = text[:MAX_CALL_CHARS - 1] + "…"
    return text.replace("`", "'")


def derive_insights(sig: Signals) -> list[Insight]:
    out: list[Insight] = []
    seen: set[str] = set()
    for rec in sig.recoveries:
        kind = rec.result.error_kind or "error"
        failed = describe_call(rec.failed)
        tags = [rec.failed.name.lower(), re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")]
        if rec.fixed_by is not None and describe_call(rec.fixed_by) != failed:
            fixed = describe_call(rec.fixed_by)
            via = "" if rec.fixed_by.name == rec.failed.name else f" ({rec.fixed_by.name})"
            lesson = f"When `{failed}` ({rec.failed.name}) fails with '{kind}', `{fixed}`{via} worked instead."
            conf = 0.8 if sig.success else 0.7
        elif sig.same_input_retries:
            lesson = (f"Re-running `{failed}` ({rec.failed.name}) unchanged after it failed with '{kind}' "
                      "did not help; change the approach first.")
            conf = 0.7
        else:
            continue
        if lesson not in seen:
            seen.add(lesson)
            out.append(Insight(lesson, "error_handling", conf, tags))
    if sig.negative_feedback and sig.feedback > 0:
        out.append(Insight("The user rejected a first result and accepted it after a fix: check the output "
                           "(re-read the file, re-run the command) before reporting the task as done.",
                           "code_quality", 0.75, ["verification", "user-feedback"]))
    return out


def strengths_and_weaknesses(sig: Signals) -> tuple[list[str], list[str]]:
    strengths: list[str] = []
    weaknesses: list[str] = []
    if sig.success and not sig.tool_errors:
        strengths.append("completed without tool errors")
    if sig.tool_errors and sig.recovered and sig.success:
        strengths.append(f"recovered from {sig.tool_errors} tool error(s) by changing approach")
    if sig.feedback > 0:
        strengths.append("positive user feedback")
    if sig.tests_run and not sig.tests_failed:
        strengths.append("ran tests and they passed")
    if sig.docs_written:
        strengths.append("updated documentation")
    if sig.success and sig.tool_calls and sig.tool_calls <= 3 and not sig.retries:
        strengths.append("direct: few tool calls")
    if sig.tool_errors:
        weaknesses.append(f"{sig.tool_errors} tool error(s)")
    if sig.same_input_retries:
        weaknesses.append("re-ran a failing call unchanged")
    elif sig.retries > 2:
        weaknesses.append(f"{sig.retries} retries")
    if sig.unresolved_error:
        weaknesses.append("ended with an unresolved error" if not sig.incomplete else "stopped mid tool call")
    if sig.failure_admitted:
        weaknesses.append("reported that the task could not be done")
    if sig.negative_feedback:
        weaknesses.append(f"user reported a problem ({sig.negative_feedback}x)")
    if not sig.has_answer:
        weaknesses.append("no final answer")
    if sig.tests_failed:
        weaknesses.append(f"{sig.tests_failed} failing test run(s)")
    if sig.non_cache_tokens > 200_000:
        weaknesses.append("heavy token use")
    return strengths, weaknesses
