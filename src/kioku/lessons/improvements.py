"""Learned improvements: record schema, store rules, and writing lessons (:func:`learn`).

Schema of one improvement record (collection ``agent_{name}[_project_{id}]_improvements``):

- document: the lesson itself (what retrieval searches);
- id: ``imp_`` + sha256(agent, scope, normalised lesson) (see ``kioku.lessons.scopes``), so learning
  the same lesson again updates the record (confidence = max, tags merged, usage kept);
- metadata (Chroma rejects ``None``, so "unknown" is always explicit):
  ``agent_name, category, learned_from, scope, confidence`` (0-1),
  ``success_rate`` (-1.0 while untested) + ``tested`` (bool), ``usage_count`` / ``success_count``
  (ints, 0 when never used), ``last_used`` ("" when never used) + ``last_used_epoch`` (0.0),
  ``created_at`` / ``updated_at`` (ISO-8601 UTC) + ``*_epoch`` float twins for range filters,
  ``tags`` / ``context_tags`` / ``validating_agents`` (comma-joined strings, "" when none),
  ``cross_validated`` (bool), ``source`` (self | system_principles | transferred),
  ``original_id`` ("" unless copied from another record), ``consolidation_eligible`` (bool),
  ``deprecated`` (bool) + ``deprecated_reason`` (""), ``promoted`` (bool).

Store rules (:func:`check_store_rule`): confidence < 0.5 is always refused; confidence >= 0.7 is
stored (a clear lesson, a user's feedback or a new pattern); 0.5 <= confidence < 0.7 is stored only
when ``learned_from == "user_feedback"`` (the user said it, which is evidence on its own) or
``"consolidation"`` (a principle validated by >= 2 other agents, stored at their confidence × 0.9)
and then only as a *candidate*: retrieval injects nothing below 0.7, so it waits until it is re-learned with
higher confidence (re-learning keeps the maximum) or cross-validated by consolidation.
The secrets check runs before anything is journaled: a lesson a person gives with a secret in it
is refused; one Kioku derived itself (:data:`DERIVED`) is kept with the secret redacted.

Retrieval (search, ranking, the relevance cut-offs) is ``kioku.lessons.lesson_retrieval``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from kioku.infra import clock
from kioku.lessons import scopes as sc
from kioku.infra.errors import UsageError

KIND = "improvements"
MIN_CONFIDENCE_STORE = 0.5
MIN_CONFIDENCE_ACTIVE = 0.7
MAX_LESSON_CHARS = 2000
LEARNED_FROM = ("manual", "user_feedback", "self_evaluation", "new_pattern", "consolidation",
                "import", "transfer")
SOURCES = ("self", "system_principles", "transferred")
# Lessons Kioku words itself (from a transcript, or from other lessons): a secret in one is
# redacted and the lesson kept; one a person gives is refused instead
DERIVED = ("self_evaluation", "consolidation", "transfer")
# what the last learn() in this process has to tell besides the ids (a retry found its first
# attempt; the lesson waits in the journal; the hooks' digest is refreshed later)
last_learn_notes: list[str] = []


def now() -> tuple[str, float]:
    """(ISO-8601 UTC string, epoch seconds) for one instant."""
    return clock.stamp()


def join_tags(tags: Iterable[str] | str | None) -> str:
    if tags is None:
        return ""
    items = tags.split(",") if isinstance(tags, str) else list(tags)
    out: list[str] = []
    for tag in items:
        t = str(tag).strip()
        if t and t not in out:
            out.append(t)
    return ",".join(out)


def split_tags(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if str(v)]
    return [t for t in str(value or "").split(",") if t]


def check_store_rule(confidence: float, learned_from: str) -> None:
    """Raise UsageError when the store rules (module docstring) refuse this lesson."""
    if not 0.0 <= confidence <= 1.0:
        raise UsageError(f"confidence must be between 0 and 1, got {confidence}")
    if confidence < MIN_CONFIDENCE_STORE:
        raise UsageError(
            f"not stored: confidence {confidence:.2f} is below the floor of {MIN_CONFIDENCE_STORE}"
        )
    if confidence < MIN_CONFIDENCE_ACTIVE and learned_from not in ("user_feedback", "consolidation"):
        raise UsageError(
            f"not stored: confidence {confidence:.2f} < {MIN_CONFIDENCE_ACTIVE} is only accepted for "
            f"lessons learned from user feedback (--from user_feedback)"
        )


def new_metadata(agent: str, scope: str, category: str, confidence: float, *, learned_from: str,
                 tags: str = "", context_tags: str = "", source: str = "self",
                 original_id: str = "", when: tuple[str, float] | None = None) -> dict[str, Any]:
    iso, epoch = when or now()
    return {
        "agent_name": agent, "category": category, "learned_from": learned_from, "scope": scope,
        "confidence": round(float(confidence), 4),
        "success_rate": -1.0, "tested": False, "usage_count": 0, "success_count": 0,
        "created_at": iso, "created_at_epoch": epoch, "updated_at": iso, "updated_at_epoch": epoch,
        "last_used": "", "last_used_epoch": 0.0,
        "tags": tags, "context_tags": context_tags,
        "cross_validated": False, "validating_agents": "", "source": source,
        "original_id": original_id,
        # transferred principles are not consolidated again (they would echo back and forth)
        "consolidation_eligible": source == "self",
        "deprecated": False, "deprecated_reason": "", "promoted": False,
    }


def learn(agent: str, lesson: str, category: str, confidence: float, tags: Sequence[str] | str = (),
          scope: str = "auto", learned_from: str = "manual", project_root: Path | None = None, *,
          context_tags: Sequence[str] | str = (), source: str = "self", original_id: str = "",
          extra_metadata: dict[str, Any] | None = None) -> list[str]:
    """Store one lesson (in one or both scopes) and return the ids written."""
    from kioku.text.defang import strip_controls
    from kioku.text.secrets import ensure_storable, redact_derived

    agent = sc.validate_agent(agent)
    lesson = strip_controls(lesson or "").strip()
    if not lesson:
        raise UsageError("the lesson is empty")
    if len(lesson) > MAX_LESSON_CHARS:
        raise UsageError(f"the lesson is longer than {MAX_LESSON_CHARS} characters; state it shorter")
    category = sc.normalise_category(category)
    if learned_from not in LEARNED_FROM:
        raise UsageError(f"learned_from must be one of {', '.join(LEARNED_FROM)}")
    if source not in SOURCES:
        raise UsageError(f"source must be one of {', '.join(SOURCES)}")
    try:
        confidence = float(confidence)
    except (TypeError, ValueError):
        raise UsageError(f"confidence must be a number, got {confidence!r}") from None
    if learned_from == "self_evaluation":
        from kioku.text.defang import defang

        lesson = defang(lesson)  # taken from a transcript: stored already inert, not only at injection
    if learned_from in DERIVED:
        # text Kioku derived itself (from a transcript, or folded from other lessons) keeps its
        # lesson without the secret; a tag that held one names nothing and is dropped
        lesson = redact_derived(lesson)
        tags = [t for t in split_tags(join_tags(tags)) if redact_derived(t) == t]
        context_tags = [t for t in split_tags(join_tags(context_tags)) if redact_derived(t) == t]
    tag_str, ctx_str = join_tags(tags), join_tags(context_tags)
    # secrets first: nothing reaches the journal if any part looks like a credential (a lesson a
    # person gave is refused, and they are told)
    ensure_storable("\n".join((lesson, tag_str, ctx_str)), what="improvement")
    check_store_rule(confidence, learned_from)
    last_learn_notes.clear()
    ids: list[str] = []
    for scope_name in sc.scopes_for(category, scope, lesson):
        ids.append(_write_one(agent, scope_name, lesson, category, confidence, learned_from,
                              tag_str, ctx_str, source, original_id, extra_metadata, project_root))
    return ids


def _write_one(agent: str, scope: str, lesson: str, category: str, confidence: float,
               learned_from: str, tags: str, ctx: str, source: str, original_id: str,
               extra: dict[str, Any] | None, project_root: Path | None) -> str:
    from kioku.lessons.store.client import Record
    from kioku.lessons.digest_refresh import refresh_digest

    store = sc.open_scope(scope, project_root)
    rec_id = sc.improvement_id(agent, scope, lesson)
    key = sc.request_key(agent, scope, lesson, category, confidence, tags, ctx, learned_from, source,
                         original_id, extra or {})
    existing = _existing(store, agent, rec_id)
    iso, epoch = now()
    if existing:
        lesson, old = existing  # the first wording stays; only metadata is merged
        merged_tags = join_tags(split_tags(old.get("tags")) + split_tags(tags))
        merged_ctx = join_tags(split_tags(old.get("context_tags")) + split_tags(ctx))
        update = {"confidence": round(max(float(old.get("confidence", 0.0)), confidence), 4),
                  "tags": merged_tags, "context_tags": merged_ctx,
                  "updated_at": iso, "updated_at_epoch": epoch, **(extra or {})}
        if old.get("promoted") and isinstance(old.get("confidence_before_promotion"), (int, float)):
            # the confidence a withdrawn or rolled-back promotion returns to keeps what was learned since
            update["confidence_before_promotion"] = round(max(float(old["confidence_before_promotion"]), confidence), 4)
        store.update_metadata(agent, KIND, [rec_id], [update], request_key=key)
        meta = {**old, **update}
    else:
        meta = new_metadata(agent, scope, category, confidence, learned_from=learned_from, tags=tags,
                            context_tags=ctx, source=source, original_id=original_id,
                            when=(iso, epoch))
        meta.update(extra or {})
        meta.update(_deprecation_elsewhere(agent, scope, lesson, project_root))
        store.upsert(agent, KIND, [Record(id=rec_id, document=lesson, metadata=meta)], request_key=key)
        _want_enrichment(agent, scope, rec_id, project_root)
    if store.last_write_repeated:  # a retry: its first attempt is in the journal already
        last_learn_notes.append(f"{rec_id} was saved by an earlier identical request; not written again")
        return rec_id
    if store.pending():
        why = f" ({store.last_warning})" if store.last_warning else ""
        last_learn_notes.append(f"{rec_id} is saved in the journal and is applied to the store at the next sync "
                                f"(`kioku store sync`, or any agent-memory command once the store can be written){why}")
    try:
        refresh_digest(agent, scope, project_root, changed=[(rec_id, lesson, meta)])
    except OSError as exc:  # saved: the digest is derived, and applying the journal rebuilds it
        last_learn_notes.append(f"the lessons digest that sessions start with was not refreshed ({exc}); "
                                "it is rebuilt when the journal is applied")
    return rec_id


def _want_enrichment(agent: str, scope: str, rec_id: str, project_root: Path | None) -> None:
    """Mark a new lesson as waiting for its search enrichment (the worker writes it, if a model may)."""
    from kioku.infra import enrich_queue, pathstr

    root = str(project_root) if project_root else pathstr.find_project_root()
    enrich_queue.want("lesson", rec_id, f"{scope}:{root}", agent=agent, scope=scope, project_root=root)


# What another copy of a lesson takes over when the lesson is deprecated: the decision, not the evidence
DEPRECATION_FIELDS = ("deprecated", "deprecated_reason", "deprecated_at", "deprecated_at_epoch", "decision_reason")


def _deprecation_elsewhere(agent: str, scope: str, lesson: str, project_root: Path | None) -> dict[str, Any]:
    """The deprecation of the same lesson in the other scope, for its new copy in ``scope``:
    learning a deprecated lesson again, into the other scope, brought it back (active, and
    injected) while `kioku lessons learn` said it stayed deprecated (and names each copy to restore)."""
    for other in sc.SCOPES:
        if other == scope or not sc.scope_exists(other, project_root):
            continue
        try:
            found = _existing(sc.open_scope(other, project_root), agent, sc.improvement_id(agent, other, lesson))
        except Exception:  # noqa: BLE001 - an unreadable other scope must not block learning
            continue
        if found and found[1].get("deprecated") is True:
            return {k: found[1][k] for k in DEPRECATION_FIELDS if k in found[1]}
    return {}


def _existing(store: Any, agent: str, rec_id: str) -> tuple[str, dict[str, Any]] | None:
    """(document, metadata) already stored under ``rec_id``, or None.

    Read from Chroma; if Chroma cannot be read, from the journal, which holds the same
    records (writes are acknowledged once journaled and applied when Chroma works again).
    """
    try:
        got = store.get(agent, KIND, ids=[rec_id])
    except Exception:  # noqa: BLE001 - broken/unreachable Chroma must not block learning
        from kioku.lessons.retrieval_fallback import journal_records

        return journal_records(store.chroma_dir, store.name(agent, KIND), [rec_id]).get(rec_id)
    return (got[0].document, dict(got[0].metadata or {})) if got else None


def all_improvements(agent: str, project_root: Path | None = None,
                     scopes: Sequence[str] | None = None) -> list[tuple[str, Any]]:
    """Every improvement record of ``agent`` as (scope, Record), project scope first."""
    out: list[tuple[str, Any]] = []
    for scope_name in scopes or sc.SCOPES:
        if not sc.scope_exists(scope_name, project_root):
            continue
        store = sc.open_scope(scope_name, project_root)
        out.extend((scope_name, rec) for rec in store.get(agent, KIND))
    return out
