"""Which improvements a session was given, and what the session's outcome does to them.

Hook-safe part (standard library only, no chromadb): :func:`record_injection` remembers the ids
injected into a session in ``<state_dir>/sessions/<safe session id>.json`` (atomic write under an
exclusive lock). File shape::

    {"session_id": "...", "project_root": "...",
     "agents": {"<agent>": {"next_seq": 3,
                            "pending": [{"seq": 2, "ids": [...], "scope_map": {"id": "global"}, "at": "..."}],
                            "applied": [{"seqs": [1], "turn": "...", "success": true, "at": "..."}]}}}

:func:`apply_session_outcome` (reaches the store lazily) counts every *pending* injection once:
for each distinct id it adds 1 to ``usage_count``, 1 to ``success_count`` on success, recomputes
``success_rate`` (and sets ``tested``), sets ``last_used``, applies the deprecate/promote rules of
``kioku.agent.stats``, then marks those injections applied. Calling it again (same session, same
turn, or nothing new injected) changes nothing, so a retried job never double counts. Passing
``turn`` makes "once per session+turn" explicit: a turn id already applied is a no-op.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from kioku.core import fsutil, paths

SESSION_MAX_AGE_DAYS = 14


def _safe(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:80].strip("_") or "_"
    return f"{cleaned}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"


def sessions_dir() -> Path:
    return paths.state_dir() / "sessions"


def session_path(session_id: str) -> Path:
    return sessions_dir() / f"{_safe(session_id)}.json"


def _iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save(path: Path, data: dict[str, Any]) -> None:
    fsutil.atomic_write_text(path, json.dumps(data, ensure_ascii=False, sort_keys=True))


def record_injection(session_id: str, agent: str, ids: Iterable[str], scope_map: dict[str, str],
                     *, project_root: Path | str | None = None) -> int:
    """Remember that ``ids`` were injected into ``session_id`` for ``agent``; returns the seq no."""
    ids = [str(i) for i in ids if i]
    if not session_id or not agent or not ids:
        return 0
    path = session_path(session_id)
    root = str(project_root) if project_root else str(paths.find_project_root())
    with fsutil.exclusive_lock(path.with_suffix(".lock"), timeout=10):
        data = _load(path)
        data.setdefault("session_id", session_id)
        data["project_root"] = data.get("project_root") or root
        entry = data.setdefault("agents", {}).setdefault(agent, {"next_seq": 1, "pending": [], "applied": []})
        seq = int(entry.get("next_seq", 1))
        entry["next_seq"] = seq + 1
        entry.setdefault("pending", []).append({
            "seq": seq, "ids": ids, "at": _iso(),
            "scope_map": {i: str(scope_map.get(i, "global")) for i in ids},
        })
        _save(path, data)
    return seq


def injected(session_id: str, agent: str) -> dict[str, str]:
    """Pending (not yet scored) injected ids of a session → scope."""
    entry = _load(session_path(session_id)).get("agents", {}).get(agent, {})
    out: dict[str, str] = {}
    for inj in entry.get("pending", []):
        out.update(inj.get("scope_map", {}))
    return out


def apply_session_outcome(session_id: str, agent: str, success: bool, *, turn: str | None = None,
                          project_root: Path | str | None = None) -> int:
    """Score the session's pending injections; returns how many improvements were updated."""
    path = session_path(session_id)
    if not path.exists():
        return 0
    with fsutil.exclusive_lock(path.with_suffix(".lock"), timeout=60):
        data = _load(path)
        entry = data.get("agents", {}).get(agent)
        if not entry:
            return 0
        if turn is not None and any(a.get("turn") == turn for a in entry.get("applied", [])):
            return 0
        pending = entry.get("pending", [])
        if not pending:
            return 0
        scope_map: dict[str, str] = {}
        for inj in pending:
            scope_map.update(inj.get("scope_map", {}))
        root = Path(project_root or data.get("project_root") or paths.find_project_root())
        updated = update_usage(agent, scope_map, bool(success), root)
        entry["applied"] = (entry.get("applied", []) + [{
            "seqs": [inj.get("seq") for inj in pending], "turn": turn, "success": bool(success),
            "at": _iso(), "updated": updated,
        }])[-200:]
        entry["pending"] = []
        _save(path, data)
    return updated


def update_usage(agent: str, scope_map: dict[str, str], success: bool, project_root: Path) -> int:
    """Add one use (and maybe one success) to each id; deprecate/promote; refresh digests."""
    from kioku.agent import scopes as sc
    from kioku.agent import stats
    from kioku.agent.digest import refresh_digest
    from kioku.agent.improvements import KIND, now

    by_scope: dict[str, list[str]] = {}
    for rec_id, scope in scope_map.items():
        by_scope.setdefault(scope if scope in sc.SCOPES else "global", []).append(rec_id)
    iso, epoch = now()
    updated = 0
    # one writer at a time per agent: read-modify-write of counters must not lose increments
    lock = paths.state_dir() / "locks" / f"usage-{sc.safe_name(agent)}.lock"
    with fsutil.exclusive_lock(lock, timeout=120):
        for scope, ids in by_scope.items():
            if not sc.scope_exists(scope, project_root):
                continue
            store = sc.open_scope(scope, project_root)
            records = store.get(agent, KIND, ids=sorted(set(ids)))
            if not records:
                continue
            new_ids, metas, changed = [], [], []
            for rec in records:
                meta = dict(rec.metadata or {})
                uses = int(meta.get("usage_count", 0) or 0) + 1
                wins = int(meta.get("success_count", 0) or 0) + (1 if success else 0)
                change = {"usage_count": uses, "success_count": wins,
                          "success_rate": round(wins / uses, 4), "tested": True,
                          "last_used": iso, "last_used_epoch": epoch}
                merged = {**meta, **change}
                change.update(stats.policy_changes(merged, iso, epoch))
                new_ids.append(rec.id)
                metas.append(change)
                changed.append((rec.id, rec.document, {**meta, **change}))
            store.update_metadata(agent, KIND, new_ids, metas)
            refresh_digest(agent, scope, project_root, changed=changed)
            updated += len(new_ids)
    return updated


def prune_sessions(max_age_days: float = SESSION_MAX_AGE_DAYS) -> int:
    """Delete session records older than ``max_age_days``; returns how many."""
    return fsutil.prune_old_files(sessions_dir(), (".json", ".lock"), max_age_days)
