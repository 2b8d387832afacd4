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

import json
from pathlib import Path
from typing import Any

from kioku.evaluation import per_turn
from kioku.evaluation.judge.model_judge import ModelJudge
from kioku.evaluation.verdict import TurnVerdict
from kioku.infra import fsutil, paths
from kioku.model.exported import INDEX, FileAnswers, read_index, request_sha256
from kioku.model.settings import ModelSettings
from kioku.worker import judging

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


def import_answers(transcripts: list[Path], folder: Path, *, agent: str = "main",
                   project_root: Path | None = None) -> list[tuple[Path, per_turn.PerTurnResult]]:
    """Each transcript's verdicts, judged with the answers in ``folder`` (the rules where none)."""
    root = project_root or paths.find_project_root()
    answers = FileAnswers(folder, read_index(folder, "judge"))
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
