"""The hook protocol and Kioku's single fail-open boundary.

The hook launcher (``hooks/kioku_hook.py EVENT``) calls :func:`run`. Contract:

- ``KIOKU_DISABLE=1`` (or ``disabled = true`` in Kioku's config): exit 0 before doing anything.
- stdin is read with a size cap; empty input, a TTY or malformed JSON gives one line on
  stderr (Claude Code's debug log) and exit 0 - the user's prompt is never blocked.
- The handler module ``kioku.hooks.<event>`` is imported lazily and returns a
  :class:`HookResult` (or None). Handlers never print and never exit. A handler module may
  define ``quick_skip_raw(raw_stdin: bytes) -> bool`` and/or ``quick_skip(payload) -> bool``:
  when one returns True the event needs no work at all (e.g. a prompt without a "remember"
  hint), so neither json nor the config is loaded.
- stdout carries at most one JSON object with documented keys only:
  ``hookSpecificOutput.{hookEventName, additionalContext}`` and ``systemMessage``.
- Any exception (``SystemExit`` from library code included, ``KeyboardInterrupt`` not):
  traceback to ``<KIOKU_HOME>/logs/hooks.log`` (0600, rotated), one line to stderr,
  nothing on stdout, exit 0. We never exit 2 by accident. A full disk (``DiskFull``) gives its
  own line ("kioku: error: the disk holding ... is full; nothing was lost: ...") and no log.

Speed: hooks have a budget of a few Python start-ups, so this module imports only ``os`` and
``sys`` at load time, and JSON goes through ``kioku.infra.fastjson`` (``json``'s C functions
without the ``json`` package, which imports ``re``) - no pathlib, dataclasses, typing or
tomllib (each costs milliseconds).
The config files are located with ``os.path`` (:func:`project_root_of`, :func:`config_present`,
through kioku.infra.pathstr) and parsed only when one exists.
Standard library only, and only ``kioku.infra`` imports.
"""

from __future__ import annotations

import os
import sys

MAX_STDIN_BYTES = 16 * 1024 * 1024
MAX_CONTEXT_CHARS = 10_000  # Claude Code turns longer hook output into a file preview
# Prompt text a handler scans (trigger detection, secrets): a memory is at most 1,500
# characters, so a longer prompt is cut to this before any regex runs on it.
MAX_PROMPT_CHARS = 20_000
# Longest wait for any lock inside a hook: a save or a ledger write behind a stalled process
# gives up (the save says it was not saved; lessons are skipped for the turn) instead of
# holding the session for the 10-60 s the CLI would wait.
HOOK_LOCK_WAIT = 2.0
LOG_ROTATE_BYTES = 1024 * 1024

EVENT_MODULES = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "SessionEnd": "session_end",
}
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "SubagentStart"}


class HookResult:
    """What a handler wants shown: context for Claude and/or a message for the user."""

    __slots__ = ("additional_context", "system_message")

    def __init__(self, additional_context: str | None = None, system_message: str | None = None) -> None:
        self.additional_context = additional_context
        self.system_message = system_message

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, HookResult) and self.additional_context == other.additional_context
                and self.system_message == other.system_message)

    def __repr__(self) -> str:
        return f"HookResult(additional_context={self.additional_context!r}, system_message={self.system_message!r})"


def read_payload(raw: bytes) -> dict:
    """Parse hook stdin; raises ValueError with a one-line reason on junk."""
    if not raw.strip():
        raise ValueError("empty hook input")
    from kioku.infra.fastjson import loads, without_lone_surrogates  # the json package pulls in re (~8 ms); its C parser does not

    try:
        data = loads(raw.decode("utf-8", errors="replace"))
    except ValueError as exc:  # json.JSONDecodeError
        msg, line = getattr(exc, "msg", str(exc)), getattr(exc, "lineno", "?")
        raise ValueError(f"hook input is not JSON ({msg}, line {line})") from None
    if not isinstance(data, dict):
        raise ValueError(f"hook input is a JSON {type(data).__name__}, expected an object")
    return without_lone_surrogates(data)


def render_output(event: str, result: HookResult | None) -> str:
    if result is None:
        return ""
    out: dict = {}
    if result.additional_context and event in CONTEXT_EVENTS:
        out["hookSpecificOutput"] = {
            "hookEventName": event,
            "additionalContext": result.additional_context[:MAX_CONTEXT_CHARS],
        }
    if result.system_message:
        out["systemMessage"] = result.system_message[:MAX_CONTEXT_CHARS]
    if not out:
        return ""
    from kioku.infra.fastjson import dumps

    return dumps(out, ensure_ascii=False)


