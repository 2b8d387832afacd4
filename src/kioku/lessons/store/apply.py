"""The apply step of the agent-memory store: journal entries -> Chroma + lexical index.

Called by ``AgentStore`` with the write lock held (``kioku.lessons.store.chroma`` owns the
chromadb client; this module only uses the client object it is given, so chromadb is still
imported in one place). Every operation is idempotent, so re-applying an entry after a
crash is harmless:

- ``upsert``: create the collection if needed (cosine space, Kioku's embedding function,
  metadata agent/kind/purpose/scope/project_id/created_at), then ``upsert`` with explicit
  embeddings (recomputed from the documents when replaying), then the lexical index.
- ``update``: merge metadata (a missing collection or id is a no-op).
- ``delete`` / ``drop`` (every kind of an agent) / ``copy`` (all kinds, vectors copied).
- ``noop``: the marker of a snapshot of an empty store.
"""

from __future__ import annotations

import itertools
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kioku.lessons.store.journal import LEGACY_DIR_NAME
from kioku.infra import fsutil

PURPOSES = {
    "improvements": "learned improvements (lessons) retrieved before similar tasks",
    "evaluations": "self-evaluations of finished sessions and subagent runs",
    "performance": "performance snapshots computed from recent evaluations",
}
_PAGE = 2000


def is_not_found(exc: Exception) -> bool:
    name = type(exc).__name__
    return name in {"NotFoundError", "InvalidCollectionException"} or (
        isinstance(exc, ValueError) and "does not exist" in str(exc)
    )


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def collection_meta(agent: str, kind: str, project_id: str | None = None) -> dict:
    return {"agent": agent, "kind": kind, "purpose": PURPOSES[kind],
            "scope": "project" if project_id else "global",
            "project_id": project_id or "", "created_at": _now_iso(), "kioku": 1}


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
        for start in range(0, len(ids), _PAGE):
            end = start + _PAGE
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
            _drop_collection(conn, lex, name)
    elif op == "copy":
        for src_name, dst_name, kind in entry["pairs"]:
            src = store._collection(conn, src_name)
            if src is None:
                continue
            dst = store._collection(conn, dst_name,
                                    create=collection_meta(entry["dst_agent"], kind, entry.get("project_id")))
            offset = 0
            while True:
                got = src.get(include=["documents", "metadatas", "embeddings"], limit=_PAGE, offset=offset)
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


def rebuild_lexical_if_stale(store: Any) -> None:
    """Entries applied while the lexical index was unavailable: re-index from Chroma."""
    lex = store._lexical()
    if lex is None or not (store.journal.state().get("lexical_stale") or lex.needs_refill()):
        return
    conn = store._conn()
    for col_obj in conn.client.list_collections():
        name = col_obj.name if hasattr(col_obj, "name") else str(col_obj)
        if not name.startswith("agent_"):
            continue
        col = store._collection(conn, name)
        offset = 0
        while col is not None:
            got = col.get(include=["documents"], limit=_PAGE, offset=offset)
            if not got["ids"]:
                break
            lex.upsert(name, list(zip(got["ids"], got["documents"])))
            offset += len(got["ids"])
    store.journal.set_state(lexical_stale=False)
    lex.mark_refilled()


_ASIDE_COUNT = itertools.count()


def aside_stamp() -> str:
    """The UTC time in a folder name set aside, with the process id and a per-process count so
    that two folders set aside in the same second never share a name ("20261201T170512Z-4242-0")."""
    return f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}-{next(_ASIDE_COUNT)}"


def move_chroma_files_aside(store: Any, label: str = "broken") -> Path | None:
    """Move a store's Chroma files next to the folder, to ``<folder>.<label>-<time>`` (returned;
    None when there was nothing to move): "broken" for a corrupt store, "replaced" for a rebuild
    asked for; keep the lock, lexical index and digests (and an in-folder journal of an earlier
    version, which the next open moves out)."""
    aside = store.chroma_dir.with_name(f"{store.chroma_dir.name}.{label}-{aside_stamp()}")
    moved = False
    keep = {LEGACY_DIR_NAME, store.journal.lock_path.name, "kioku_lexical.sqlite3", "digests"}
    for child in list(store.chroma_dir.iterdir()):
        if child.name not in keep and not child.name.startswith("kioku_lexical"):
            fsutil.ensure_private_dir(aside)
            child.rename(aside / child.name)
            moved = True
    return aside if moved else None


def _drop_collection(conn: Any, lex: Any, name: str) -> None:
    """Drop one collection from Chroma and the lexical index; a missing one is fine."""
    conn.cols.pop(name, None)
    try:
        conn.client.delete_collection(name)
    except Exception as exc:  # noqa: BLE001
        if not is_not_found(exc):
            raise
    if lex is not None:
        lex.drop(name)


def replay_all(store: Any, conn: Any) -> int:
    """Drop every collection the journal names, replay archives + journal (lock held)."""
    entries = list(store.journal.all_entries())
    names: set[str] = set()
    for e in entries:
        names.update(n for n in ([e.get("collection")] + list(e.get("collections", [])) +
                                 [p[1] for p in e.get("pairs", [])]) if n)
    lex = store._lexical()
    for name in names:
        _drop_collection(conn, lex, name)
    for e in entries:
        apply_entry(store, conn, e)
    last = int(entries[-1]["seq"]) if entries else store.journal.applied_seq()
    store.journal.set_applied(max(last, store.journal.applied_seq()))
    conn.seen_seq = store.journal.applied_seq()
    return len(entries)

