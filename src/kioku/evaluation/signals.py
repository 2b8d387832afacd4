"""Deterministic signals measured from a parsed transcript (no model calls, no guessing).

``measure(transcript) -> Signals`` looks at one *task*: the first real user prompt of the span
is the task, later prompts are the user's feedback on it. Definitions:

- tool_errors: tool results with ``is_error`` true.
- retries: the same command family or target (``error_kinds.call_key``) called again after it
  failed (one per failed call); ``same_input_retries`` counts re-runs with an identical input
  (the unchanged command failing again is a weakness).
- recovered: every failed tool call was followed by a later successful call with the same key.
- unresolved_error: the last tool result of the span is an error, or a tool call has no result.
- failure_admitted: the final assistant text says, in the first person, that it could not do
  it (English and Japanese).
- feedback: polarity of the later prompts (kioku.core.detect.feedback_polarity); the last
  non-zero one is the user's final word, and every negative one is counted.
- success: a final answer exists, no unresolved error, no admitted failure, and the user's
  final word is not negative.
- duration_s: first to last timestamp of the span; tokens: usage summed once per message id;
  non_cache_tokens leaves out cache reads (83-98 % of the total in real sessions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kioku.core.detect import feedback_polarity
from kioku.core.transcript import ToolCall, ToolResult, Transcript
from kioku.evaluation.error_kinds import call_key

_FAILURE = re.compile(
    r"\b(?:I|we)\s+(?:was|were|am|are)\s+(?:unable|not able)\s+to\b|\bI\s+(?:couldn't|could not|can't|cannot)\b"
    r"|\b(?:I|we)\s+failed\s+to\b|\bunfortunately,?\s+(?:I|it|this|the)\b|\bstill (?:fails|failing|broken)\b"
    r"|できませんでした|失敗しました|解決できません|うまくいきませんでした", re.I)
_HEDGE = re.compile(r"\b(?:I think|maybe|probably|not sure|might be|I guess|perhaps)\b|かもしれません|たぶん|おそらく", re.I)
_TEST_CMD = re.compile(r"\b(?:pytest|unittest|npm (?:run )?test|yarn test|pnpm test|bun test|go test|cargo test|"
                       r"mvn test|gradle test|jest|vitest|rspec|make test|tox)\b")
_DOC_FILE = re.compile(r"\.(?:md|rst|txt|adoc)$|README|CHANGELOG|docs?/", re.I)


@dataclass
class ErrorRecovery:
    """A failed call and the call that worked afterwards (None when nothing did)."""
    failed: ToolCall
    result: ToolResult
    fixed_by: ToolCall | None


@dataclass
class Signals:
    prompts: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    retries: int = 0
    same_input_retries: int = 0
    recovered: bool = True
    unresolved_error: bool = False
    incomplete: bool = False
    failure_admitted: bool = False
    hedging: bool = False
    has_answer: bool = False
    answer_chars: int = 0
    feedback: int = 0
    negative_feedback: int = 0
    positive_feedback: int = 0
    success: bool = False
    duration_s: float = 0.0
    tokens: int = 0
    non_cache_tokens: int = 0        # input + output + cache writes (cache reads are cheap re-reads)
    tests_run: int = 0
    tests_failed: int = 0
    docs_written: int = 0
    tools_used: list[str] = field(default_factory=list)
    recoveries: list[ErrorRecovery] = field(default_factory=list)


def _input_key(call: ToolCall) -> str:
    return repr(sorted((k, str(v)) for k, v in call.input.items() if k != "description"))


def measure(transcript: Transcript) -> Signals:
    sig = Signals()
    prompts = transcript.prompts
    sig.prompts = len(prompts)
    calls = transcript.tool_calls
    results = transcript.results
    sig.tool_calls = len(calls)
    sig.tools_used = sorted({c.name for c in calls})
    ordered = [(c, results.get(c.id)) for c in calls]
    for i, (call, res) in enumerate(ordered):
        if res is None:
            continue
        later = ordered[i + 1:]
        if res.is_error:
            sig.tool_errors += 1
            again = [c for c, _ in later if call_key(c) == call_key(call)]
            if again:
                sig.retries += 1
                if _input_key(again[0]) == _input_key(call):
                    sig.same_input_retries += 1
            fix = next((c for c, r in later if r is not None and not r.is_error and call_key(c) == call_key(call)),
                       None)
            sig.recoveries.append(ErrorRecovery(call, res, fix))
        command = str(call.input.get("command", "")) if call.name == "Bash" else ""
        if command and _TEST_CMD.search(command):
            sig.tests_run += 1
            sig.tests_failed += int(res.is_error)
        target = str(call.input.get("file_path", ""))
        if call.name in ("Write", "Edit", "MultiEdit") and _DOC_FILE.search(target):
            sig.docs_written += 1
    sig.recovered = all(r.fixed_by is not None for r in sig.recoveries)
    done = [r for _, r in ordered if r is not None]
    messages = transcript.messages
    sig.incomplete = bool(messages) and any(c.id not in results for c in messages[-1].tool_calls)
    sig.unresolved_error = bool(done) and done[-1].is_error or sig.incomplete
    final = transcript.final_text
    sig.has_answer = bool(final.strip())
    sig.answer_chars = len(final.strip())
    sig.failure_admitted = bool(_FAILURE.search(final))
    sig.hedging = bool(_HEDGE.search(final))
    for prompt in prompts[1:]:
        pol = feedback_polarity(prompt.text)
        if pol < 0:
            sig.negative_feedback += 1
        elif pol > 0:
            sig.positive_feedback += 1
        if pol:
            sig.feedback = pol
    sig.success = sig.has_answer and not sig.unresolved_error and not sig.failure_admitted and sig.feedback >= 0
    if transcript.first_ts is not None and transcript.last_ts is not None:
        sig.duration_s = round(max(0.0, transcript.last_ts - transcript.first_ts), 3)
    sig.tokens = transcript.tokens()
    sig.non_cache_tokens = sum(
        int(m.usage.get(k) or 0) for m in transcript.messages if isinstance(m.usage, dict)
        for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens")
        if isinstance(m.usage.get(k), (int, float)))
    return sig
