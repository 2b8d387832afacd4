"""The keyword index beside a Chroma store, and refilling it from Chroma.

``kioku.retrieval.fts.LexicalIndex`` at ``<chroma_dir>/kioku_lexical.sqlite3`` mirrors every
document of the store (the apply step writes both). It is refilled from Chroma when:

- it was damaged: ``LexicalIndex`` sets a damaged file aside and makes a new one when opened,
  which then needs the store's documents (:func:`refill_if_needed`, when the write lock is free;
  a writer holding the lock refills it at the end of its sync instead);
- entries were applied while it could not be imported (``lexical_stale`` in the journal state;
  :func:`rebuild_if_stale`, called with the write lock held).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from kioku.infra import fsutil
from kioku.lessons.store.apply import PAGE

log = logging.getLogger("kioku.lessons.store")
FILE_NAME = "kioku_lexical.sqlite3"


def index_of(store: Any, *, store_checked: bool) -> Any:
    """The store's keyword index (None when the FTS module is unavailable), opened once per
    store object; a damaged one is refilled here when ``store_checked`` (the first-use check of
    the store ran, so reading Chroma cannot start a rebuild under our feet)."""
    # _lex is assigned before _lex_checked so a second thread never sees "checked" with the
    # index not yet set (retrieval runs the lexical search in a worker thread)
    if not store._lex_checked:
        try:
            from kioku.retrieval.fts import LexicalIndex
        except ImportError:
            store._lex = None
        else:
            store._lex = LexicalIndex(store.chroma_dir / FILE_NAME)
        store._lex_checked = True
        refill_if_needed(store, store_checked=store_checked)
    return store._lex


def refill_if_needed(store: Any, *, store_checked: bool) -> None:
    """Refill a keyword index that was made anew (it was damaged) from Chroma, when the lock is free."""
    lex = store._lex
    if lex is None or store.server:
        return
    try:
        if not lex.needs_refill():
            return
    except Exception as exc:  # noqa: BLE001 - locked or unreadable: the next use tries again
        log.debug("kioku: keyword index not checked: %s", exc)
        return
    if lex.recreated:
        store._warn(f"the keyword index {lex.db_path} was damaged; it was set aside as "
                    f"{Path(lex.set_aside).name} and is rebuilt from the store")
    # only once the store was checked and holds something; otherwise a later sync refills it
    # (the need is kept in the file)
    if not store_checked or not (store.chroma_dir / "chroma.sqlite3").exists():
        return
    with fsutil.try_lock(store.journal.lock_path) as got:
        if got:
            try:
                rebuild_if_stale(store)
            except Exception as exc:  # noqa: BLE001 - reads fall back to Chroma alone
                log.info("kioku: keyword index not refilled yet: %s", exc)


def rebuild_if_stale(store: Any) -> None:
    """Entries applied while the keyword index was unavailable, or an index made anew: index
    every document of the store's Kioku collections again. Lock held."""
    lex = store._lexical()
    if lex is None or not (store.journal.state().get("lexical_stale") or lex.needs_refill()):
        return
    conn = store._conn()
    for listed in conn.client.list_collections():
        name = listed.name
        if not name.startswith("agent_"):
            continue
        col = store._collection(conn, name)
        offset = 0
        while col is not None:
            got = col.get(include=["documents"], limit=PAGE, offset=offset)
            if not got["ids"]:
                break
            lex.upsert(name, list(zip(got["ids"], got["documents"])))
            offset += len(got["ids"])
    store.journal.set_state(lexical_stale=False)
    lex.mark_refilled()
