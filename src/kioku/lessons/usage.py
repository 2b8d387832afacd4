"""Where per-session injection ledgers live, and writing lesson evidence into the store.

- :func:`sessions_dir` / :func:`session_path` (plain strings: the hooks use them): one small
  JSON ledger per session (``<state_dir>/sessions/<safe session id>.json``) that
  ``kioku.learning.ledger`` writes from the hooks (which lessons each turn was given or held
  back from); :func:`prune_sessions` removes old ones (daily maintenance).
- :func:`write_lesson_fields` merges computed evidence fields into improvement records and
  refreshes the hooks' digest, under the per-agent usage lock so concurrent workers never
  interleave a read-modify-write of the same lesson.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # hooks reach this module; typing would cost them milliseconds
    from pathlib import Path
    from typing import Any

from kioku.infra import fsutil, pathstr
from kioku.infra.names import agent_file_stem, safe_name

SESSION_MAX_AGE_DAYS = 14


def sessions_dir() -> str:
    """Where the session ledgers live (a plain string: the every-prompt hook writes there)."""
    return os.path.join(pathstr.state_dir(), "sessions")


def session_path(session_id: str) -> str:
    return os.path.join(sessions_dir(), f"{safe_name(session_id, unique=True)}.json")


def usage_lock(agent: str) -> str:
    return os.path.join(pathstr.state_dir(), "locks", f"usage-{agent_file_stem(agent)}.lock")


def read_lessons(agent: str, by_scope: dict[str, list[str]], project_root: Path) -> dict[str, tuple[str, str, dict]]:
    """id -> (scope, document, metadata) of the given improvement ids (missing ids left out)."""
    from kioku.lessons import scopes as sc
    from kioku.lessons.improvements import KIND

    out: dict[str, tuple[str, str, dict]] = {}
    for scope, ids in by_scope.items():
        if scope not in sc.SCOPES or not ids or not sc.scope_exists(scope, project_root):
            continue
        for rec in sc.open_scope(scope, project_root).get(agent, KIND, ids=sorted(set(ids))):
            out[rec.id] = (scope, rec.document, dict(rec.metadata or {}))
    return out


def write_lesson_fields(agent: str, changes: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]],
                        project_root: Path) -> int:
    """Apply ``id -> (scope, document, old metadata, change)``; refresh the digests; returns count."""
    from kioku.lessons import scopes as sc
    from kioku.lessons.digest_refresh import refresh_digest
    from kioku.lessons.improvements import KIND

    by_scope: dict[str, list[tuple[str, str, dict, dict]]] = {}
    for rec_id, (scope, doc, old, change) in changes.items():
        if change:
            by_scope.setdefault(scope, []).append((rec_id, doc, old, change))
    for scope, rows in by_scope.items():
        store = sc.open_scope(scope, project_root)
        store.update_metadata(agent, KIND, [r[0] for r in rows], [r[3] for r in rows])
        refresh_digest(agent, scope, project_root, changed=[(r[0], r[1], {**r[2], **r[3]}) for r in rows])
    return sum(len(rows) for rows in by_scope.values())


def prune_sessions(max_age_days: float = SESSION_MAX_AGE_DAYS) -> int:
    """Delete session ledgers older than ``max_age_days``; returns how many."""
    return fsutil.prune_old_files(sessions_dir(), (".json", ".lock"), max_age_days)
