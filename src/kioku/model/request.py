"""What Kioku sends a model and what comes back, independent of the backend (pure data).

A request is a short system prompt, one user message and the JSON schema the answer must
match; the message already holds the schema in words, so a backend without structured output
(a local command) gets everything it needs on standard input. Every text in a request has been
through Kioku's secret filter before it is built (the builders call ``kioku.text.secrets``).

Errors say what to do next:
- :class:`ModelUnavailable` (``transient``): a rate limit, an API or network error, a timeout.
  Nothing is stored from it; the work stays queued and is tried again later.
- :class:`ModelUnavailable` (not transient): no login, no key, a missing binary: the rules
  judge instead, and the reason is shown by ``kioku judge status``.
- :class:`ModelOutputError`: the model answered, but not with usable JSON (a refusal, an
  oversized or malformed answer, a stop at the per-call dollar cap): the caller may retry once
  with the reason, then falls back to the rules for that batch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")

MAX_ANSWER_CHARS = 200_000   # a judge's answer for one batch is a few KB; more is not an answer


@dataclass(frozen=True)
class ModelRequest:
    purpose: str                  # "judge" | "enrich"
    system: str
    prompt: str
    schema: dict[str, Any]
    max_output_tokens: int = 4096

    @property
    def chars(self) -> int:
        """Characters sent: system prompt, message and schema."""
        return len(self.system) + len(self.prompt) + len(json.dumps(self.schema, separators=(",", ":")))

    def to_json(self, model: str) -> dict[str, Any]:
        """The request as exported for measurement: exactly what a backend is given."""
        return {"kioku_model_request": 1, "purpose": self.purpose, "model": model, "system": self.system,
                "prompt": self.prompt, "json_schema": self.schema, "max_output_tokens": self.max_output_tokens}

    def told(self, problem: str) -> "ModelRequest":
        """The same request, told what was wrong with the previous answer (``problem``, already cut)."""
        note = (f"\n\nYour previous answer could not be used: {problem}\n"
                "Answer again with the whole JSON object, following the shape above exactly.")
        return replace(self, prompt=self.prompt + note)

    def stdin_text(self) -> str:
        """The whole request as one text, for backends that read a prompt on standard input."""
        schema = json.dumps(self.schema, ensure_ascii=False, separators=(",", ":"))
        return f"{self.system}\n\n{self.prompt}\n\nThe JSON schema of the answer:\n{schema}"


def pack(items: Sequence[T], size: Callable[[T], int], *, max_items: int, max_chars: int) -> list[list[T]]:
    """``items`` in order, in as few batches as fit ``max_items`` each and ``max_chars`` of ``size`` in
    all; an item larger than ``max_chars`` goes in a batch of its own."""
    out: list[list[T]] = []
    total = 0
    for item in items:
        length = size(item)
        if out and len(out[-1]) < max_items and total + length <= max_chars:
            out[-1].append(item)
            total += length
        else:
            out.append([item])
            total = length
    return out


@dataclass
class ModelReply:
    text: str                             # the raw answer text
    data: Any = None                      # the parsed JSON, when the backend returned it parsed
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None         # as the backend reported it; None: estimate it
    extra: dict[str, Any] = field(default_factory=dict)

    def json(self) -> Any:
        """The answer as JSON (parsed from ``text`` when the backend did not parse it)."""
        if self.data is not None:
            size = len(json.dumps(self.data, ensure_ascii=False))
            if size > MAX_ANSWER_CHARS:
                raise ModelOutputError(f"the answer is {size:,} characters, more than {MAX_ANSWER_CHARS:,}")
            return self.data
        if len(self.text) > MAX_ANSWER_CHARS:
            raise ModelOutputError(f"the answer is {len(self.text):,} characters, more than "
                                   f"{MAX_ANSWER_CHARS:,}")
        return parse_json_text(self.text)


def parse_json_text(text: str) -> Any:
    """The JSON object in a model's raw reply: the whole text, or its first fenced or braced block."""
    stripped = text.strip()
    if not stripped:
        raise ModelOutputError("the answer is empty")
    candidates = [stripped]
    if "```" in stripped:
        for part in stripped.split("```")[1::2]:
            candidates.append(part.split("\n", 1)[1] if part.lower().startswith("json") else part)
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start:end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    head = " ".join(stripped.split())[:80]
    raise ModelOutputError(f"the answer is not JSON (it begins: {head!r})")


class ModelUnavailable(Exception):
    """No answer could be had; ``transient`` says whether trying later may succeed."""

    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


class ModelOutputError(Exception):
    """The model answered, but the answer cannot be used."""


class CallCapReached(ModelOutputError):
    """The run stopped at the per-call dollar cap: asking the same again would stop there too."""
