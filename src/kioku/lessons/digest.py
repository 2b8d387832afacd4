"""A small JSON digest of an agent's best active improvements, for hooks (read side stdlib only).

Hooks must not import chromadb (0.6 s), so the store keeps a derived file per agent and scope:
``<chroma_dir>/digests/<agent_file_stem(agent)>.json`` (global chroma dir and the project's
``.claude/chroma_data``)::

    {"agent": "...", "scope": "global", "updated_at": "...", "complete": true,
     "entries": [{"id", "improvement", "confidence", "success_rate", "tested", "category", "scope",
                  "cross_validated", "usage_count", "wilson_lower", "score"}, ...]}

At most :data:`MAX_ENTRIES` entries: every active lesson up to that many, promoted lessons
first, then by ``kioku.lessons.stats.digest_score`` (its docstring defines the score, including
what an untested lesson gets). Each entry also carries the lesson's learning ``decision``
(``kioku.learning.lifecycle``). Hooks use the first few as the fallback list when no task text
is known, and the whole file as the pool that task-relevant selection draws from
(``kioku.learning.select``), so it holds more than a hook ever injects.

No secret is written into a digest: :func:`_write` passes every entry's text through the
secret filter. ``kioku.lessons.digest_refresh.refresh_digest`` rewrites a digest after every improvement write,
usage update and maintenance run. :func:`read_digest` merges project and global digests, the project copy of a
lesson winning, and never raises; a digest file it cannot read is listed in :data:`last_damaged`
(SessionStart sets it aside and queues its rebuild from the store for the worker).

File names: ``kioku.infra.names.agent_file_stem`` gives every valid agent name its own file (``a`` and ``a.``, or
``a..b`` and ``a_b``, never share one), and :func:`read_digest` ignores a file whose ``agent``
field is not the agent asked for. A digest written under the earlier naming
(``kioku.infra.names.safe_name``) is still read when it names the same agent, until the next
refresh writes the current file and removes it. :func:`rebuild_store_digests` rewrites every
digest of a store after it was rebuilt from its journal.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # hooks read digests; typing, pathlib and datetime would cost them milliseconds
    from pathlib import Path
    from typing import Any

from kioku.infra import clock, fastjson, fsutil, pathstr
from kioku.infra.names import agent_file_stem, normalise_lesson, safe_name

MAX_ENTRIES = 200
# digest files that were there but could not be read as a digest, since the last read_digest
# (SessionStart sets them aside and has the worker rebuild them from the store)
last_damaged: list[str] = []


def _chroma_base(scope: str, project_root: Path | str | None) -> str:
    return pathstr.global_chroma_dir() if scope == "global" else pathstr.project_chroma_dir(project_root)


def digest_path(agent: str, scope: str, project_root: Path | str | None = None) -> str:
    """Where the digest of ``agent`` in ``scope`` lives (a plain string: the hooks read it)."""
    return os.path.join(_chroma_base(scope, project_root), "digests", f"{agent_file_stem(agent)}.json")


def _legacy_path(agent: str, scope: str, project_root: Path | str | None) -> str:
    """Where the earlier naming kept the digest of ``agent`` (shared by names like ``a`` and ``a.``)."""
    return os.path.join(_chroma_base(scope, project_root), "digests", f"{safe_name(agent)}.json")


def _load_for(agent: str, scope: str, project_root: Path | str | None) -> dict[str, Any] | None:
    """The digest of ``agent`` in ``scope``: the current file, else one under the earlier naming;
    a file written for another agent is ignored."""
    path = digest_path(agent, scope, project_root)
    data = _load(path)
    if data is None:
        legacy = _legacy_path(agent, scope, project_root)
        data = _load(legacy) if legacy != path else None
    if data is None or data.get("agent") != agent:
        return None
    return data


def _load(path: str) -> dict[str, Any] | None:
    """The digest in ``path``; None when there is none or it is damaged (then listed in
    :data:`last_damaged`)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = fastjson.loads(handle.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("entries", []), list):
        if path not in last_damaged:
            last_damaged.append(path)
        return None
    return data


