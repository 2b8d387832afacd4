"""Importing an agent-memory export (``kioku.lessons.transfer.exchange``) into an agent's store.

``kioku lessons import PATH [--agent NAME]``: every document passes the secrets check before anything
is written; a file with a secret is refused as a whole. Improvement ids are re-derived for the target
agent (``kioku.lessons.scopes.improvement_id``), so importing twice updates, never duplicates.

- A lesson the target agent does not have yet is added with the exported metadata. Importing
  into a different agent marks own lessons ``source="transferred"`` (not consolidated again)
  with ``original_id``.
- A lesson the target agent already has (the exported id, or the id its text gives) keeps its
  current metadata: lifecycle and evidence (deprecated, decision, promoted, confidence, usage
  and evidence counters) are the store's, however old the export is. The lesson text is the one
  field the export invites editing: an edited text replaces the record (a new id when the
  wording differs beyond case and spacing), keeping that metadata. A text equal to the stored
  one, or to its defanged form (an export printed to standard output), is left unchanged and
  nothing is written.
- Evaluations and performance snapshots are history: only ids not stored yet are added.

Import only adds or updates: a section deleted from the file does not delete anything. New
items below the 0.5 confidence floor are skipped. The report counts new records per
``scope.kind`` (``imported``) and existing lessons ``updated`` and ``unchanged``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import KIND, MIN_CONFIDENCE_STORE, new_metadata, now
from kioku.lessons.transfer.exchange import load_file
from kioku.infra.errors import UsageError

BATCH = 500


def import_data(data: dict[str, Any], agent: str | None = None,
                project_root: Path | None = None) -> dict[str, Any]:
    from kioku.lessons.digest_refresh import refresh_digest
    from kioku.text.secrets import ensure_storable

    source_agent = data.get("agent")
    target = sc.validate_agent(agent or source_agent or "")
    kinds = ("improvements", "evaluations", "performance")
    # all-or-nothing checks before the first write: secrets in any field (text, metadata, tags,
    # reasons), and a lesson's fields by the rules `kioku lessons learn` applies
    for kind in kinds:
        items = data.get(kind, [])
        if not isinstance(items, list):
            raise UsageError(f"imported {kind} must be a list")
        for number, item in enumerate(items, 1):
            if not isinstance(item, dict):
                raise UsageError(f"imported {kind[:-1]} {number} is not an object")
            ensure_storable("\n".join(_strings(item)), what=f"imported {kind[:-1]} {number}")
            if kind == KIND:
                _check_lesson_fields(item, number)
    plan = _Plan()
    for item in _one_item_per_id(data.get(KIND, []), plan, source_agent or target, project_root):
        _plan_improvement(plan, item, source_agent, target, project_root, bool(data.get("printed")))
    for kind in ("evaluations", "performance"):
        _plan_history(plan, kind, data.get(kind, []), target, project_root)
    for (scope, kind), recs in plan.writes.items():
        store = sc.open_scope(scope, project_root)
        for i in range(0, len(recs), BATCH):
            store.upsert(target, kind, recs[i:i + BATCH])
    for scope, ids in plan.replaced.items():  # after the edited copies are safely written
        sc.open_scope(scope, project_root).delete(target, KIND, ids)
    if any(kind == KIND for _scope, kind in plan.writes):
        refresh_digest(target, None, project_root)
    # "renamed": (agent, old id, agent, new id) of edited lessons, whose credit evidence the
    # caller copies to the new id (kioku.learning.evidence.copy_lessons)
    return {"agent": target, "imported": dict(plan.new), "updated": plan.updated, "unchanged": plan.unchanged,
            "skipped": plan.skipped, "renamed": plan.renamed}


def _one_item_per_id(items: list[dict[str, Any]], plan: "_Plan", source_agent: str,
                     project_root: Path | None) -> list[dict[str, Any]]:
    """The imported lessons with each exported id kept by one of them only.

    Copying a lesson's section in an export to write a new one keeps its id comment; the copy,
    read as an edit of that lesson, replaced it. Of the items sharing an id, the one whose text
    is the stored lesson's keeps the id (else the first); the others are new lessons, without
    the evidence and decisions of the lesson they were copied from."""
    by_id: dict[tuple[str, str], list[int]] = {}
    for number, item in enumerate(items):
        old_id = str(item.get("id") or "")
        if old_id:
            scope = item.get("scope") if item.get("scope") in sc.SCOPES else "global"
            by_id.setdefault((scope, old_id), []).append(number)
    out = list(items)
    for (scope, old_id), numbers in by_id.items():
        if len(numbers) < 2:
            continue
        stored = plan.lessons(source_agent, scope, project_root).get(old_id)
        keeper = next((n for n in numbers if stored is not None
                       and _same_text(str(items[n].get("improvement") or "").strip(), stored.document)), numbers[0])
        for n in numbers:
            if n != keeper:
                old_meta = items[n].get("metadata") or {}
                meta = {k: v for k, v in old_meta.items() if k not in _EVIDENCE_FIELDS and k not in _DECISION_FIELDS
                        and not k.startswith(("created_at", "cross_validated_at", "confidence_before_"))}
                befores = [v for k, v in old_meta.items() if k.startswith("confidence_before_")
                           and isinstance(v, (int, float)) and not isinstance(v, bool)]
                if befores and isinstance(meta.get("confidence"), (int, float)):
                    meta["confidence"] = min([float(meta["confidence"]), *map(float, befores)])
                out[n] = {**items[n], "id": "", "metadata": meta}
    return out


_DECISION_FIELDS = ("promoted", "deprecated", "deprecated_reason", "decision", "decision_reason",
                    "cross_validated", "validating_agents")


def _strings(value: Any) -> list[str]:
    """Every string in ``value`` (keys of nested objects included), depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (*_strings(key), *_strings(item))]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return []


