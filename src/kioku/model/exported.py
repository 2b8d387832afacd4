"""Model requests exported as files, and the answers written beside them read back as replies.

An export folder holds one JSON file per call and ``index.json`` listing each file with the hash
of its request (``request_sha256``). :class:`FileAnswers` stands in for the model call: it finds
the file whose hash matches the request and returns the raw text of ``<file>.answer``, so an
answer is never read for a request it was not written for. Judge and enrichment exports share it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kioku.model.request import ModelOutputError, ModelReply, ModelRequest

INDEX = "index.json"


def request_sha256(request: ModelRequest) -> str:
    """The hash that ties an exported file to the request it holds (system prompt, message, schema)."""
    body = json.dumps([request.system, request.prompt, request.schema], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def read_index(folder: Path, what: str) -> dict[str, Any]:
    """The export's index; ``ValueError`` with one line saying why when ``folder`` holds no ``what`` export."""
    try:
        index = json.loads((folder / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{folder} holds no {what} export ({INDEX}): {exc}") from exc
    if not isinstance(index, dict) or not isinstance(index.get("calls"), list):
        raise ValueError(f"{folder / INDEX} is not the index of an export of {what} requests")
    return index


class FileAnswers:
    """A stand-in for the model call: the answer written beside the request's exported file."""

    def __init__(self, folder: Path, index: dict[str, Any]) -> None:
        self.folder = folder
        self.by_sha = {call["sha256"]: call["file"] for call in index["calls"]
                       if isinstance(call, dict) and call.get("sha256") and call.get("file")}
        self.model = str(index.get("model") or "")
        self.answered: list[str] = []
        self.missing: list[str] = []

    def __call__(self, request: ModelRequest) -> ModelReply:
        name = self.by_sha.get(request_sha256(request))
        if name is None:
            raise ModelOutputError("no exported request matches this one (a retry is not exported)")
        answer = self.folder / f"{name}.answer"
        try:
            text = answer.read_text(encoding="utf-8")
        except OSError:
            self.missing.append(name)
            raise ModelOutputError(f"no answer file {answer.name}") from None
        self.answered.append(name)
        return ModelReply(text=text, model=f"{self.model} (answers from {self.folder.name})",
                          input_tokens=request.chars // 4, output_tokens=len(text) // 4)