def read_digest(agent: str, project_root: Path | str | None = None, limit: int = MAX_ENTRIES) -> list[dict]:
    """Top active improvements of ``agent`` from both scopes (one entry per lesson: the copy with
    more credited turns, the project one when they have as many)."""
    merged: dict[str, dict] = {}
    last_damaged.clear()
    for scope in ("project", "global"):
        try:
            data = _load_for(agent, scope, project_root) or {}
            entries = data.get("entries")
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict) or not isinstance(entry.get("improvement"), str):
                    continue
                score = entry.get("score", 0.0)
                entry = {**entry, "scope": scope,
                         "score": float(score) if isinstance(score, (int, float)) else 0.0}
                key = normalise_lesson(entry["improvement"])
                turns = entry.get("turns", 0) if isinstance(entry.get("turns"), int) else 0
                known = merged.get(key)
                # one entry per lesson: the copy with more credited turns, else the project one
                if known is None or turns > (known.get("turns", 0) if isinstance(known.get("turns"), int) else 0):
                    merged[key] = entry
        except (OSError, ValueError, TypeError):
            continue  # a damaged digest must never break a hook; the next refresh rewrites it
    ranked = sorted(merged.values(), key=lambda e: (0 if e.get("decision") == "promoted" else 1, -e["score"],
                                                    0 if e["scope"] == "project" else 1))
    return ranked[: max(0, int(limit))]


def texts_by_id(agent: str, project_root: Path | str | None = None) -> dict[str, str]:
    """Lesson id -> lesson text for every entry of the agent's digests, both scopes (never raises)."""
    out: dict[str, str] = {}
    for scope in ("project", "global"):
        try:
            entries = (_load_for(agent, scope, project_root) or {}).get("entries")
        except (OSError, ValueError, TypeError):
            continue
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("improvement"), str):
                out[entry["id"]] = entry["improvement"]
    return out


def _entry(rec_id: str, document: str, meta: dict[str, Any], scope: str) -> dict[str, Any]:
    from kioku.lessons import stats

    return {
        "id": rec_id, "improvement": document, "scope": scope,
        "confidence": float(meta.get("confidence", 0.0)),
        "success_rate": float(meta.get("success_rate", -1.0)),
        "tested": stats.is_tested(meta),
        "category": str(meta.get("category", "")),
        "cross_validated": bool(meta.get("cross_validated", False)),
        "usage_count": int(meta.get("usage_count", 0) or 0),
        "wilson_lower": stats.wilson_of(meta),
        "score": stats.digest_score(meta),
        "decision": stats.decision_of(meta),
        "turns": int(meta.get("turns_given", 0) or 0) + int(meta.get("turns_held_back", 0) or 0),
        **{k: v for k, v in stats.lesson_evidence(meta).items() if k in ("uplift", "uplift_low", "uplift_high")},
    }


def _write(path: str, agent: str, scope: str, entries: list[dict], complete: bool) -> None:
    """Write one digest file atomically (best entries first, at most MAX_ENTRIES). Lock held.
    Every entry's text passes the secret filter (``redact_derived``): a digest is injected into
    other sessions and projects, whatever the store held."""
    import json

    from kioku.text.secrets import redact_value

    entries = [redact_value(e, keep=lambda key: key == "id") for e in entries]
    entries.sort(key=lambda e: (0 if e.get("decision") == "promoted" else 1, -e["score"], e["id"]))
    if len(entries) > MAX_ENTRIES:
        complete = False  # something below the cut exists; removals leave gaps until rebuild
    data = {"agent": agent, "scope": scope, "complete": complete, "updated_at": clock.iso_offset(),
            "entries": entries[:MAX_ENTRIES]}
    fsutil.atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1))


def _drop_legacy(agent: str, path: str, legacy: str) -> None:
    """Remove ``agent``'s digest under the earlier naming once the current file exists."""
    if legacy == path or not os.path.exists(legacy) or not os.path.exists(path):
        return
    with fsutil.exclusive_lock(os.path.splitext(legacy)[0] + ".lock", timeout=60):
        data = _load(legacy)
        if data is not None and data.get("agent") == agent:
            try:
                os.unlink(legacy)
            except FileNotFoundError:
                pass


def rebuild_store_digests(store: Any, agents: set[str] | None = None) -> int:
    """Rewrite the digest of ``agents`` (every agent of ``store`` when None) from its records:
    after the store was rebuilt from its journal, or writes were applied after their command
    ended. Returns how many were written."""
    from kioku.lessons import stats

    scope = "project" if store.project_id else "global"
    folder = os.path.join(str(store.chroma_dir), "digests")
    written = 0
    for agent in sorted(agents) if agents is not None else store.agents():
        path = os.path.join(folder, f"{agent_file_stem(agent)}.json")
        entries = [_entry(r.id, r.document, r.metadata or {}, scope)
                   for r in store.get(agent, "improvements") if stats.is_active(r.metadata or {})]
        # never wait: a writer holding the lock (possibly this process, one call up) writes it anyway
        with fsutil.try_lock(os.path.splitext(path)[0] + ".lock") as got:
            if got:
                _write(path, agent, scope, entries, True)
                written += 1
    return written
