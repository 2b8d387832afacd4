"""Deprecate a lesson by hand, or bring it back: one function for ``kioku lessons restore`` and the UI.

:func:`set_deprecated` writes the same fields whoever asks, so the CLI, the Agents view and the
HTML report agree on a lesson's state afterwards:

- deprecate: ``deprecated=True``, ``deprecated_reason``, ``deprecated_at`` (+ epoch),
  ``decision="deprecated"`` and ``decision_reason``;
- restore: ``deprecated=False``, ``deprecated_reason=""``, ``deprecated_at=""`` (epoch 0.0),
  ``restored_at`` (+ epoch), ``decision`` set to the state the lesson has without the
  deprecation (``kioku.lessons.stats.decision_of``: active, promoted or candidate) and
  ``decision_reason``. Its evidence is kept; new turns decide anew.

The change is a journaled metadata update in every scope that holds the lesson, made under the
agent's usage lock (so it never interleaves with a lifecycle refresh of the same lesson), then
the hooks' digest is refreshed, so injection stops or starts at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from kioku.infra.errors import KiokuError


class LessonNotFound(KiokuError):
    """No scope holds the lesson; nothing was changed."""


class AlreadyInState(KiokuError):
    """(``strict``) the lesson is already deprecated, or already active; nothing was changed."""


def set_deprecated(agent: str, lesson_id: str, deprecated: bool, project_root: Path | None = None, *,
                   reason: str | Callable[[dict[str, Any]], str], strict: bool = False) -> tuple[str, str]:
    """Mark ``lesson_id`` of ``agent`` deprecated (or active again); returns the lesson's text
    and the state it is in now (deprecated, or active, promoted or candidate when restored).

    ``reason`` is recorded as ``decision_reason`` (and ``deprecated_reason`` when deprecating); a
    callable gets the lesson's metadata first, to mention what it replaces. Raises KiokuError when
    no scope holds the lesson, and with ``strict`` also when none holds it in the other state
    (restoring a lesson that is not deprecated): :class:`LessonNotFound` and :class:`AlreadyInState`.
    """
    from kioku.lessons import scopes as sc
    from kioku.lessons import stats, usage
    from kioku.lessons.digest_refresh import refresh_digest
    from kioku.lessons.improvements import KIND, now
    from kioku.infra import fsutil

    agent = sc.validate_agent(agent)
    iso, epoch = now()
    found: list[tuple[str, Any]] = []
    state = "deprecated"
    with fsutil.exclusive_lock(usage.usage_lock(agent), timeout=120):
        for scope in sc.existing_scopes(project_root):
            records = sc.open_scope(scope, project_root).get(agent, KIND, ids=[lesson_id])
            if records:
                found.append((scope, records[0]))
        if not found:
            raise LessonNotFound(f"agent {agent!r} has no lesson {lesson_id!r}; nothing was changed")
        found += twins_of(agent, found, project_root)
        todo = [(s, r) for s, r in found if bool((r.metadata or {}).get("deprecated", False)) != deprecated]
        if strict and not todo:
            state = "deprecated" if deprecated else "active"
            raise AlreadyInState(f"lesson {lesson_id!r} of {agent!r} is already {state}; nothing was changed")
        for scope, record in todo or found:
            meta = dict(record.metadata or {})
            why = reason(meta) if callable(reason) else reason
            if deprecated:
                change: dict[str, Any] = {
                    "deprecated": True, "deprecated_reason": why, "deprecated_at": iso,
                    "deprecated_at_epoch": epoch, "decision": "deprecated", "decision_reason": why}
            else:
                change = {"deprecated": False, "deprecated_reason": "", "deprecated_at": "",
                          "deprecated_at_epoch": 0.0, "restored_at": iso, "restored_at_epoch": epoch,
                          "decision_reason": why}
                change["decision"] = state = stats.decision_of({**meta, **change})
            sc.open_scope(scope, project_root).update_metadata(agent, KIND, [record.id], [change])
            refresh_digest(agent, scope, project_root, changed=[(record.id, record.document, {**meta, **change})])
    return found[0][1].document, state


TWIN_WINDOW_S = 60.0  # one ``kioku lessons learn`` writes its copies for both scopes within seconds


BOTH_SCOPES = "project + global"


def one_per_lesson(found: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``(scope, record)`` pairs (``all_improvements``' order) with the two copies one ``kioku
    learn`` wrote of a lesson into both scopes (the same text, written at once: :func:`twins_of`)
    as one pair when they are in the same state: the copy with more credited turns (the one the
    hooks give, as the digest picks it; the project one on a tie), its scope :data:`BOTH_SCOPES`.
    Deprecating or restoring it changes both. Copies in different states (one deprecated before
    the lifecycle deprecated both together) stay two pairs, so the one still given is seen."""
    from kioku.lessons.stats import epoch_of

    def turns(record: Any) -> int:
        meta = record.metadata or {}
        return sum(int(meta.get(k, 0) or 0) for k in ("turns_given", "turns_held_back"))

    def deprecated(record: Any) -> bool:
        return bool((record.metadata or {}).get("deprecated"))

    kept: list[list[Any]] = []
    by_text: dict[str, list[list[Any]]] = {}
    for scope, record in found:
        key = str(record.document or "")
        created = epoch_of((record.metadata or {}).get("created_at_epoch"))
        twin = next((k for k in by_text.get(key, []) if k[0] != scope and k[0] != BOTH_SCOPES
                     and written_together(k[2], created) and deprecated(k[1]) == deprecated(record)), None)
        if twin is None:
            entry = [scope, record, created]
            by_text.setdefault(key, []).append(entry)
            kept.append(entry)
            continue
        if turns(record) > turns(twin[1]):
            twin[1] = record
        twin[0] = BOTH_SCOPES
    return [(scope, record) for scope, record, _created in kept]


def written_together(a: float, b: float) -> bool:
    """Whether two copies of a lesson's text were written by the same ``kioku lessons learn`` call."""
    return bool(a) and bool(b) and abs(a - b) <= TWIN_WINDOW_S


def twins_of(agent: str, found: list[tuple[str, Any]], project_root: Path | None) -> list[tuple[str, Any]]:
    """The copies one ``kioku lessons learn`` wrote of the same lesson into the other scope (a category
    stored in both scopes gets one record in each, with ids of their own): the same text, written
    at the same time. A lesson deprecated in one scope only would still be injected from the other."""
    from kioku.lessons import scopes as sc
    from kioku.lessons.improvements import KIND
    from kioku.lessons.stats import epoch_of

    scope, record = found[0]
    created = epoch_of((record.metadata or {}).get("created_at_epoch"))
    if not created:
        return []
    held = {s for s, _ in found}
    twins: list[tuple[str, Any]] = []
    for other in sc.existing_scopes(project_root):
        if other in held:
            continue
        for candidate in sc.open_scope(other, project_root).get(agent, KIND):
            if candidate.document == record.document \
                    and written_together(epoch_of((candidate.metadata or {}).get("created_at_epoch")), created):
                twins.append((other, candidate))
    return twins

