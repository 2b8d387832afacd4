"""One turn in, one :class:`TurnVerdict` out - judged from the turn's end state (pure, no I/O).

``judge(turn, next_prompt=None) -> TurnVerdict``. The rules, in the order they decide:

1. ``no_task``: the prompt asks for nothing (a subagent "Warmup" probe, "stop now", a bare
   acknowledgement in English or Japanese) and the agent made no tool call.
2. ``interrupted``: the user interrupted and no answer came after the last interrupt (``partial``
   instead when files had already been changed), or the user rejected a tool call and the turn
   ended there without an answer.
3. ``failed``: no assistant reply at all; a write the user did not allow (a denied Write/Edit)
   that was never made afterwards; a final answer that admits the task was not done ("I
   couldn't reproduce…" is not an admission); a claimed change with no tool call at all; or the
   next prompt says the result is wrong or still fails, after a turn that did work with tools,
   when that turn was itself fixing a reported failure or the next prompt says so in words.
4. Without a final answer (the turn ended on a tool call): ``failed`` when it stopped mid-call or
   on the agent's own error, ``success`` when the last call committed or pushed the work,
   ``partial`` otherwise.
5. ``partial``: the last test/build after the last edit failed, or a fix for a failure the user
   reported was never run or tested after the last edit.
6. ``success`` otherwise. A harmless late error (``git commit`` with nothing to commit, a stale
   ``Read``) does not flip a finished task: only tests/builds and denied writes are end state.

Errors are split by who was at fault (:mod:`kioku.evaluation.blame`); a cascade of cancelled siblings is
counted once. An agent error is *recovered* when a later call with the same key
(:mod:`kioku.evaluation.call_keys`: command family or target) succeeded; a *retry* is such a later call. Tokens are split into input, output,
cache-write and cache-read (once per message id); ``active_s`` sums the gaps between the turn's
timestamps, leaving out gaps longer than :data:`IDLE_GAP_S` (the user was away).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kioku.evaluation import transcript as tr
from kioku.text.secrets import redact_across_lines
from kioku.evaluation import blame as bl
from kioku.evaluation.blame import blame_of
from kioku.evaluation.call_keys import call_key, command_family
from kioku.evaluation import feedback as fb
from kioku.evaluation.turns import Turn, is_interrupt
from kioku.evaluation.verdict import TurnTokens, TurnVerdict
from kioku.infra import clock

IDLE_GAP_S = 300.0
TASK_CHARS = 100
_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
_TEST_OR_BUILD = re.compile(
    r"\b(?:pytest|unittest|tox|nox|npm (?:run )?(?:test|build)|yarn (?:test|build)|pnpm (?:test|build)|"
    r"bun test|go (?:test|build|vet)|cargo (?:test|build|check|clippy|llvm-cov)|mvnw?|gradlew?|jest|vitest|rspec|"
    r"make(?: test| check|$| build)|mix (?:test|compile|credo|dialyzer|precommit)|tsc|ruff|mypy|eslint|"
    r"just (?:test|check|build)|dotnet (?:test|build)|manage\.py test|phpunit|artisan test|deno test|"
    r"swift (?:test|build)|xcodebuild|ctest|bazel (?:test|build)|sbt (?:test|compile)|flutter test|dart test|"
    r"zig build|(?:cabal|stack|dune) (?:test|build))\b")
# A test run whose exit status was lost (``pytest | tail``) but whose summary reports failures.
# Only the summary lines test runners print (pytest, jest, mocha, go, cargo, phpunit, gradle,
# maven), not any line that says "failed": "attempt 1 failed, retrying" is a log line.
_REPORTS_FAILURES = re.compile(
    r"\b[1-9]\d* failed(?:, \d+ (?:passed|errors?|skipped|deselected|xfailed)| in \d)|^FAILED \S|"
    r"^\s*[1-9]\d* failing\b|^--- FAIL: |^FAIL(?:\t|$)|test result: FAILED|^Tests:.*\b[1-9]\d* failed|"
    r"^BUILD FAIL(?:ED|URE)\b|^FAILURES!", re.M)
# Commands that only read or record (a log, a search, a commit message): naming a test runner in
# them runs nothing.
_READS_ONLY = frozenset({"git", "gh", "ls", "cat", "echo", "grep", "rg", "find", "head", "tail", "less", "sed",
                         "awk"})
_NO_REQUEST = re.compile(
    r"^\s*(?:warmup|(?:ok(?:ay)?[,.!]?\s*)?(?:stop|stop now|that's all|nothing else)|"
    r"[^?]*\b(?:stop now|you can stop)\b[^?]*|(?:perfect|thanks|thank you|great|cool|nice)[!.,]?(?:\s+[^\s?]+){0,12}"
    r"|(?:ありがと|完璧|了解|オッケー|いいですね)[^？?]{0,20})\s*[.!。！]*\s*$",
    re.I | re.S)
_ADMITS_FAILURE = re.compile(
    r"\b(?:I|we)\s+(?:was|were|am|are)\s+(?:unable|not able)\s+to\s+(?!reproduce)"
    r"|\bI\s+(?:couldn't|could not|can't|cannot)\s+(?!reproduce|find any (?:issue|problem)|see any)"
    r"(?:get|make|fix|complete|finish|resolve|create|write|run|build|access|do)\b"
    r"|\b(?:I|we)\s+failed\s+to\b|\b(?:tests?|build) (?:are |is )?still (?:fail\w*|broken)\b"
    r"|できませんでした|失敗しました|解決できません|うまくいきませんでした", re.I)


_CHANGE_REQUEST = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|now|please|then|and|also|so)[,.!]?\s+)*(?:add|create|implement|fix|update|change|"
    r"remove|delete|rename|refactor|edit|commit|install|move)\b"
    r"|(?:追加|作成|実装|修正|更新|変更|削除|コミット|インストール|移動|リネーム|リファクタ\w*)"
    r"(?:して|しておいて|してください|して下さい|してほしい|をお願い)", re.I)
_CLAIMS_DONE = re.compile(r"^\W*(?:done|finished|all set)\b|\b(?:I've|I have|I)\s+(?:added|created|written|wrote|"
                          r"implemented|updated|fixed|changed|removed|committed)\b|\bis (?:now )?(?:ready|done|in place)\b"
                          r"|(?:追加|作成|実装|修正|更新|変更|削除|コミット|インストール|移動|リネーム)(?:しました|済み|完了)"
                          r"|完了しました",
                          re.I)
_RUNS = re.compile(r"(?:^|[;&|]\s*)\./\S|\b(?:python3?|node|deno|ruby|bash|sh|docker|podman|container|curl)\s+\S")
_DELIVERS = re.compile(r"\bgit\s+(?:commit|push)\b|\bgh\s+pr\s+create\b")


@dataclass
class _Call:
    call: tr.ToolCall
    result: tr.ToolResult | None
    blame: str         # who was at fault (kioku.evaluation.blame), "" when the call succeeded or has no result
    order: int


def _short(text: str) -> str:
    text = " ".join(redact_across_lines(text).split())
    return text if len(text) <= TASK_CHARS else text[:TASK_CHARS - 1] + "…"


def _tokens(parsed: tr.Transcript) -> TurnTokens:
    out = TurnTokens()
    for msg in parsed.messages:
        usage = msg.usage if isinstance(msg.usage, dict) else {}

        def num(key: str) -> int:
            value = usage.get(key)
            return int(value) if isinstance(value, (int, float)) and value > 0 else 0

        out.input += num("input_tokens")
        out.output += num("output_tokens")
        out.cache_write += num("cache_creation_input_tokens")
        out.cache_read += num("cache_read_input_tokens")
    return out


def _times(turn: Turn) -> tuple[float, float]:
    stamps = sorted(ts for ts in (tr.parse_timestamp(e.get("timestamp")) for e in turn.entries) if ts is not None)
    if len(stamps) < 2:
        return 0.0, 0.0
    active = sum(gap for gap in (b - a for a, b in zip(stamps, stamps[1:])) if gap <= IDLE_GAP_S)
    return round(active, 3), round(stamps[-1] - stamps[0], 3)


def _calls(parsed: tr.Transcript) -> list[_Call]:
    results = parsed.results
    out: list[_Call] = []
    for order, call in enumerate(parsed.tool_calls):
        res = results.get(call.id)
        fault = blame_of(res.head or res.first_line) if res is not None and res.is_error else ""
        out.append(_Call(call, res, fault, order))
    return out


def final_answer(parsed: tr.Transcript) -> str:
    """The assistant's text after its last tool call ("" when the turn ended on a tool call)."""
    last_text = ""
    for kind, event in parsed.events:
        if kind != "assistant":
            continue
        if event.tool_calls:
            last_text = ""  # text before a tool call is narration, not the answer
        elif event.text.strip():
            last_text = event.text
    return last_text


