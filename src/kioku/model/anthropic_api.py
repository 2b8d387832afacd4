"""The ``anthropic`` backend: the official SDK with the user's ``ANTHROPIC_API_KEY`` (optional extra).

Used only when the user chose it (``[model] backend = "anthropic"``). The key comes from the
environment the hooks had, never from a project's files; ``ANTHROPIC_BASE_URL`` is honoured as
the SDK honours it. The answer is forced through one tool whose input schema is the request's
schema, so it arrives parsed. The alias ``haiku`` means :data:`HAIKU`.
"""

from __future__ import annotations

import os

from kioku.model.request import ModelOutputError, ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings

HAIKU = "claude-haiku-4-5"
TOOL = "answer"


def model_id(alias: str) -> str:
    return HAIKU if alias.lower() == "haiku" else alias


def complete(request: ModelRequest, settings: ModelSettings) -> ModelReply:
    try:
        import anthropic
    except ImportError:
        raise ModelUnavailable("the anthropic package is not installed (pip install 'kioku[anthropic]')",
                               transient=False) from None
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise ModelUnavailable("ANTHROPIC_API_KEY is not set", transient=False)
    client = anthropic.Anthropic(max_retries=1, timeout=settings.timeout_s)
    try:
        message = client.messages.create(
            model=model_id(settings.model), max_tokens=request.max_output_tokens, system=request.system,
            messages=[{"role": "user", "content": request.prompt}],
            tools=[{"name": TOOL, "description": "Return the answer.", "input_schema": request.schema}],
            tool_choice={"type": "tool", "name": TOOL})
    except anthropic.AuthenticationError as exc:
        raise ModelUnavailable(f"the API refused the key: {exc}", transient=False) from exc
    except (anthropic.APIConnectionError, anthropic.APITimeoutError, anthropic.RateLimitError,
            anthropic.InternalServerError) as exc:
        raise ModelUnavailable(f"the API did not answer: {type(exc).__name__}", transient=True) from exc
    except anthropic.APIStatusError as exc:
        transient = getattr(exc, "status_code", 0) in (408, 409, 429) or getattr(exc, "status_code", 0) >= 500
        raise ModelUnavailable(f"the API answered {getattr(exc, 'status_code', '?')}: {type(exc).__name__}",
                               transient=transient) from exc
    usage = getattr(message, "usage", None)
    tokens_in = sum(int(getattr(usage, k, 0) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                              "cache_read_input_tokens"))
    tokens_out = int(getattr(usage, "output_tokens", 0) or 0)
    text = "".join(getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text")
    data = next((b.input for b in message.content if getattr(b, "type", "") == "tool_use"), None)
    if data is None:
        raise ModelOutputError(f"the model did not call the answer tool: {' '.join(text.split())[:120]!r}")
    return ModelReply(text=text, data=data, model=str(getattr(message, "model", settings.model)),
                      input_tokens=tokens_in, output_tokens=tokens_out)
