"""The one way Kioku calls a model: settings, opt-out, daily caps, one call at a time, usage.

``complete(request)`` picks the backend (``kioku.model.settings``), refuses when the purpose is
turned off, when today's calls or tokens would pass the caps, or while a broken setup is paused
(``kioku.model.usage``), then runs the call under the per-home call lock and records what it
cost. Callers treat every :class:`~kioku.model.request.ModelUnavailable` by its ``transient``
flag and every :class:`~kioku.model.request.ModelOutputError` as an unusable answer.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from kioku.infra import fsutil
from kioku.model import usage
from kioku.model.request import ModelOutputError, ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings, load_settings

CHARS_PER_TOKEN = 4   # estimate of the request's size in tokens, before a call is made


class BudgetSpent(ModelUnavailable):
    """Today's cap on calls or tokens is reached; the rules take over until tomorrow (UTC)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=False)


def _backend(name: str) -> Callable[[ModelRequest, ModelSettings], ModelReply]:
    if name == "claude":
        from kioku.model.claude_cli import complete
    elif name == "anthropic":
        from kioku.model.anthropic_api import complete
    elif name == "command":
        from kioku.model.command import complete
    else:
        raise ModelUnavailable("no model backend: the rules judge (set [model] backend)", transient=False)
    return complete


def unavailable_reason(purpose: str, settings: ModelSettings) -> str:
    """Why a call for ``purpose`` would not be made now ("" when it would)."""
    if not settings.allowed(purpose):
        return settings.off[purpose]
    backend = settings.resolved_backend()
    if backend == "heuristic":
        return ("the claude CLI was not found" if settings.backend == "auto"
                else "[model] backend is \"heuristic\"")
    paused = usage.paused_until()
    if paused > time.time():
        last = usage.snapshot().get("last_error", {})
        return f"paused until {time.strftime('%H:%M UTC', time.gmtime(paused))} after: {last.get('message', 'an error')}"
    return ""


def check_budget(request: ModelRequest, settings: ModelSettings) -> None:
    spent = usage.totals(usage.today())
    if settings.daily_calls and spent.calls >= settings.daily_calls:
        raise BudgetSpent(f"today's {settings.daily_calls} model calls are used ([model] daily_calls)")
    estimate = request.chars // CHARS_PER_TOKEN + request.max_output_tokens // 4
    if settings.daily_tokens and spent.tokens + estimate > settings.daily_tokens:
        raise BudgetSpent(f"today's {settings.daily_tokens:,} model tokens are used ([model] daily_tokens)")


def complete(request: ModelRequest, *, settings: ModelSettings | None = None,
             project_root: Path | None = None) -> ModelReply:
    settings = settings or load_settings(project_root)
    reason = unavailable_reason(request.purpose, settings)
    if reason:
        raise ModelUnavailable(reason, transient=False)
    check_budget(request, settings)
    call = _backend(settings.resolved_backend())
    with fsutil.exclusive_lock(usage.call_lock_path(), timeout=settings.timeout_s + 60):
        try:
            reply = call(request, settings)
        except ModelUnavailable as exc:
            usage.record_failure(request.purpose, str(exc), transient=exc.transient)
            raise
        except ModelOutputError as exc:
            usage.record_failure(request.purpose, str(exc), transient=True)
            raise
    estimated = settings.estimate_cost(reply.input_tokens, reply.output_tokens)
    usage.record_call(request.purpose, reply.input_tokens, reply.output_tokens, reply.cost_usd, estimated)
    return reply
