"""Migrations of the agent-memory store: collection renames and putting records back in the index.

- Renames: a collection made under an earlier naming (``kioku.lessons.store.names``,
  :data:`NAMING_VERSION`) is moved to today's name for the agent, kind and project its metadata
  records. Each move is two journal entries, a copy into the current name and then a drop of the
  old one, applied like any write: nothing is lost, and a crash between them leaves both
  collections, so the next open copies again (idempotent) and drops. It runs once per store (the
  journal state remembers the naming version).
- Reindexing: records that Chroma holds but its vector search cannot reach are upserted again
  (``kioku.lessons.store.reachability`` finds them).

Both run with the store's write lock held (``reindex_unreachable`` takes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kioku.infra.fsutil import LockTimeout
from kioku.lessons.store import reachability
from kioku.lessons.store.errors import StoreUnavailable
from kioku.lessons.store.names import KINDS, NAMING_VERSION, collection_name

if TYPE_CHECKING:  # pragma: no cover
    from kioku.lessons.store.client import AgentStore


def names_need_check(store: "AgentStore") -> bool:
    if not store._names_current:
        store._names_current = store.journal.state().get("collection_names") == NAMING_VERSION
    return not store._names_current


def migrate_names_locked(store: "AgentStore") -> int:
    """Move every Kioku collection whose name differs from today's ``collection_name``; returns
    how many moved. Caller holds the lock."""
    if not names_need_check(store):
        return 0
    moved = 0
    if not store.server and not (store.chroma_dir / "chroma.sqlite3").exists():
        # nothing stored yet: every collection gets today's name
        store.journal.set_state(collection_names=NAMING_VERSION)
        store._names_current = True
        return 0
    conn = store._conn()
    for col in list(conn.client.list_collections()):
        meta = col.metadata or {}
        agent, kind = meta.get("agent"), meta.get("kind")
        if not meta.get("kioku") or not isinstance(agent, str) or not agent or kind not in KINDS:
            continue
        project_id = meta.get("project_id") or None
        want = collection_name(agent, kind, project_id)
        if col.name == want:
            continue
        for entry in ({"op": "copy", "dst_agent": agent, "project_id": project_id,
                       "pairs": [[col.name, want, kind]]},
                      {"op": "drop", "agent": agent, "collections": [col.name]}):
            seq = store.journal.append(entry)
            store._apply(conn, entry)
            store.journal.set_applied(seq)
            conn.seen_seq = seq
        moved += 1
    store.journal.set_state(collection_names=NAMING_VERSION)
    store._names_current = True
    return moved


def reindex_unreachable(store: "AgentStore", agent: str | None = None) -> dict[str, reachability.Reachability]:
    """Check that vector search reaches every record of the Kioku collections (of ``agent``
    only, when given) and upsert the ones it does not reach again. Pending journal entries are
    applied first, under the write lock. A Chroma server keeps its own index and is not checked."""
    if store.server or not store.check():
        return {}
    wanted = {store.name(agent, k) for k in KINDS} if agent else None
    try:
        with store.journal.lock(timeout=120):
            store._sync_locked()
            return reindex_locked(store, wanted)
    except LockTimeout as exc:
        raise StoreUnavailable(f"agent-memory store is busy ({exc}); vector index not checked") from exc


def reindex_locked(store: "AgentStore", wanted: set[str] | None) -> dict[str, reachability.Reachability]:
    """The check of :func:`reindex_unreachable` on the collections in ``wanted`` (all Kioku
    collections when None); caller holds the lock. When a record was put back, a ``noop`` journal
    entry moves the applied position on, so that other processes reopen their clients and load
    the mended index."""
    conn = store._conn()
    found: dict[str, reachability.Reachability] = {}
    for listed in conn.client.list_collections():
        name = listed.name
        if not name.startswith("agent_") or (wanted is not None and name not in wanted):
            continue
        col = store._collection(conn, name)
        if col is not None:
            found[name] = reachability.check_collection(col, store._embed)
    mended = reachability.totals(found)[1]
    if mended:
        seq = store.journal.append({"op": "noop", "reindexed": mended})
        store.journal.set_applied(seq)
        conn.seen_seq = seq
    return found
