"""Deprecate or restore one lesson by hand (the Agents view's buttons).

``kioku.lessons.lesson_state.set_deprecated`` makes the change (a journaled metadata update,
then a digest refresh so the hooks stop or start injecting the lesson at once), the same one
``kioku lessons restore`` makes. The reason is recorded in ``decision_reason`` (and
``deprecated_reason``) so the lesson's history says a person decided.
"""

from __future__ import annotations

from pathlib import Path

MANUAL_DEPRECATE_REASON = "deprecated by hand in kioku ui"
MANUAL_RESTORE_REASON = "restored by hand in kioku ui"


def set_deprecated(agent: str, lesson_id: str, deprecated: bool, project_root: Path | None = None) -> str:
    """Mark ``lesson_id`` deprecated (or active again) in every scope that holds it; returns the
    lesson. The same change as ``kioku lessons restore`` (``kioku.lessons.lesson_state``), with the UI's reason."""
    from kioku.lessons.lesson_state import set_deprecated as change_state

    # strict: a stale page or a second click must not report a change that was not made
    return change_state(agent, lesson_id, deprecated, project_root, strict=True,
                        reason=MANUAL_DEPRECATE_REASON if deprecated else MANUAL_RESTORE_REASON)[0]
