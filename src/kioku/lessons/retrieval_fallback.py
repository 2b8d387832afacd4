"""Lexical-only retrieval of improvements, used when the model or Chroma is unavailable.

``kioku.lessons.lesson_retrieval.retrieve`` calls :func:`retrieve_lexical` when its hybrid path
fails (``EmbedderUnavailable``: the model files or runtime are missing; anything raised by
Chroma: a corrupt ``chroma.sqlite3``, an unreachable server, chromadb not importable).

Where the data comes from (nothing here embeds or needs Chroma to work):

- candidates: the FTS5 lexical index (``AgentStore.lexical_search`` →
  ``<chroma_dir>/kioku_lexical.sqlite3``), which the journal-apply step keeps in step with
  Chroma and which is opened without opening Chroma;
- documents + metadata: ``store.get(ids)`` when Chroma still answers (the model is the only
  thing missing); otherwise folded from the store's write-ahead journal (archives + active
  file), which records every upsert/update/delete/drop/copy with its metadata, so the same
  filters apply: confidence >= 0.7, not deprecated.
  Only the lexical hits' ids are tracked while folding, so memory stays small.
  An id the journal no longer knows (deleted) is skipped.
- writes still pending in the journal (Chroma broke before they were applied, so they are
  in neither Chroma nor the lexical index) are matched by keyword coverage and ranked as
  one more list, so a lesson learned while Chroma is broken is found too.

Relevance in this mode (there is no cosine): the fraction of the task's distinct tokens
(``kioku.retrieval.text.tokenize``: stemmed words minus stopwords, Japanese bigrams) that
the lesson contains, in [0, 1]. No threshold beyond "shares at least one keyword" is
applied: on the calibration pairs (tests/lessons/data/relevance_pairs.json) no coverage
threshold does better than any keyword match. The configured ``relevance_threshold`` is a cosine and is ignored here. Order: RRF over the scopes' BM25
rankings and pending lists (``kioku.retrieval.hybrid.fuse``; ×1.2 when cross-validated),
ties project first. Hits carry ``mode = "lexical"`` (hybrid hits carry ``"hybrid"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from kioku.lessons import scopes as sc
from kioku.lessons import stats


def coverage(task_tokens: set[str], document: str) -> float:
    """Share of the task's distinct tokens present in ``document`` (0 when the task has none)."""
    from kioku.retrieval.text import tokenize

    if not task_tokens:
        return 0.0
    return len(task_tokens & set(tokenize(document))) / len(task_tokens)


def journal_records(chroma_dir: Path, collection: str, ids: Sequence[str]) -> dict[str, tuple[str, dict]]:
    """{id: (document, metadata)} of ``ids`` in ``collection`` as the journal left them.

    Mirrors Chroma's semantics as the apply step uses them (upsert and update merge metadata
    key by key, copy keeps ids). Records are tracked per (collection, id) for the wanted ids
    only, in every collection, because a copy brings records in from another collection.
    """
    from kioku.lessons.store.journal import Journal

    wanted = set(ids)
    state: dict[tuple[str, str], tuple[str, dict]] = {}
    for entry in Journal(chroma_dir).all_entries():
        op = entry.get("op")
        if op == "upsert":
            name = entry.get("collection")
            for rid, doc, meta in zip(entry.get("ids", ()), entry.get("documents", ()),
                                      entry.get("metadatas", ())):
                if rid in wanted:
                    old = state.get((name, rid), ("", {}))[1]
                    new = {k: v for k, v in (meta or {}).items() if k != "kioku_placeholder"}
                    state[(name, rid)] = (doc or "", {**old, **new})
        elif op == "update":
            name = entry.get("collection")
            for rid, meta in zip(entry.get("ids", ()), entry.get("metadatas", ())):
                if (name, rid) in state:
                    doc, old = state[(name, rid)]
                    state[(name, rid)] = (doc, {**old, **(meta or {})})
        elif op == "delete":
            name = entry.get("collection")
            for rid in entry.get("ids", ()):
                state.pop((name, rid), None)
        elif op == "drop":
            dropped = set(entry.get("collections", ()))
            for key in [k for k in state if k[0] in dropped]:
                del state[key]
        elif op == "copy":
            for src, dst, _kind in entry.get("pairs", ()):
                for (name, rid), (doc, meta) in list(state.items()):
                    if name == src:
                        old = state.get((dst, rid), ("", {}))[1]
                        state[(dst, rid)] = (doc, {**old, **meta})
    return {rid: rec for (name, rid), rec in state.items() if name == collection}


