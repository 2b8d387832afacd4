"""One record of the agent-memory store, as reads return it."""

from __future__ import annotations

from dataclasses import dataclass, field

from kioku.lessons.store.meta import strip_placeholder


@dataclass
class Record:
    id: str
    document: str
    metadata: dict = field(default_factory=dict)
    distance: float | None = None

    @property
    def relevance(self) -> float | None:
        return None if self.distance is None else 1.0 - self.distance


def records_of_query(got: dict) -> list[Record]:
    """The records of a one-query Chroma answer (ids, documents, metadatas, distances), nearest first."""
    if not got.get("ids") or not got["ids"][0]:
        return []
    return [Record(i, d or "", strip_placeholder(m), float(dist)) for i, d, m, dist in
            zip(got["ids"][0], got["documents"][0], got["metadatas"][0], got["distances"][0])]
