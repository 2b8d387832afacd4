"""One tool call from arguments to reply, apart from the protocol (no SDK import here).

:class:`Calls` checks the arguments (``kioku.mcp.tools``), runs the tool under its store's lock,
and turns any failure into a reply marked as an error (``kioku.mcp.faults``). The lock keeps the
calls of one server process to one at a time per store, so the search index and the embedding
model are loaded once and Chroma is used by one thread; between processes (two clients, the
hooks, the CLI) the stores' own file locks serialise the writes, as they do for the CLI.

:meth:`Calls.stop` refuses new calls and waits for those in flight, so a server told to stop
never leaves a write half done.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from kioku.infra.errors import KiokuError
from kioku.mcp import lesson_tools, memory_tools
from kioku.mcp.context import Context, Reply
from kioku.mcp.tools import TOOLS_BY_NAME, ArgumentError, parse_arguments
from kioku.text.defang import defang_line

IMPLEMENTATIONS: dict[str, Callable[[Context, dict], Reply]] = {
    "memory_save": memory_tools.memory_save,
    "memory_search": memory_tools.memory_search,
    "memory_recall": memory_tools.memory_recall,
    "memory_forget": memory_tools.memory_forget,
    "lessons_for": lesson_tools.lessons_for,
    "lesson_feedback": lesson_tools.lesson_feedback,
}


class UnknownTool(KiokuError):
    """A call names no tool of this server."""


class Calls:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._locks = {"memory": threading.Lock(), "lessons": threading.Lock()}
        self._state = threading.Condition()
        self._running = 0
        self._stopping = False

    def stop(self) -> None:
        """Refuse new calls and return once every call in flight has finished."""
        with self._state:
            self._stopping = True
            self._state.wait_for(lambda: self._running == 0)

    def run(self, name: str, arguments: Any) -> Reply:
        """The reply to one call (UnknownTool for a name the server does not have)."""
        with self._state:
            if self._stopping:
                return Reply("the kioku MCP server is stopping; nothing was done", is_error=True)
            self._running += 1
        try:
            return self._run(name, arguments)
        finally:
            with self._state:
                self._running -= 1
                self._state.notify_all()

    def _run(self, name: str, arguments: Any) -> Reply:
        spec = TOOLS_BY_NAME.get(name)
        if spec is None:
            raise UnknownTool(f"unknown tool {defang_line(str(name))[:80]!r}; this server has "
                              f"{', '.join(TOOLS_BY_NAME)}")
        try:
            args = parse_arguments(spec, arguments)
        except ArgumentError as exc:
            return Reply(defang_line(str(exc)), is_error=True)
        with self._locks[spec.store]:
            try:
                return IMPLEMENTATIONS[name](self.ctx, args)
            except Exception as exc:  # noqa: BLE001 - every failure is one plain reply
                from kioku.mcp.faults import explain

                return Reply(explain(exc, spec.store, self.ctx.project_root), is_error=True)
