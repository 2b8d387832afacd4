"""The apply step of the agent-memory store: journal entries -> Chroma + lexical index.

Called by ``AgentStore`` (``kioku.lessons.store.client``) with the write lock held; it only uses
the client object it is given (``kioku.lessons.store.chroma_process``). Every operation is
idempotent, so re-applying an entry after a crash is harmless:

- ``upsert``: create the collection if needed (cosine space, Kioku's embedding function,
  metadata agent/kind/purpose/scope/project_id/created_at), then ``upsert`` with explicit
  embeddings (recomputed from the documents when replaying), then the lexical index.
- ``update``: merge metadata (a missing collection or id is a no-op).
- ``delete`` / ``drop`` (every kind of an agent) / ``copy`` (all kinds, vectors copied).
- ``noop``: the marker of a snapshot of an empty store.
"""

from __future__ import annotations

from typing import Any

from kioku.infra import clock

PURPOSES = {
    "improvements": "learned improvements (lessons) retrieved before similar tasks",
    "evaluations": "self-evaluations of finished sessions and subagent runs",
    "performance": "performance snapshots computed from recent evaluations",
}
PAGE = 2000


def is_not_found(exc: BaseException) -> bool:
    """Whether Chroma said the collection does not exist (the child process tells)."""
    return bool(getattr(exc, "not_found", False))


def collection_meta(agent: str, kind: str, project_id: str | None = None) -> dict:
    return {"agent": agent, "kind": kind, "purpose": PURPOSES[kind],
            "scope": "project" if project_id else "global",
            "project_id": project_id or "", "created_at": clock.iso_offset(), "kioku": 1}


def apply_entry(store: Any, conn: Any, entry: dict, embeddings: Any = None) -> None:
    """Apply one journal entry to Chroma and the lexical index; idempotent."""
    op = entry["op"]
    lex = store._lexical()
    if op == "upsert":
        ids, docs = entry["ids"], entry["documents"]
        if embeddings is None:
            embeddings = store._embed(docs)
        meta = collection_meta(entry["agent"], entry["kind"], entry.get("project_id"))
        col = store._collection(conn, entry["collection"], create=meta)
        for start in range(0, len(ids), PAGE):
            end = start + PAGE
            col.upsert(ids=ids[start:end], documents=docs[start:end],
                       metadatas=entry["metadatas"][start:end], embeddings=embeddings[start:end])
        if lex is not None:
            lex.upsert(entry["collection"], list(zip(ids, docs)))
    elif op == "update":
        col = store._collection(conn, entry["collection"])
        if col is not None:
            col.update(ids=entry["ids"], metadatas=entry["metadatas"])
    elif op == "delete":
        col = store._collection(conn, entry["collection"])
        if col is not None:
            col.delete(ids=entry["ids"])
        if lex is not None:
            lex.delete(entry["collection"], entry["ids"])
    elif op == "drop":
        for name in entry["collections"]:
            drop_collection(conn, lex, name)
    elif op == "copy":
        for src_name, dst_name, kind in entry["pairs"]:
            src = store._collection(conn, src_name)
            if src is None:
                continue
            dst = store._collection(conn, dst_name,
                                    create=collection_meta(entry["dst_agent"], kind, entry.get("project_id")))
            offset = 0
            while True:
                got = src.get(include=["documents", "metadatas", "embeddings"], limit=PAGE, offset=offset)
                if not got["ids"]:
                    break
                metas = [m if m else {"kioku_placeholder": True} for m in got["metadatas"]]
                dst.upsert(ids=got["ids"], documents=got["documents"], metadatas=metas,
                           embeddings=got["embeddings"])
                if lex is not None:
                    lex.upsert(dst_name, list(zip(got["ids"], got["documents"])))
                offset += len(got["ids"])
    elif op != "noop":
        raise ValueError(f"unknown journal op {op!r}")
    if lex is None and op in {"upsert", "delete", "drop", "copy"} and not store.journal.state().get("lexical_stale"):
        store.journal.set_state(lexical_stale=True)


def drop_collection(conn: Any, lex: Any, name: str) -> None:
    """Drop one collection from Chroma and the lexical index; a missing one is fine."""
    conn.cols.pop(name, None)
    try:
        conn.client.delete_collection(name)
    except Exception as exc:  # noqa: BLE001
        if not is_not_found(exc):
            raise
    if lex is not None:
        lex.drop(name)