def _check_lesson_fields(item: dict[str, Any], number: int) -> None:
    """UsageError unless an imported lesson's scope, category and confidence are ones
    `kioku lessons learn` would accept."""
    where = f"imported improvement {number}"
    if item.get("scope") is not None and item.get("scope") not in sc.SCOPES:
        raise UsageError(f"{where}: scope must be one of {', '.join(sc.SCOPES)}, not {item.get('scope')!r}")
    meta = item.get("metadata") or {}
    if not isinstance(meta, dict):
        raise UsageError(f"{where}: metadata must be an object")
    if meta.get("category") is not None:
        try:
            sc.normalise_category(str(meta["category"]))
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
    if meta.get("confidence") is not None:
        value = meta["confidence"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
            raise UsageError(f"{where}: confidence must be a number from 0 to 1, not {value!r}")
    # every other field Kioku reads back as a number or a yes/no must be one: a stored
    # "usage_count": "lots" failed the dashboard, export and maintenance of the agent for good
    for key, value in meta.items():
        if value is None:
            continue
        if key in _BOOLEAN_FIELDS and not isinstance(value, bool):
            raise UsageError(f"{where}: metadata {key} must be true or false, not {value!r}")
        if (key in _NUMBER_FIELDS or key.endswith("_epoch")) and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
            raise UsageError(f"{where}: metadata {key} must be a number, not {value!r}")
        if not isinstance(value, (str, int, float, bool)):
            raise UsageError(f"{where}: metadata {key} must be a text, a number or true/false, not {value!r}")


_BOOLEAN_FIELDS = frozenset(("tested", "cross_validated", "consolidation_eligible", "deprecated", "promoted"))
_NUMBER_FIELDS = frozenset(("success_rate", "usage_count", "success_count", "turns_given", "turns_held_back",
                            "success_given", "success_held_back", "uplift", "uplift_low", "uplift_high",
                            "effective_given", "effective_held_back", "looks", "confidence_before_promotion",
                            "withdrawn_confidence"))


# Figures computed from an agent's own credited turns (kioku.learning.lifecycle writes them).
_EVIDENCE_FIELDS = ("turns_given", "turns_held_back", "success_given", "success_held_back", "uplift",
                    "uplift_low", "uplift_high", "effective_given", "effective_held_back", "looks",
                    "usage_count", "success_count", "success_rate", "tested", "last_used", "last_used_epoch",
                    "promoted_at", "promoted_at_epoch", "confidence_before_promotion", "looked_at_epoch",
                    "promotion_withdrawn_at", "promotion_withdrawn_at_epoch", "withdrawn_promoted_at",
                    "withdrawn_promoted_at_epoch", "withdrawn_confidence")


class _Plan:
    """What an import writes: records per (scope, kind), ids replaced by edited copies, counts."""

    def __init__(self) -> None:
        self.writes: dict[tuple[str, str], list[Any]] = {}
        self.new: dict[str, int] = {}
        self.replaced: dict[str, list[str]] = {}
        self.updated = 0
        self.unchanged = 0
        self.skipped = 0
        self.claimed: set[tuple[str, str]] = set()  # (scope, id) already written by this import
        self.renamed: list[tuple[str, str, str, str]] = []
        self.when = now()
        self._lessons: dict[tuple[str, str], dict[str, Any]] = {}

    def lessons(self, agent: str, scope: str, project_root: Path | None) -> dict[str, Any]:
        """Every stored lesson of ``agent`` in ``scope`` by id, read once per import."""
        key = (agent, scope)
        if key not in self._lessons:
            found: dict[str, Any] = {}
            if sc.scope_exists(scope, project_root):
                found = {r.id: r for r in sc.open_scope(scope, project_root).get(agent, KIND)}
            self._lessons[key] = found
        return self._lessons[key]

    def write(self, scope: str, kind: str, record: Any, *, new: bool) -> None:
        self.writes.setdefault((scope, kind), []).append(record)
        self.claimed.add((scope, record.id))
        if new:
            self.new[f"{scope}.{kind}"] = self.new.get(f"{scope}.{kind}", 0) + 1


def _same_text(imported: str, stored: str) -> bool:
    """Whether an imported lesson is the stored one unedited: equal, or equal to the defanged
    form that an export printed to standard output shows."""
    from kioku.text.defang import defang

    return imported == stored or imported == defang(stored).strip()


def _plan_improvement(plan: _Plan, item: dict[str, Any], source_agent: str | None, target: str,
                      project_root: Path | None, printed: bool = False) -> None:
    from kioku.lessons.store.client import Record

    iso, epoch = plan.when
    lesson = str(item.get("improvement") or "").strip()
    scope = item.get("scope") if item.get("scope") in sc.SCOPES else "global"
    old_id = str(item.get("id") or "")
    if not lesson:
        plan.skipped += 1
        return
    same_agent = source_agent in (None, target)
    # the exported record as it is stored now (in the agent it was exported from)
    origin = plan.lessons(source_agent or target, scope, project_root).get(old_id)
    if origin is not None and _same_text(lesson, origin.document):
        lesson = origin.document  # unedited: the stored wording, not its printed (defanged) form
    elif printed and origin is not None and "<" in origin.document and "&lt;" not in origin.document:
        # edited in an export printed to standard output, which shows each tag-like "<" of the
        # stored lesson as "&lt;": the edit means "<" (what reaches a model is defanged again).
        # Only then: a lesson stored with "&lt;" (taken from a transcript, or about HTML) keeps it
        from kioku.text.defang import unescape_tags

        lesson = unescape_tags(lesson)
    rec_id = sc.improvement_id(target, scope, lesson)
    found = plan.lessons(target, scope, project_root)
    existing = found.get(old_id) if same_agent and old_id in found else found.get(rec_id)
    if existing is not None:
        # another agent's copy of a lesson this agent has differs at most in case and spacing
        if lesson == existing.document or not same_agent or (scope, rec_id) in plan.claimed:
            plan.unchanged += 1
            return
        if rec_id != existing.id and rec_id in found:
            plan.unchanged += 1  # the edit gives another lesson's text: both stay as they are
            return
        meta = {**(existing.metadata or {}), "updated_at": iso, "updated_at_epoch": epoch}
        plan.write(scope, KIND, Record(id=rec_id, document=lesson, metadata=meta), new=False)
        if rec_id != existing.id:
            plan.replaced.setdefault(scope, []).append(existing.id)
            plan.renamed.append((target, existing.id, target, rec_id))
        plan.updated += 1
        return
    old = dict(item.get("metadata") or {})
    if float(old.get("confidence", 0.0) or 0.0) < MIN_CONFIDENCE_STORE or (scope, rec_id) in plan.claimed:
        plan.skipped += 1
        return
    meta = new_metadata(target, scope, str(old.get("category") or "general"),
                        float(old.get("confidence")), learned_from="import", when=(iso, epoch))
    meta.update(old)
    meta.update(agent_name=target, scope=scope, category=sc.normalise_category(str(old.get("category") or "general")))
    if not same_agent or not old.get("created_at_epoch"):
        # received now (`kioku lessons rollback` removes what an agent received after its time); an
        # agent's own lesson brought back from its export or rollback archive keeps its times
        meta.update(imported_at=iso, imported_at_epoch=epoch)
    if not same_agent:
        meta["original_id"] = old.get("original_id") or old_id
        if meta.get("source", "self") == "self":
            meta.update(source="transferred", consolidation_eligible=False)
        # evidence is about the agent that earned it: for this agent the lesson starts untested
        if old.get("promoted") and isinstance(old.get("confidence_before_promotion"), (int, float)):
            meta["confidence"] = old["confidence_before_promotion"]
        for key in _EVIDENCE_FIELDS:
            meta.pop(key, None)
        if meta.get("deprecated"):  # it stays deprecated: harm shown for one agent is a warning for another
            was = str(old.get("deprecated_reason") or old.get("decision_reason") or "")
            meta.update(promoted=False, decision="", decision_reason=(
                f"deprecated for {source_agent or 'the agent it came from'}" + (f" ({was})" if was else "")
                + "; `kioku lessons restore` tests it here")[:500])
        else:
            meta.update(promoted=False, decision="", decision_reason="transferred from another agent; untested here")
    plan.write(scope, KIND, Record(id=rec_id, document=lesson, metadata=meta), new=True)


def _plan_history(plan: _Plan, kind: str, items: list[dict[str, Any]], target: str,
                  project_root: Path | None) -> None:
    """Evaluations and performance snapshots not stored yet (history is never overwritten)."""
    from kioku.lessons.store.client import Record

    by_scope: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        scope = item.get("scope") if item.get("scope") in sc.SCOPES else "global"
        by_scope.setdefault(scope, []).append(item)
    for scope, rows in by_scope.items():
        ids = [str(item["id"]) for item in rows]
        have: set[str] = set()
        if sc.scope_exists(scope, project_root):
            store = sc.open_scope(scope, project_root)
            for i in range(0, len(ids), BATCH):
                have.update(r.id for r in store.get(target, kind, ids=ids[i:i + BATCH]))
        for item, rec_id in zip(rows, ids):
            if rec_id in have or (scope, rec_id) in plan.claimed:
                continue
            meta = {**(item.get("metadata") or {}), "agent_name": target}
            plan.write(scope, kind, Record(id=rec_id, document=str(item.get("document") or ""), metadata=meta),
                       new=True)


def import_file(path: Path, agent: str | None = None, project_root: Path | None = None) -> dict[str, Any]:
    return import_data(load_file(Path(path)), agent, project_root)
