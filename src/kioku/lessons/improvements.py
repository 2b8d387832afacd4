"""Learned improvements: store rules, schema and hybrid retrieval.

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

Retrieval (:func:`retrieve`): per scope (project first, then global) dense nearest neighbours
(over-fetch ``max(50, 10*limit)``, no ``where`` filter: a filtered HNSW query can miss matches) and the FTS5 lexical
ranking (the best ``max(limit, 5)`` keyword hits the dense list missed get their cosine from their
stored vectors), fused by score fusion (``kioku.retrieval.hybrid.fuse(method="score")``: each list
divided by its best score, dense weight 1, each lexical list :attr:`LessonRanking.lexical_weight`;
on the project's labelled lessons, ``scripts/bench/lesson_search.py``, it beat reciprocal rank
fusion). Then, in Python: confidence >= 0.7, not deprecated (a low absolute success rate hides nothing),
cosine >= :data:`RELEVANCE_THRESHOLD`, and the relevance cut-off that ``kioku search`` uses:
cosine + 0.5 x keyword coverage >= 0.3 (0.65 for a mostly Japanese task, and for a mixed one
against a Japanese lesson holding none of its English words), so small talk gets no lessons
unless one holds a word it names. Cross-validated items' scores are multiplied by 1.2. The same
lesson in both scopes is returned once
(the copy with more credited turns, the project copy when they have as many); at equal score project items
come first. Each hit carries ``mode``
("hybrid"). When the embedding model or Chroma is unavailable, retrieval degrades to the lexical
index alone (``kioku.lessons.retrieval_fallback``: same filters, metadata from Chroma or else from
the journal, ``relevance`` = share of the task's keywords in the lesson, ``mode`` = "lexical")
and logs one warning, which the CLI prints on stderr.

Search enrichment (``kioku.lessons.enriched``): a lesson whose enrichment (questions, keywords in
English and Japanese, a topic, written by a model for its text) matches the task is a candidate
too; the enrichment's ranking joins the fusion (weight :attr:`LessonRanking.enrichment_weight`)
but never lifts a lesson above one whose text holds the whole task, and a lesson passes through
it only past its own stricter cut-off (``LessonRanking.enrichment_margin`` above the text's, or
``min_relevance_enrich_cjk`` for a task holding Japanese); such a hit carries ``via_enrichment``.

Relevance threshold: :data:`RELEVANCE_THRESHOLD` maximises F1 on the labelled task/lesson pairs
of tests/lessons/data/relevance_pairs.json (real MiniLM cosines), which
tests/lessons/test_lessons_relevance_calibration.py re-derives; ``relevance_threshold`` in
config.toml overrides it.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from kioku.infra import clock
from kioku.lessons import scopes as sc
from kioku.lessons import stats
from kioku.infra.errors import KiokuError, UsageError

KIND = "improvements"
RELEVANCE_THRESHOLD = 0.13
MIN_CONFIDENCE_STORE = 0.5
MIN_CONFIDENCE_ACTIVE = 0.7
CROSS_VALIDATED_BOOST = 1.2
LEXICAL_EXTRA = 5  # lexical-only candidates per scope whose cosine is computed
MAX_LESSON_CHARS = 2000
LEARNED_FROM = ("manual", "user_feedback", "self_evaluation", "new_pattern", "consolidation",
                "import", "transfer")
SOURCES = ("self", "system_principles", "transferred")
# Lessons Kioku words itself (from a transcript, or from other lessons): a secret in one is
# redacted and the lesson kept; one a person gives is refused instead
DERIVED = ("self_evaluation", "consolidation", "transfer")
log = logging.getLogger("kioku.lessons.improvements")
last_warning: str | None = None  # why the last retrieve() in this process fell back to lexical
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


@dataclass
class ImprovementHit:
    id: str
    improvement: str
    relevance: float  # cosine task ↔ lesson (1 - Chroma distance); lexical mode: keyword coverage 0-1
    metadata: dict[str, Any]
    scope: str
    score: float = 0.0  # fused rank score (x1.2 when cross-validated); what the order follows
    wilson_lower: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("extra")
        out.update(self.extra)
        return out


def relevance_threshold(project_root: Path | None = None) -> float:
    try:
        from kioku.infra.config import load_config

        value = load_config(project_root).extra.get("relevance_threshold")
        return float(value) if value is not None else RELEVANCE_THRESHOLD
    except Exception:  # unreadable config: the calibrated default is always safe
        return RELEVANCE_THRESHOLD


def retrieve(agent: str, task: str, limit: int = 5, project_root: Path | None = None, *,
             threshold: float | None = None, scopes: Sequence[str] | None = None,
             enrichment: bool = True) -> list[ImprovementHit]:
    """Improvements worth injecting for ``task`` (see the module docstring); [] if none exist.

    Degrades instead of failing: when the embedding model or Chroma is unavailable the
    hits come from the lexical index alone (``kioku.lessons.retrieval_fallback``; same
    filters, ``relevance`` = keyword coverage, ``mode`` = "lexical"), one warning is logged
    (the CLI prints it on stderr) and :data:`last_warning` holds it; otherwise ``mode`` is
    "hybrid" and :data:`last_warning` is None.
    """
    global last_warning
    agent = sc.validate_agent(agent)
    task = (task or "").strip()
    last_warning = None
    if not task or limit <= 0:
        return []
    limit = int(limit)
    wanted = [s for s in (scopes or sc.SCOPES) if sc.scope_exists(s, project_root)]
    if not wanted:
        return []
    try:
        hits = _retrieve_hybrid(agent, task, limit, project_root, threshold, wanted, enrichment)
    except Exception as exc:  # noqa: BLE001 - any model/Chroma failure: keyword search still works
        what = "embedding model" if _is_embedder_failure(exc) else "agent-memory store (Chroma)"
        from kioku.lessons.retrieval_fallback import retrieve_lexical

        try:
            hits = retrieve_lexical(agent, task, limit, project_root, scopes=wanted, kind=KIND,
                                    min_confidence=MIN_CONFIDENCE_ACTIVE,
                                    boost=CROSS_VALIDATED_BOOST, make_hit=_lexical_hit)
        except Exception as lex_exc:  # noqa: BLE001
            from kioku.infra import disk

            full = [d for d in (sc.chroma_dir(s, project_root) for s in wanted) if disk.is_full(d, disk.JOURNAL_RESERVE)]
            if full:  # SQLite cannot even open its files for reading on a full disk
                raise disk.disk_full(full[0], "lessons cannot be searched until there is room") from exc
            raise KiokuError(f"improvements unavailable: {what} failed ({type(exc).__name__}: {exc}) "
                             f"and the lexical index too ({type(lex_exc).__name__}: {lex_exc})") from exc
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        last_warning = (f"{what} unavailable ({detail}); showing lexical (keyword) matches only")
        log.warning("kioku: warning: %s", last_warning)
    return _rank(hits, limit)


def _is_embedder_failure(exc: BaseException) -> bool:
    from kioku.retrieval.embedder import EmbedderUnavailable

    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:  # Chroma may wrap our embedding function's error
        if isinstance(cur, EmbedderUnavailable):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _lexical_hit(rec_id: str, document: str, relevance: float, meta: dict[str, Any], scope: str,
                 score: float, wilson: float) -> ImprovementHit:
    return ImprovementHit(id=rec_id, improvement=document, relevance=relevance, metadata=meta,
                          scope=scope, score=score, wilson_lower=wilson, extra={"mode": "lexical"})


@dataclass(frozen=True)
class LessonRanking:
    """How hybrid retrieval orders and cuts lessons (fitted by scripts/bench/lesson_search.py --fit)."""

    fusion: str = "score"  # kioku.retrieval.hybrid.fuse method: "score" keeps margins, "rrf" only ranks
    lexical_weight: float = 0.75  # weight of each scope's lexical list against the dense list
    coverage_weight: float = 0.5  # relevance = cosine + coverage_weight x keyword coverage
    min_relevance: float = 0.3  # relevance needed by a task that is not mostly Japanese
    min_relevance_cjk: float = 0.65  # ... and by a Japanese one (MiniLM cosines run high there)
    # search enrichment: fitted on the lesson set with enrichment (lesson_search.py --enrichment --fit)
    enrichment_weight: float = 1.5  # weight of the enrichment's ranking against the dense list
    enrichment_margin: float = 0.15  # an enrichment match needs min_relevance + this
    min_relevance_enrich_cjk: float = 0.4  # ... and this when the task holds Japanese
    exact_coverage: float = 1.0  # a lesson holding this share of the task's words is an exact match


RANKING = LessonRanking()


@dataclass
class Candidates:
    """Everything hybrid retrieval knows about one task's candidate lessons, before ranking."""

    task: str
    records: dict[str, tuple[str, Any]]  # id -> (scope, Record)
    cosine: dict[str, float]
    lexical: list[list[tuple[str, float]]]  # one FTS5 ranking per scope
    coverage: dict[str, float] = field(default_factory=dict)  # share of the task's keywords in the lesson
    enriched: Any = None  # kioku.lessons.enriched.EnrichedSignals: the task against the lessons' enrichment


