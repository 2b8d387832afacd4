"""The hook protocol and Kioku's single fail-open boundary.

Every ``hooks/*.py`` launcher calls :func:`run`. Contract:

- ``KIOKU_DISABLE=1`` (or ``disabled = true`` in Kioku's config): exit 0 before doing anything.
- stdin is read with a size cap; empty input, a TTY or malformed JSON gives one line on
  stderr (Claude Code's debug log) and exit 0 - the user's prompt is never blocked.
- The handler module ``kioku.handlers.<event>`` is imported lazily and returns a
  :class:`HookResult` (or None). Handlers never print and never exit.
- stdout carries at most one JSON object with documented keys only:
  ``hookSpecificOutput.{hookEventName, additionalContext}`` and ``systemMessage``.
- Any exception (``SystemExit`` from library code included, ``KeyboardInterrupt`` not):
  traceback to ``<KIOKU_HOME>/logs/hooks.log`` (0600, rotated), one line to stderr,
  nothing on stdout, exit 0. We never exit 2 by accident.

Standard library only, and only ``kioku.core`` imports.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

MAX_STDIN_BYTES = 16 * 1024 * 1024
MAX_CONTEXT_CHARS = 10_000  # Claude Code turns longer hook output into a file preview
LOG_ROTATE_BYTES = 1024 * 1024

EVENT_MODULES = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
}
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "SubagentStart"}


@dataclass
class HookResult:
    additional_context: str | None = None
    system_message: str | None = None


def read_payload(raw: bytes) -> dict[str, Any]:
    """Parse hook stdin; raises ValueError with a one-line reason on junk."""
    if not raw.strip():
        raise ValueError("empty hook input")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"hook input is not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"hook input is a JSON {type(data).__name__}, expected an object")
    return data


def render_output(event: str, result: HookResult | None) -> str:
    if result is None:
        return ""
    out: dict[str, Any] = {}
    if result.additional_context and event in CONTEXT_EVENTS:
        out["hookSpecificOutput"] = {
            "hookEventName": event,
            "additionalContext": result.additional_context[:MAX_CONTEXT_CHARS],
        }
    if result.system_message:
        out["systemMessage"] = result.system_message[:MAX_CONTEXT_CHARS]
    return json.dumps(out, ensure_ascii=False) if out else ""


def log_exception(event: str) -> None:
    """Append the current traceback to the private, rotated hook log; never raises."""
    try:
        import traceback

        from kioku.core import fsutil, paths

        log_dir = fsutil.ensure_private_dir(paths.logs_dir())
        log = log_dir / "hooks.log"
        if log.exists() and log.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(log, log_dir / "hooks.log.1")
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            import time

            handle.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {event}\n")
            handle.write(traceback.format_exc())
    except BaseException:  # noqa: BLE001 - logging must never break the hook
        pass


def _disabled_for(payload: dict[str, Any]) -> bool:
    from kioku.core import config, paths

    try:
        root = paths.find_project_root(payload.get("cwd") or None)
        return config.load_config(root).disabled
    except Exception:  # noqa: BLE001 - a bad config must not block the session
        return False


def dispatch(event: str, payload: dict[str, Any]) -> HookResult | None:
    import importlib

    module = importlib.import_module(f"kioku.handlers.{EVENT_MODULES[event]}")
    handle: Callable[[dict[str, Any]], HookResult | None] = module.handle
    return handle(payload)


def run(event: str, stdin: Any = None, stdout: Any = None, stderr: Any = None) -> int:
    """Run one hook event end to end; always returns 0 (the launcher exits with it)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        from kioku.core.config import kill_switch_set

        if kill_switch_set() or event not in EVENT_MODULES:
            return 0
        source = getattr(stdin, "buffer", stdin)
        if getattr(stdin, "isatty", lambda: False)():
            return 0
        raw = source.read(MAX_STDIN_BYTES)
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="replace")
        try:
            payload = read_payload(raw)
        except ValueError as exc:
            stderr.write(f"kioku: {event} hook skipped: {exc}\n")
            return 0
        if _disabled_for(payload):
            return 0
        text = render_output(event, dispatch(event, payload))
        if text:
            stdout.write(text + "\n")
            stdout.flush()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the documented fail-open boundary
        log_exception(event)
        try:
            stderr.write(f"kioku: {event} hook failed open: {type(exc).__name__}: {str(exc)[:200]}\n")
        except BaseException:  # noqa: BLE001
            pass
    return 0
