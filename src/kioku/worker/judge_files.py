"""The judge's requests as files, and answers read back from files: measuring without a live model.

``export_requests(transcripts, folder)`` writes exactly the requests the worker would send for
each transcript, taken as a finished session (every turn has its hindsight): one file per call,
``<folder>/<nnnn>-<transcript stem>.json`` (``kioku.model.request.ModelRequest.to_json``: model,
system prompt, message, JSON schema), and ``<folder>/index.json`` saying which transcript and
turns each file covers. Anyone may answer them: the answer to ``F`` is ``F.answer``, the raw
text a model replied.

``import_answers(transcripts, folder)`` judges the same transcripts again, with each request
answered from its file instead of a model call, through the same parser, retry rule and
fallback as live answers: a missing or unusable answer leaves that batch to the rules. Files
are matched to requests by the hash of the request, so an answer is never read for a request it
was not written for.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kioku.evaluation import per_turn
from kioku.evaluation.judge.model_judge import ModelJudge
from kioku.evaluation.verdict import TurnVerdict
from kioku.infra import fsutil, paths
from kioku.model.request import ModelOutputError, ModelReply, ModelRequest
from kioku.model.settings import ModelSettings, load_settings
from kioku.worker import judging

INDEX = "index.json"


def request_sha256(request: ModelRequest) -> str:
    body = json.dumps([request.system, request.prompt, request.schema], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _settings(root: Path) -> ModelSettings:
    return judging.model_settings(root) or ModelSettings()


def _plan(path: Path, agent: str, root: Path):
    result = per_turn.evaluate_path(path)
    session_id = result.session_id or "unknown"
    plan = judging.session_cases(agent, session_id, result, root, session_ended=True, judged={})
    return result, plan


def export_requests(transcripts: list[Path], folder: Path, *, agent: str = "main",
                    project_root: Path | None = None) -> dict[str, Any]:
    """Write the requests for ``transcripts``; returns the index written."""
    root = project_root or paths.find_project_root()
    settings = _settings(root)
    fsutil.ensure_private_dir(folder)
    index: dict[str, Any] = {"model": settings.model, "agent": agent, "calls": []}
    number = 0
    for path in transcripts:
        result, plan = _plan(path, agent, root)
        if result.kind == "compaction" or not plan.cases:
            continue
        uuid_of = {case.id: case.verdict.prompt_uuid for case in plan.cases}
        for request in ModelJudge(settings).plan(plan.cases, plan.context, plan.previous):
            number += 1
            name = f"{number:04d}-{path.stem[:40]}.json"
            fsutil.atomic_write_text(folder / name, json.dumps(request.model_request.to_json(settings.model),
                                                               ensure_ascii=False, indent=1))
            index["calls"].append({"file": name, "transcript": str(path), "sha256": request_sha256(request.model_request),
                                   "turns": [{"id": cid, "prompt_uuid": uuid_of[cid]} for cid in request.case_ids],
                                   "chars": request.model_request.chars})
    fsutil.atomic_write_text(folder / INDEX, json.dumps(index, ensure_ascii=False, indent=1))
    return index


class FileAnswers:
    """A stand-in for the model call: the answer written beside the request's exported file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        try:
            index = json.loads((folder / INDEX).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{folder} holds no judge export ({INDEX}): {exc}") from exc
        self.by_sha = {call["sha256"]: call["file"] for call in index.get("calls", []) if isinstance(call, dict)}
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


def import_answers(transcripts: list[Path], folder: Path, *, agent: str = "main",
                   project_root: Path | None = None) -> list[tuple[Path, per_turn.PerTurnResult]]:
    """Each transcript's verdicts, judged with the answers in ``folder`` (the rules where none)."""
    root = project_root or paths.find_project_root()
    answers = FileAnswers(folder)
    out = []
    for path in transcripts:
        result = per_turn.evaluate_path(path)
        if result.kind != "compaction" and result.verdicts:
            judgement = judging.judge_session(agent, result.session_id or "unknown", result, root, session_ended=True,
                                              judged={}, complete=answers)
            for verdict in result.verdicts:
                decision = judgement.decisions.get(verdict.prompt_uuid)
                if decision is not None:
                    judging.apply(verdict, decision)
        out.append((path, result))
    return out


def verdict_rows(verdicts: list[TurnVerdict]) -> list[dict[str, Any]]:
    return [v.to_json() for v in verdicts]
