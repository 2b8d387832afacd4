"""Keeping an agent's digest files in step with the store (``kioku.lessons.digest`` is the format).

:func:`refresh_digest` is called after every improvement write, usage update and maintenance run.
With ``changed`` it updates just those entries (cheap); without it (or when no digest exists yet)
it rebuilds from the store. An incremental update can only drop entries, never miss a better one,
except that removing an entry from a full digest leaves a gap that the next daily maintenance
(full rebuild) fills.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from kioku.infra import fsutil
from kioku.lessons import scopes as sc
from kioku.lessons import stats
from kioku.lessons.digest import _drop_legacy, _entry, _legacy_path, _load, _write, digest_path


def refresh_digest(agent: str, scope: str | None = None, project_root: Path | None = None, *,
                   changed: Iterable[tuple[str, str, dict]] | None = None) -> None:
    """Rewrite the digest(s) of ``agent``; ``changed`` = (id, document, full metadata) updates."""
    for scope_name in ([scope] if scope else list(sc.SCOPES)):
        path = digest_path(agent, scope_name, project_root)
        with fsutil.exclusive_lock(os.path.splitext(path)[0] + ".lock", timeout=60):
            current = _load(path) if changed is not None else None
            if current is not None and current.get("agent") != agent:
                current = None  # written for another agent: rebuilt from the store instead
            if current is None:
                if not sc.scope_exists(scope_name, project_root):
                    continue
                store = sc.open_scope(scope_name, project_root)
                entries = [_entry(r.id, r.document, r.metadata or {}, scope_name)
                           for r in store.get(agent, "improvements") if stats.is_active(r.metadata or {})]
                complete = True
            else:
                by_id = {e["id"]: e for e in current.get("entries", []) if isinstance(e, dict)}
                complete = bool(current.get("complete", False))
                for rec_id, document, meta in changed or ():
                    by_id.pop(rec_id, None)
                    if stats.is_active(meta):
                        by_id[rec_id] = _entry(rec_id, document, meta, scope_name)
                entries = list(by_id.values())
            _write(path, agent, scope_name, entries, complete)
        _drop_legacy(agent, path, _legacy_path(agent, scope_name, project_root))


def rebuild_digests_job(job: dict, **_options: object) -> dict:
    """The worker's ``rebuild_digests`` job (queued by SessionStart when it found a digest
    damaged): rebuild the agent's digests of both scopes from the store."""
    from kioku.infra import paths

    agent = sc.validate_agent(str(job.get("agent") or ""))
    root = Path(job["project_root"]) if job.get("project_root") else paths.find_project_root()
    rebuilt = []
    for scope_name in sc.SCOPES:
        if sc.scope_exists(scope_name, root):
            refresh_digest(agent, scope_name, root)
            rebuilt.append(scope_name)
    return {"status": "digests rebuilt", "agent": agent, "scopes": rebuilt}
