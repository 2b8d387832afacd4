"""Enrichment requests as files, and answers read back from files: measuring without a live model.

``export_requests(items, folder, model)`` writes exactly the requests ``kioku enrich`` would send
for ``items``: one file per call, ``<folder>/<nnnn>-<kind>.json``
(``kioku.model.request.ModelRequest.to_json``: model, system prompt, message, JSON schema), and
``<folder>/index.json`` saying which notes each file covers (kind, content key, owner). Anyone
may answer them: the answer to ``F`` is ``F.answer``, the raw text a model replied.

``import_answers(folder, items)`` rebuilds each exported request from the items as they are now
and sends it to the answer file instead of a model, through the same parser, retry rule and
bookkeeping as live answers (``kioku.enrich.run.run_requests``): a missing or unusable answer
leaves those notes without enrichment (recorded as failed). A call whose notes are gone or were
edited since the export is skipped, and files are matched to requests by the hash of the
request, so an answer is never read for a request it was not written for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kioku.enrich.request import Item, Request, build
from kioku.enrich.run import EnrichRun, Progress, plan, run_requests
from kioku.infra import fsutil
from kioku.model.exported import INDEX, FileAnswers, read_index, request_sha256


def export_requests(items: list[Item], folder: Path, model: str) -> dict[str, Any]:
    """Write the requests for ``items`` into ``folder``; returns the index written."""
    fsutil.ensure_private_dir(folder)
    index: dict[str, Any] = {"kioku_enrich_export": 1, "model": model, "calls": []}
    for number, request in enumerate(plan(items), 1):
        kinds = sorted({item.kind for item in request.items})
        name = f"{number:04d}-{'-'.join(kinds)}.json"
        fsutil.atomic_write_text(folder / name, json.dumps(request.model_request.to_json(model), ensure_ascii=False,
                                                           indent=1))
        index["calls"].append({
            "file": name, "sha256": request_sha256(request.model_request), "chars": request.model_request.chars,
            "items": [{"id": alias, "kind": item.kind, "key": item.key, "owner": item.owner, "agent": item.agent}
                      for alias, item in request.aliases.items()]})
    fsutil.atomic_write_text(folder / INDEX, json.dumps(index, ensure_ascii=False, indent=1))
    return index


@dataclass
class ImportReport:
    run: EnrichRun
    calls: int = 0                                             # exported calls
    skipped: list[str] = field(default_factory=list)           # files whose notes changed since the export
    answered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)           # files without an answer


def import_answers(folder: Path, items: list[Item], progress: Progress | None = None) -> ImportReport:
    """Store the enrichment the answers in ``folder`` give for ``items`` (see the module docstring)."""
    index = read_index(folder, "enrichment")
    by_key = {(item.kind, item.key): item for item in items}
    requests: list[Request] = []
    skipped: list[str] = []
    for call in index["calls"]:
        wanted = [by_key.get((str(i.get("kind")), str(i.get("key")))) for i in call.get("items") or []
                  if isinstance(i, dict)]
        if not wanted or any(item is None for item in wanted):
            skipped.append(str(call.get("file")))
            continue
        request = build([item for item in wanted if item is not None])
        if request_sha256(request.model_request) != call.get("sha256"):
            skipped.append(str(call.get("file")))
            continue
        requests.append(request)
    answers = FileAnswers(folder, index)
    run = run_requests(requests, complete=answers, progress=progress)
    return ImportReport(run, len(index["calls"]), skipped, list(dict.fromkeys(answers.answered)),
                        list(dict.fromkeys(answers.missing)))
