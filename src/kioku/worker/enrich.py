"""The worker's enrichment step: memories and lessons saved since the last run get their enrichment.

``enrich_wanted()`` runs after the worker's jobs (``kioku.worker.drain``). It reads the markers
the save paths left (``kioku.infra.enrich_queue``), grouped by the project they were saved in,
whose settings decide (a project may turn ``[enrich]`` off):

- no model may be called (turned off, no backend): the markers are removed and the items stay
  searchable by their text, exactly as without enrichment (``kioku enrich`` can enrich them later);
- calls are paused after a broken setup, or a settings file is unreadable: the markers wait;
- otherwise the marked items are found as they are now (a memory by its folder and id, a lesson
  by its scope and id; a marker whose item is gone is removed), together with the memories of the
  same folders whose enrichment went stale through an edit by hand, and those without a usable
  enrichment are enriched (``kioku.enrich.run``). A marker is removed once its item is enriched or
  its answer was unusable twice (recorded as failed); when the run stops (today's budget spent, a
  rate limit, a timeout) the rest wait for the next run, for at most :data:`MAX_WAIT_S`.

The log holds counts and reasons, never the memories' text.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kioku.enrich import targets
from kioku.enrich.request import Item
from kioku.enrich.run import enrich
from kioku.infra import enrich_queue
from kioku.infra.config import ConfigError
from kioku.model.settings import load_settings

MAX_WAIT_S = 7 * 86400.0


def _items_for(markers: list[tuple[str, dict]], root: Path | None) -> tuple[dict[str, list[Item]], list[Item]]:
    """(marker path -> its items as they are now, stale memories of the same folders)."""
    found: dict[str, list[Item]] = {}
    folders: dict[tuple[str, str], list[Item]] = {}
    stale: list[Item] = []
    for path, data in markers:
        if data["kind"] == "memory":
            where = (str(data.get("folder") or ""), str(data.get("scope") or "project"))
            if where not in folders:
                folders[where] = targets.memories_in(Path(where[0]), where[1]) if where[0] else []
                stale.extend(s.item for s in targets.states(folders[where]) if s.state == "stale")
            found[path] = [item for item in folders[where] if item.owner == data["id"]]
        else:
            found[path] = _lesson(data, root)
    return found, stale


def _lesson(data: dict, root: Path | None) -> list[Item]:
    from kioku.lessons import scopes as sc
    from kioku.lessons import stats
    from kioku.lessons.improvements import KIND, MIN_CONFIDENCE_ACTIVE

    agent, scope = str(data.get("agent") or ""), str(data.get("scope") or "global")
    if not agent or not sc.scope_exists(scope, root):
        return []
    records = sc.open_scope(scope, root).get(agent, KIND, ids=[str(data["id"])])
    return [targets.lesson_item(agent, scope, r) for r in records
            if (r.document or "").strip() and stats.is_active(dict(r.metadata or {}), MIN_CONFIDENCE_ACTIVE)]


def _enrich_project(root: Path | None, markers: list[tuple[str, dict]], now: float) -> dict[str, Any]:
    try:
        settings = load_settings(root)
    except ConfigError as exc:
        return {"waiting": len(markers), "reason": f"settings unreadable: {exc}"}
    if not settings.allowed("enrich") or settings.resolved_backend() == "heuristic":
        for path, _data in markers:
            enrich_queue.done(path)
        why = settings.off.get("enrich") or "no model backend"
        return {"skipped": len(markers), "reason": why}
    from kioku.model.client import unavailable_reason

    reason = unavailable_reason("enrich", settings)
    if reason:
        return {"waiting": len(markers), "reason": reason}
    found, stale = _items_for(markers, root)
    todo: dict[tuple[str, str], Item] = {}
    for item in [i for items in found.values() for i in items] + stale:
        todo.setdefault((item.kind, item.key), item)
    wanting = [s.item for s in targets.states(list(todo.values())) if s.state in ("none", "stale")]
    run = enrich(wanting, settings=settings, project_root=root) if wanting else None
    left = {(item.kind, item.key) for item in (run.left if run else [])}
    waiting = 0
    for path, data in markers:
        keys = {(item.kind, item.key) for item in found.get(path, [])}
        if keys & left and now - float(data.get("at") or now) < MAX_WAIT_S:
            waiting += 1
        else:
            enrich_queue.done(path)
    out: dict[str, Any] = {"enriched": len(run.enriched) if run else 0, "failed": len(run.failed) if run else 0,
                           "calls": run.calls if run else 0, "waiting": waiting}
    if run and run.stopped:
        out["reason"] = run.stopped
    return out


def enrich_wanted(now: float | None = None) -> dict[str, Any]:
    """Enrich what the save paths marked (see the module docstring); a summary of what was done."""
    markers = enrich_queue.pending()
    if not markers:
        return {}
    now = time.time() if now is None else now
    by_root: dict[str, list[tuple[str, dict]]] = {}
    for path, data in markers:
        by_root.setdefault(str(data.get("project_root") or ""), []).append((path, data))
    summary: dict[str, Any] = {"enriched": 0, "failed": 0, "calls": 0, "waiting": 0, "skipped": 0}
    reasons: list[str] = []
    for root, group in by_root.items():
        result = _enrich_project(Path(root) if root else None, group, now)
        for key in ("enriched", "failed", "calls", "waiting", "skipped"):
            summary[key] += int(result.get(key, 0))
        if result.get("reason"):
            reasons.append(str(result["reason"]))
    if reasons:
        summary["reason"] = "; ".join(dict.fromkeys(reasons))
    return summary