def log_exception(event: str) -> None:
    """Append the current traceback to the private, rotated hook log; never raises."""
    try:
        from kioku.infra.tracelog import append_traceback

        append_traceback("hooks.log", event, rotate_bytes=LOG_ROTATE_BYTES)
    except BaseException:  # noqa: BLE001 - logging must never break the hook
        pass


# ----------------------------------------------------------------- cheap path resolution

def project_root_of(payload: dict) -> str:
    """Git root above the payload's ``cwd`` (else that folder, else the process's cwd)."""
    from kioku.infra.pathstr import find_project_root

    cwd = payload.get("cwd")
    return find_project_root(cwd if isinstance(cwd, str) and cwd else None)


def config_present(root: str) -> bool:
    """Whether any Kioku config file exists (kioku.infra.config.config_files, by os.path)."""
    from kioku.infra.pathstr import kioku_home

    return (os.path.exists(os.path.join(kioku_home(), "config.toml"))
            or os.path.exists(os.path.join(root, ".agents", "kioku.toml")))


def _disabled_for(payload: dict, stderr=None) -> bool:
    root = project_root_of(payload)
    if not config_present(root):
        return False
    try:
        from pathlib import Path

        from kioku.infra import config

        return config.load_config(Path(root)).disabled
    except Exception as exc:  # noqa: BLE001 - a bad config must not block the session
        if stderr is not None:  # the one line a broken setting gets: the hooks go on with the defaults
            reason = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
            stderr.write(f"kioku: settings ignored: {reason}\n")
        return False


def handler_module(event: str):
    """``kioku.hooks.<event>`` (``__import__`` with a fromlist returns the submodule itself;
    ``importlib`` would add its own and ``warnings``' import time to every hook)."""
    return __import__(f"kioku.hooks.{EVENT_MODULES[event]}", fromlist=["handle"])


def dispatch(event: str, payload: dict, module=None) -> HookResult | None:
    if module is None:
        module = handler_module(event)
    return module.handle(payload)


def run(event: str, stdin=None, stdout=None, stderr=None) -> int:
    """Run one hook event end to end; always returns 0 (the launcher exits with it)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        from kioku.infra.env import kill_switch_set

        if kill_switch_set() or event not in EVENT_MODULES:
            return 0
        if stdin is None:  # launched with standard input closed: sys.stdin is None
            stderr.write(f"kioku: {event} hook skipped: no hook input (standard input is closed)\n")
            return 0
        source = getattr(stdin, "buffer", stdin)
        if getattr(stdin, "isatty", lambda: False)():
            return 0
        raw = source.read(MAX_STDIN_BYTES + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="replace")
        if len(raw) > MAX_STDIN_BYTES:  # cut JSON would be reported as "not JSON": say what happened
            stderr.write(f"kioku: {event} hook skipped: hook input is larger than "
                         f"{MAX_STDIN_BYTES // (1024 * 1024)} MB\n")
            return 0
        module = handler_module(event)
        skip_raw = getattr(module, "quick_skip_raw", None)
        if skip_raw is not None and raw.strip() and skip_raw(raw):
            return 0  # decided on the raw bytes: not even json is imported
        try:
            payload = read_payload(raw)
        except ValueError as exc:
            stderr.write(f"kioku: {event} hook skipped: {exc}\n")
            return 0
        quick_skip = getattr(module, "quick_skip", None)
        if quick_skip is not None and quick_skip(payload):
            return 0  # nothing to do for this payload, whatever the config says
        if _disabled_for(payload, stderr):
            return 0
        from kioku.infra import fsutil

        before, fsutil.MAX_LOCK_WAIT = fsutil.MAX_LOCK_WAIT, HOOK_LOCK_WAIT
        try:
            text = render_output(event, dispatch(event, payload, module))
        finally:
            fsutil.MAX_LOCK_WAIT = before
        if text:
            stdout.write(text + "\n")
            stdout.flush()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the documented fail-open boundary
        try:
            if type(exc).__name__ == "DiskFull":  # its message says what was kept; no log can be written
                stderr.write(f"kioku: error: {str(exc)[:400]} ({event} hook; the session goes on)\n")
            else:
                log_exception(event)
                stderr.write(f"kioku: {event} hook failed open: {type(exc).__name__}: {str(exc)[:200]}\n")
        except BaseException:  # noqa: BLE001
            pass
    return 0