def keyword_coverage(task_tokens: set[str], document: str) -> float:
    """Share of the task's distinct tokens (``kioku.retrieval.text.tokenize``) found in ``document``."""
    from kioku.retrieval.text import tokenize

    if not task_tokens:
        return 0.0
    return len(task_tokens & set(tokenize(document))) / len(task_tokens)


def lesson_candidates(agent: str, task: str, limit: int, project_root: Path | None,
                      wanted: list[str], enrichment: bool = True) -> Candidates:
    """Dense nearest neighbours and lexical matches of ``task`` in each scope (see the module
    docstring), and with ``enrichment`` the lessons whose search enrichment matches it best."""
    from kioku.retrieval.hybrid import embed_cached
    from kioku.retrieval.text import tokenize, without_lone_kana

    n = max(50, 10 * limit)
    records: dict[str, tuple[str, Any]] = {}  # id -> (scope, Record)
    cosine: dict[str, float] = {}
    lexical: list[list[tuple[str, float]]] = []
    stores = {scope_name: sc.open_scope(scope_name, project_root) for scope_name in wanted}
    # The FTS5 searches (SQLite releases the GIL) run in a worker thread while this thread
    # embeds the task and asks Chroma: at 100k documents they took ~60 ms of a ~150 ms call.
    # (A journal entry still pending - applied by query_vector's sync - can be missed by this
    # call's lexical list only; the dense list still sees it.)
    for store in stores.values():
        store.check()  # a lost store is rebuilt (lexical index too) before the search thread starts
        store._lexical()  # opened here: AgentStore's lazy opener is not thread-safe
    lex_jobs = [_pool().submit(store.lexical_search, agent, KIND, task, n) for store in stores.values()]
    task_vec = embed_cached([task])[0]  # embedded once for both scopes and the cosine fill-in
    for (scope_name, store), lex_job in zip(stores.items(), lex_jobs):
        for rec in store.query_vector(agent, KIND, task_vec.tolist(), n_results=n):
            records[rec.id] = (scope_name, rec)
            cosine[rec.id] = 1.0 - float(rec.distance if rec.distance is not None else 1.0)
        lex = lex_job.result()
        lexical.append(lex)
        # keyword hits the dense over-fetch missed (rare identifiers): the best few get their
        # cosine from the vectors Chroma already stores (no re-embedding of their documents)
        missing = [i for i, _ in lex if i not in records][: max(limit, LEXICAL_EXTRA)]
        if missing:
            got = [rec for rec in store.get(agent, KIND, ids=missing) if rec.id not in records]
            for rec in got:
                records[rec.id] = (scope_name, rec)
            _fill_cosines(task_vec, store, agent, [rec.id for rec in got], records, cosine)
    enriched = None
    if enrichment:
        from kioku.lessons.enriched import expansion_signals

        enriched = expansion_signals(agent, task, task_vec)
        if enriched is not None:
            found = enriched.best_missing(records, RANKING.coverage_weight, max(limit, LEXICAL_EXTRA))
            for scope_name, store in stores.items():
                got = [rec for rec in store.get(agent, KIND, ids=found) if rec.id not in records] if found else []
                for rec in got:
                    records[rec.id] = (scope_name, rec)
                _fill_cosines(task_vec, store, agent, [rec.id for rec in got], records, cosine)
                found = [i for i in found if i not in records]
    tokens = set(without_lone_kana(tokenize(task)))
    coverage = {rec_id: keyword_coverage(tokens, rec.document) for rec_id, (_s, rec) in records.items()}
    return Candidates(task, records, cosine, lexical, coverage, enriched)


