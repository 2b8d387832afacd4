"""Deprecate or restore one lesson by hand (the Agents view's buttons).

The change is a metadata update through ``AgentStore.update_metadata`` (journaled, locked,
applied idempotently, like every agent-memory write), followed by a digest refresh so the
hooks stop (or start again) injecting the lesson at once. The reason is recorded in
``decision_reason`` and ``deprecated_reason`` so the lesson's history says a person decided.
"""

from __future__ import annotations

from pathlib import Path

from kioku.core.errors import KiokuError

MANUAL_DEPRECATE_REASON = "deprecated by hand in kioku ui"
MANUAL_RESTORE_REASON = "restored by hand in kioku ui"


def set_deprecated(agent: str, lesson_id: str, deprecated: bool, project_root: Path | None = None) -> str:
    """Mark ``lesson_id`` deprecated (or active again) in every scope that holds it; returns the lesson."""
    from kioku.agent import scopes as sc
    from kioku.agent.digest import refresh_digest
    from kioku.agent.improvements import KIND, now

    agent = sc.validate_agent(agent)
    iso, epoch = now()
    document = ""
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        records = store.get(agent, KIND, ids=[lesson_id])
        if not records:
            continue
        record = records[0]
        document = record.document
        if deprecated:
            change = {"deprecated": True, "deprecated_reason": MANUAL_DEPRECATE_REASON, "deprecated_at": iso,
                      "deprecated_at_epoch": epoch, "decision": "deprecated",
                      "decision_reason": MANUAL_DEPRECATE_REASON}
        else:
            change = {"deprecated": False, "deprecated_reason": "", "decision": "active",
                      "decision_reason": MANUAL_RESTORE_REASON}
        store.update_metadata(agent, KIND, [lesson_id], [change])
        refresh_digest(agent, scope, project_root, changed=[(lesson_id, document, {**record.metadata, **change})])
    if not document:
        raise KiokuError(f"agent {agent!r} has no lesson {lesson_id!r}; nothing was changed")
    return document
