"""The ``command`` backend: any program that reads the request on stdin and prints the JSON answer.

For a local model, e.g. ``command = "llm -m mistral -s 'Answer in JSON only'"`` or a small script
around ``ollama``. The program gets the system prompt and the message as one text (the message
describes the JSON it must print), runs in Kioku's empty run folder with
:data:`kioku.infra.env.NESTED_RUN` set, and is killed with its process group at the timeout.
Costs are not reported by such programs; ``kioku judge status`` shows a list-price estimate.
"""

from __future__ import annotations

import os

from kioku.model.claude_cli import RUN_ENV, run_folder, run_process
from kioku.model.request import ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings


def complete(request: ModelRequest, settings: ModelSettings) -> ModelReply:
    if not settings.command:
        raise ModelUnavailable("[model] backend is \"command\" but [model] command is empty", transient=False)
    text = request.stdin_text()
    code, out, err = run_process(list(settings.command), text, settings.timeout_s, {**os.environ, **RUN_ENV},
                                 str(run_folder()))
    if code != 0:
        message = " ".join((err or out).split())[:200]
        raise ModelUnavailable(f"{settings.command[0]} exited with code {code}: {message}", transient=True)
    return ModelReply(text=out, model=settings.model, input_tokens=len(text) // 4, output_tokens=len(out) // 4)