def previous_answer(turns: list[Turn], index: int) -> str:
    """How the work before turn ``index`` ended: the previous turn's final answer, or for the first
    turn the agent's answer in the file's preamble (a session continued after compaction goes on
    working before the user's first prompt); "" when there was none."""
    if index > 0:
        return final_answer(tr.parse(turns[index - 1].entries[1:]))
    return final_answer(tr.parse(turns[0].preamble)) if turns and turns[0].preamble else ""


def _ends_after_interrupt(turn: Turn) -> bool:
    """An interrupt marker with no assistant text after it."""
    seen_interrupt = False
    for entry in turn.entries[1:]:
        if entry.get("type") == "user" and is_interrupt(entry):
            seen_interrupt = True
        elif entry.get("type") == "assistant" and seen_interrupt:
            message = entry.get("message") if isinstance(entry.get("message"), dict) else {}
            if message.get("model") == "<synthetic>":
                continue
            content = message.get("content")
            if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "text"
                                                 and str(b.get("text", "")).strip() for b in content):
                seen_interrupt = False
    return seen_interrupt


def _last_check_failed(calls: list[_Call]) -> bool:
    """The last test/build run after the last edit failed (agent's error, not a hook's)."""
    last_edit = max((c.order for c in calls if c.call.name in _WRITE_TOOLS and c.blame == ""), default=-1)
    checks = [c for c in calls if c.order > last_edit and c.call.name == "Bash" and c.result is not None
              and _TEST_OR_BUILD.search(str(c.call.input.get("command", "")))
              and not _reads_only(str(c.call.input.get("command", "")))]
    if not checks:
        return False
    last = checks[-1]
    if last.blame == bl.AGENT:
        return True
    # a pipe, "|| true" or a later command hides the runner's exit status ("pytest | tail -5",
    # "pytest; echo done"): then its summary line decides
    command = str(last.call.input.get("command", ""))
    hidden = "|" in command or ";" in command
    return last.blame == "" and hidden and bool(_REPORTS_FAILURES.search(_result_text(last)))