def _records(store: Any, agent: str, kind: str, ids: list[str]) -> dict[str, tuple[str, dict]]:
    """Documents + metadata of ``ids``: from Chroma if it answers, else from the journal."""
    try:
        got = {r.id: (r.document, dict(r.metadata or {})) for r in store.get(agent, kind, ids=ids)}
    except Exception:  # noqa: BLE001 - Chroma broken or unreachable: the journal knows the same
        return journal_records(store.chroma_dir, store.name(agent, kind), ids)
    missing = [i for i in ids if i not in got]
    if missing:  # written to the journal but not applied to Chroma yet
        got.update(journal_records(store.chroma_dir, store.name(agent, kind), missing))
    return got


def pending_ranking(store: Any, agent: str, kind: str, task_tokens: set[str]) -> list[tuple[str, float]]:
    """Journaled upserts not applied yet (so in neither Chroma nor the lexical index) that share
    a keyword with the task, best coverage first: a lesson learned while Chroma is broken is
    found by the next retrieval (read-your-writes). The pending tail is short: it is applied
    as soon as Chroma works again."""
    journal = store.journal
    if not task_tokens or journal.pending_count() <= 0:
        return []
    name = store.name(agent, kind)
    docs: dict[str, str] = {}
    for entry in journal.entries(after=journal.applied_seq()):
        if entry.get("op") == "upsert" and entry.get("collection") == name:
            docs.update(zip(entry.get("ids", ()), entry.get("documents", ())))
    scored = [(rid, coverage(task_tokens, doc)) for rid, doc in docs.items()]
    return sorted([(rid, c) for rid, c in scored if c > 0], key=lambda kv: -kv[1])


def retrieve_lexical(agent: str, task: str, limit: int, project_root: Path | None, *,
                     scopes: Sequence[str], kind: str, min_confidence: float,
                     boost: float, make_hit: Callable[..., Any]) -> list[Any]:
    """Lexical-only hits (``make_hit(id, document, relevance, metadata, scope, score, wilson)``)."""
    from kioku.retrieval.hybrid import fuse
    from kioku.retrieval.text import tokenize

    n = max(50, 10 * limit)
    task_tokens = set(tokenize(task))
    rankings: list[list[tuple[str, float]]] = []
    found: dict[str, tuple[str, str, dict]] = {}  # id -> (scope, document, metadata)
    for scope_name in scopes:
        store = sc.open_scope(scope_name, project_root)
        ranking = store.lexical_search(agent, kind, task, n)
        pending = pending_ranking(store, agent, kind, task_tokens)
        ids = list(dict.fromkeys([i for i, _ in ranking] + [i for i, _ in pending]))
        if not ids:
            continue
        rankings.extend(r for r in (ranking, pending) if r)
        records = _records(store, agent, kind, ids)
        for rec_id in ids:
            if rec_id in records and rec_id not in found:
                doc, meta = records[rec_id]
                found[rec_id] = (scope_name, doc, meta)
    if not found:
        return []
    fused = dict(fuse(rankings))
    hits = []
    for rec_id, (scope_name, doc, meta) in found.items():
        if not stats.is_active(meta, min_confidence):
            continue
        score = fused.get(rec_id, 0.0) * (boost if meta.get("cross_validated") else 1.0)
        hits.append(make_hit(rec_id, doc, round(coverage(task_tokens, doc), 4), meta, scope_name,
                             round(score, 6), stats.wilson_of(meta)))
    return hits