def rank_candidates(c: Candidates, threshold: float, ranking: LessonRanking = RANKING) -> list[ImprovementHit]:
    """Fused, filtered hits (unsorted, not de-duplicated): cosine >= ``threshold`` and relevance past
    the calibrated cut-off, or a relevance through the lesson's search enrichment past its own
    stricter one; active lessons only; the fused score is x1.2 when cross-validated."""
    from kioku.lessons.enriched import enrichment_relevance, fused_scores
    from kioku.retrieval.hybrid import has_cjk, is_cjk_query, needs_cjk_bar
    from kioku.retrieval.text import holds_an_english_word, tokenize

    by_enrichment = enrichment_relevance(c, ranking)
    fused = fused_scores(c, ranking, by_enrichment)
    task_is_cjk, task_has_cjk = is_cjk_query(c.task), has_cjk(c.task)
    task_tokens = tokenize(c.task)
    hits: list[ImprovementHit] = []
    for rec_id, (scope_name, rec) in c.records.items():
        meta = dict(rec.metadata or {})
        rel = c.cosine.get(rec_id, 0.0)
        relevance = rel + ranking.coverage_weight * c.coverage.get(rec_id, 0.0)
        document = rec.document or ""
        named = (task_has_cjk and not task_is_cjk
                 and holds_an_english_word(c.task, task_tokens, set(tokenize(document))))
        bar = (ranking.min_relevance_cjk if needs_cjk_bar(task_is_cjk, task_has_cjk, has_cjk(document), named)
               else ranking.min_relevance)
        by_text = rel >= threshold and relevance >= bar
        rel_e, named_e = by_enrichment.get(rec_id, (0.0, False))
        bar_e = (ranking.min_relevance_enrich_cjk if task_has_cjk and not named_e
                 else ranking.min_relevance + ranking.enrichment_margin)
        by_enriched = rec_id in by_enrichment and rel_e >= bar_e
        if not (by_text or by_enriched) or not stats.is_active(meta, MIN_CONFIDENCE_ACTIVE):
            continue
        score = fused.get(rec_id, 0.0) * (CROSS_VALIDATED_BOOST if meta.get("cross_validated") else 1.0)
        extra = {"mode": "hybrid", **({"via_enrichment": True} if by_enriched and not by_text else {})}
        hits.append(ImprovementHit(id=rec_id, improvement=rec.document, relevance=round(rel, 4),
                                   metadata=meta, scope=scope_name, score=round(score, 6),
                                   wilson_lower=stats.wilson_of(meta), extra=extra))
    return hits