def _result_text(call: _Call) -> str:
    return call.result.tail if call.result is not None else ""


def _reads_only(command: str) -> bool:
    """Whether the command (the first program of a pipeline) only reads or records."""
    head = command.replace("||", "\x00").split("|")[0].replace("\x00", "||")
    return command_family(head).split(" ")[0] in _READS_ONLY


def _denied_write(calls: list[_Call]) -> bool:
    """A write the user did not allow, or a hook blocked, and that no later call of the agent made."""
    for c in calls:
        if c.blame not in (bl.REJECTION, bl.HOOK) or c.call.name not in _WRITE_TOOLS:
            continue
        if c.blame == bl.HOOK and c.result is not None and "posttooluse" in c.result.head.lower():
            continue  # a hook that ran after the write complained; the write itself was made
        target = call_key(c.call)
        if not any(d.order > c.order and d.blame == "" and d.call.name in _WRITE_TOOLS
                   and call_key(d.call) == target for d in calls):
            return True
    return False


def _count_errors(calls: list[_Call]) -> dict[str, int]:
    counts = {"agent": 0, "rejections": 0, "hooks": 0, "cascades": 0, "recovered": 0, "retries": 0}
    for c in calls:
        if c.blame == bl.AGENT:
            counts["agent"] += 1
            key = call_key(c.call)
            later = [d for d in calls if d.order > c.order and call_key(d.call) == key]
            if later:
                counts["retries"] += 1
                if any(d.blame == "" and d.result is not None for d in later):
                    counts["recovered"] += 1
        elif c.blame == bl.REJECTION:
            counts["rejections"] += 1
        elif c.blame == bl.HOOK:
            counts["hooks"] += 1
        elif c.blame == bl.CASCADE:
            counts["cascades"] += 1
    return counts


