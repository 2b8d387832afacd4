"""Enriching items: one model call per batch, checked answers, stored beside the items.

``enrich(items, settings=..., complete=None) -> EnrichRun``:
- the items are split into batches (``kioku.enrich.request.batches``), each one call through
  ``kioku.model.client.complete`` (the opt-out, the daily caps, the per-home call lock, usage
  recorded under the purpose ``enrich``), or through ``complete`` when given (answers read
  from files by ``kioku enrich --import``);
- an answer with problems is sent back once with them; what is usable in either answer is kept,
  and a note still without a usable entry is recorded as failed (``EnrichmentStore.put_failed``:
  it stays searchable by its text, as it always was, and ``kioku enrich`` tries it again);
- a lasting refusal (no login, no backend, turned off, today's budget spent) or a failure that
  may pass (rate limit, API error, timeout) stops the run: the items not done are ``left`` and
  nothing is stored for them;
- enrichments written are embedded once (the vector store keeps them), so the first search
  after a save pays no embedding.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kioku.enrich.parse import AnswerError, Parsed, parse_answer
from kioku.enrich.request import Item, Request, batches, build, retry
from kioku.model.request import CallCapReached, ModelOutputError, ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings
from kioku.retrieval.enrichment import Enrichment, EnrichmentStore, default_store

Complete = Callable[[ModelRequest], ModelReply]
Progress = Callable[[int, int, int], None]   # (items done, items in all, calls made)
log = logging.getLogger("kioku.enrich")


@dataclass
class EnrichRun:
    enriched: list[Item] = field(default_factory=list)
    failed: list[tuple[Item, str]] = field(default_factory=list)
    left: list[Item] = field(default_factory=list)      # not tried: the run stopped before them
    stopped: str = ""                                    # why the run stopped early
    transient: bool = False                              # ... and whether trying later may succeed
    calls: int = 0


def plan(items: list[Item]) -> list[Request]:
    """The requests :func:`enrich` sends for ``items``, in order (one per batch)."""
    return [build(batch) for batch in batches(items)]


def _ask(request: Request, complete: Complete, run: EnrichRun) -> Parsed:
    """The checked answer of one call, asking once more with the problems when there are any."""
    from kioku.model.client import BudgetSpent

    first: Parsed | None = None
    problem = ""
    for attempt in (1, 2):
        sent = retry(request, problem) if problem else request
        run.calls += 1
        try:
            try:
                reply = complete(sent.model_request)
            except BudgetSpent:
                run.calls -= 1  # refused before any call was made
                raise
            parsed = parse_answer(reply.json(), request, reply.model)
        except CallCapReached as exc:
            return _merged(first, Parsed(problems={a: [str(exc)] for a in request.aliases}))
        except (AnswerError, ModelOutputError) as exc:
            parsed = Parsed(problems={a: [str(exc)] for a in request.aliases})
            problem = str(exc)
        else:
            problem = parsed.message()
        if not parsed.problems or attempt == 2:
            return _merged(first, parsed)
        first = parsed
    raise AssertionError("unreachable")


def _merged(first: Parsed | None, second: Parsed) -> Parsed:
    if first is None:
        return second
    good = {**first.good, **second.good}
    problems = {alias: found for alias, found in second.problems.items() if alias not in good}
    return Parsed(good, problems)


def enrich(items: list[Item], *, settings: ModelSettings | None = None, complete: Complete | None = None,
           project_root: Path | None = None, progress: Progress | None = None, max_calls: int | None = None,
           store: EnrichmentStore | None = None) -> EnrichRun:
    """Enrich ``items`` (see the module docstring)."""
    return run_requests(plan(items), settings=settings, complete=complete, project_root=project_root,
                        progress=progress, max_calls=max_calls, store=store)


def run_requests(requests: list[Request], *, settings: ModelSettings | None = None, complete: Complete | None = None,
                 project_root: Path | None = None, progress: Progress | None = None, max_calls: int | None = None,
                 store: EnrichmentStore | None = None) -> EnrichRun:
    """Send ``requests`` in order and store what their answers give."""
    live = complete is None
    if complete is None:
        from kioku.model.client import complete as client_complete

        def complete(request: ModelRequest) -> ModelReply:
            return client_complete(request, settings=settings, project_root=project_root)
    store = store or default_store()
    run = EnrichRun()
    total = sum(len(request.aliases) for request in requests)
    done = 0
    written: list[Enrichment] = []
    for index, request in enumerate(requests):
        if max_calls is not None and run.calls >= max_calls:
            run.stopped = f"the run's limit of {max_calls} call(s) is reached"
            run.left = [item for later in requests[index:] for item in later.items]
            break
        try:
            parsed = _ask(request, complete, run)
        except ModelUnavailable as exc:
            run.stopped, run.transient = str(exc), exc.transient
            run.left = [item for later in requests[index:] for item in later.items]
            break
        for alias, item in request.aliases.items():
            if alias in parsed.good:
                store.put(item.kind, item.key, item.owner, parsed.good[alias], agent=item.agent)
                run.enriched.append(item)
                written.append(parsed.good[alias])
            else:
                reason = "; ".join(parsed.problems.get(alias, ["no usable answer"]))
                store.put_failed(item.kind, item.key, item.owner, reason, agent=item.agent)
                run.failed.append((item, reason))
        unusable = len(request.aliases) - len(parsed.good)
        if live and unusable:
            from kioku.model import usage

            usage.record_fallback("enrich", unusable)
        done += len(request.aliases)
        if progress:
            progress(done, total, run.calls)
    _embed(written)
    return run


def _embed(enrichments: list[Enrichment]) -> None:
    """Put the new enrichments' English lines into the vector store (search embeds them otherwise)."""
    from kioku.retrieval.hybrid import dense_available
    from kioku.retrieval.japanese import has_cjk

    lines = [line for e in enrichments for line in e.lines() if line.strip() and not has_cjk(line)]
    if not lines or not dense_available():
        return
    try:
        from kioku.retrieval.vectors import default_store as vector_store

        vector_store().embed(lines)
    except Exception as exc:  # noqa: BLE001 - derived data: search embeds what is missing
        log.warning("enrichment stored but not embedded yet: %s", exc)