def _retrieve_hybrid(agent: str, task: str, limit: int, project_root: Path | None,
                     threshold: float | None, wanted: list[str], enrichment: bool = True) -> list[ImprovementHit]:
    """Dense + lexical fusion with the Python-side filters (unsorted, not de-duplicated)."""
    thr = relevance_threshold(project_root) if threshold is None else float(threshold)
    return rank_candidates(lesson_candidates(agent, task, limit, project_root, wanted, enrichment), thr)


_POOL: Any = None


def _pool() -> Any:
    """One process-wide worker thread for lexical searches (created on first retrieve)."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kioku-lexical")
    return _POOL


def _credited_turns(meta: dict[str, Any]) -> int:
    return int(meta.get("turns_given", 0) or 0) + int(meta.get("turns_held_back", 0) or 0)


def _rank(hits: list[ImprovementHit], limit: int) -> list[ImprovementHit]:
    """Order by score (project first at equal score), one hit per lesson: the copy with more
    credited turns (its state is the measured one), the project copy when they have as many."""
    hits.sort(key=lambda h: (-h.score, 0 if h.scope == "project" else 1, -h.relevance))
    out: list[ImprovementHit] = []
    seen: dict[str, ImprovementHit] = {}
    for hit in sorted(hits, key=lambda h: (-_credited_turns(h.metadata or {}), 0 if h.scope == "project" else 1)):
        key = sc.normalise_lesson(hit.improvement)
        if key not in seen:
            seen[key] = hit
    for hit in hits:
        if seen.get(sc.normalise_lesson(hit.improvement)) is hit:
            out.append(hit)
    return out[:limit]


def _fill_cosines(task_vec: Any, store: Any, agent: str, ids: list[str],
                  records: dict[str, tuple[str, Any]], cosine: dict[str, float]) -> None:
    """Cosine for lexical-only candidates (the dense query did not return them).

    Uses the stored vectors (``AgentStore.embeddings``): re-embedding the documents cost
    ~10 ms each on this machine. A record without a stored vector (not expected) is embedded.
    """
    if not ids:
        return
    vecs = store.embeddings(agent, KIND, ids)
    for rec_id in ids:
        if rec_id in vecs:
            cosine[rec_id] = float(task_vec @ vecs[rec_id])
    todo = [i for i in ids if i not in cosine]
    if todo:
        from kioku.retrieval.hybrid import embed_cached  # in-process cache: warm callers pay once

        embedded = embed_cached([records[i][1].document for i in todo])
        for j, rec_id in enumerate(todo):
            cosine[rec_id] = float(task_vec @ embedded[j])


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