def judge(turn: Turn, next_prompt: str | None = None, *, session_id: str = "",
          follows_work: bool | None = None) -> TurnVerdict:
    """The verdict on ``turn``; ``next_prompt`` is the text of the following real prompt, if any;
    ``follows_work``: whether the prompt came after the agent's work (every turn but a file's first,
    unless the file's preamble holds an answer), so it can judge that work."""
    parsed = tr.parse(turn.entries[1:])
    calls = _calls(parsed)
    errors = _count_errors(calls)
    answer = final_answer(parsed)
    replied = any(m.text.strip() or m.tool_calls for m in parsed.messages)
    next_feedback = fb.classify(next_prompt) if next_prompt else fb.NONE
    active_s, wall_s = _times(turn)
    outcome, reason = _decide(turn, calls, answer, replied, next_prompt, next_feedback)
    return TurnVerdict(
        prompt_uuid=turn.prompt_uuid, prompt_index=turn.index, outcome=outcome, reason=reason,
        prompt_id=turn.prompt_id, prompt_sha256=turn.prompt_sha256,
        feedback_on_previous=fb.classify(turn.text) if (turn.index > 0 if follows_work is None else follows_work)
        else fb.NONE,
        task=_short(turn.text), session_id=session_id or parsed.session_id,
        agent_errors=errors["agent"], user_rejections=errors["rejections"], hook_blocks=errors["hooks"],
        cascade_errors=errors["cascades"], recovered_errors=errors["recovered"], retries=errors["retries"],
        tool_calls=len(calls), interrupted=turn.interrupted, tokens=_tokens(parsed),
        active_s=active_s, wall_s=wall_s, started_at=clock.iso_z(turn.timestamp) if turn.timestamp is not None else "",
    )


def _decide(turn: Turn, calls: list[_Call], answer: str, replied: bool, next_prompt: str | None,
            next_feedback: str) -> tuple[str, str]:
    did_work = any(c.blame == "" and c.result is not None for c in calls)
    changed = any(c.blame == "" and c.result is not None and c.call.name in _WRITE_TOOLS for c in calls)
    if not calls and _NO_REQUEST.match(turn.text):
        return "no_task", "the prompt asks for no work"
    if turn.interrupted and _ends_after_interrupt(turn):
        if changed:
            return "partial", "interrupted after changing files, before the task was finished"
        return "interrupted", "the user interrupted before an answer"
    if not answer and calls and calls[-1].blame == bl.REJECTION:
        return "interrupted", "the user rejected a tool call and the turn ended there"
    if not replied:
        return "failed", "no reply from the agent"
    if _denied_write(calls):
        return "failed", "a file write was not allowed and never made"
    if answer and _ADMITS_FAILURE.search(answer[-3000:]):
        return "failed", "the final answer says the task was not done"
    if not calls and answer and _CHANGE_REQUEST.search(turn.text) and _CLAIMS_DONE.search(answer):
        return "failed", "claims the change is done but made no tool call"
    fixing_reported_failure = turn.index > 0 and fb.shows_failure(turn.text)
    if next_prompt and next_feedback == fb.NEGATIVE and did_work and fb.shows_failure(next_prompt) and (
            fixing_reported_failure or fb.says_still_broken(next_prompt)):
        return "failed", "the next prompt reports the result is wrong or still fails"
    if not answer:
        if calls and calls[-1].result is None:
            return "failed", "stopped in the middle of a tool call"
        last = next((c for c in reversed(calls) if c.result is not None), None)
        if last is not None and last.blame == bl.AGENT:
            return "failed", "ended on a failed tool call without an answer"
        if last is not None and last.blame == "" and _DELIVERS.search(str(last.call.input.get("command", ""))):
            return "success", "the work was committed or pushed; no closing message"
        return "partial", "stopped after a tool call without a final answer"
    if _last_check_failed(calls):
        return "partial", "the last test/build after the last edit failed"
    if fixing_reported_failure and changed and not _checked_after_last_edit(calls):
        return "partial", "a fix for a reported failure, never run or tested"
    return "success", "answered; no failing check or denied write at the end"


def _checked_after_last_edit(calls: list[_Call]) -> bool:
    last_edit = max((c.order for c in calls if c.call.name in _WRITE_TOOLS and c.blame == ""), default=-1)
    return any(c.order > last_edit and c.call.name == "Bash" and c.blame == "" and c.result is not None
               and _verifies(str(c.call.input.get("command", ""))) for c in calls)


def _verifies(command: str) -> bool:
    """A command that runs or tests the work (not git bookkeeping, whose message may quote one)."""
    family = command_family(command)
    if family.split(" ")[0] in _READS_ONLY:
        return False
    return bool(_TEST_OR_BUILD.search(command) or _RUNS.search(command))
