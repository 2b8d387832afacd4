"""Records that Chroma holds but its vector search cannot reach, and putting them back.

Chroma keeps a record's document and metadata in SQLite and its vector in an HNSW index that
is rebuilt from Chroma's own write-ahead log when a process opens the store. Known Chroma
faults leave a record in the first and not in the second: the log purged before the index was
saved, or a graph left without a path to a node (chroma-core/chroma issues 6975 and 7758, both
on the 1.5 line this project pins). ``get`` still returns such a record and ``count`` counts it,
but no query finds it, so a lesson is silently never recalled.

The check: query every record of a collection with its own vector and see whether its id comes
back among the nearest (several, so that records with the same text do not hide each other; with
more such records than that, the text is found either way).
The vector is the one Chroma returns for the record; when Chroma cannot return a page of vectors
(it raises "Error finding id" when the index lacks one), the page's vectors are computed again
from the documents, which is what the store embedded when it wrote them. A record found
unreachable is upserted again with its document, metadata and that vector, which puts it back
into the index; the check then runs again on those records, and any still unreachable are reported
(``kioku store rebuild`` replays the journal into new collections).

Called by ``kioku.lessons.store.migration`` with the write lock held; it only uses the collection
objects it is given (``kioku.lessons.store.chroma_process``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

PAGE = 500
NEIGHBOURS = 8  # ids asked for per self-query: room for records whose texts are identical
SAME_VECTOR = 1e-6  # a cosine distance this small is the same vector


@dataclass
class Reachability:
    """What the check found in one collection."""

    checked: int = 0
    reindexed: list[str] = field(default_factory=list)   # unreachable, then found after the upsert
    still_unreachable: list[str] = field(default_factory=list)


def totals(found: dict[str, Reachability]) -> tuple[int, int, int]:
    """Over the collections of one check: records checked, indexed again, still unreachable."""
    return (sum(r.checked for r in found.values()), sum(len(r.reindexed) for r in found.values()),
            sum(len(r.still_unreachable) for r in found.values()))


def _page_vectors(col: Any, ids: list[str], docs: list[str], embed: Callable[[list[str]], Any]) -> list[Any]:
    """The stored vectors of ``ids``, or vectors computed from ``docs`` when Chroma cannot give them."""
    try:
        got = col.get(ids=ids, include=["embeddings"])
        by_id = dict(zip(got["ids"], got["embeddings"]))
        if all(by_id.get(i) is not None for i in ids):
            return [by_id[i] for i in ids]
    except Exception:  # noqa: BLE001 - the index lacks a vector: compute them from the text
        pass
    return list(embed(docs))


def _unreachable(col: Any, ids: list[str], vectors: list[Any], total: int) -> list[str]:
    """The ids among ``ids`` that a query with their own vector does not return. When every
    neighbour returned lies at distance 0 (more records of the same text than were asked for),
    the text is found whichever of them comes back, so the record counts as reached."""
    if not ids:
        return []
    wanted = max(1, min(NEIGHBOURS, total))
    got = col.query(query_embeddings=[[float(x) for x in v] for v in vectors], n_results=wanted,
                    include=["distances"])
    return [rec_id for rec_id, found, dists in zip(ids, got["ids"], got["distances"])
            if rec_id not in found and not (len(found) == wanted and max(dists) <= SAME_VECTOR)]


def check_collection(col: Any, embed: Callable[[list[str]], Any]) -> Reachability:
    """Self-query every record of ``col`` and upsert the unreachable ones again."""
    result = Reachability()
    total = col.count()
    offset = 0
    lost: dict[str, tuple[str, dict, Any]] = {}
    while offset < total:
        got = col.get(include=["documents", "metadatas"], limit=PAGE, offset=offset)
        ids = list(got["ids"])
        if not ids:
            break
        docs = [d if isinstance(d, str) else "" for d in got["documents"]]
        metas = [dict(m) if m else {"kioku_placeholder": True} for m in got["metadatas"]]
        vectors = _page_vectors(col, ids, docs, embed)
        missed = set(_unreachable(col, ids, vectors, total))
        for rec_id, doc, meta, vector in zip(ids, docs, metas, vectors):
            if rec_id in missed:
                lost[rec_id] = (doc, meta, vector)
        result.checked += len(ids)
        offset += len(ids)
    if not lost:
        return result
    ids = sorted(lost)
    docs = [lost[i][0] for i in ids]
    vectors = [[float(x) for x in lost[i][2]] for i in ids]
    for start in range(0, len(ids), PAGE):
        end = start + PAGE
        col.upsert(ids=ids[start:end], documents=docs[start:end],
                   metadatas=[lost[i][1] for i in ids[start:end]], embeddings=vectors[start:end])
    still = set()
    total = col.count()
    for start in range(0, len(ids), PAGE):
        end = start + PAGE
        still.update(_unreachable(col, ids[start:end], vectors[start:end], total))
    result.reindexed = [i for i in ids if i not in still]
    result.still_unreachable = [i for i in ids if i in still]
    return result
