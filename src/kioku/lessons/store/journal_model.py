"""The store a journal describes: its entries folded into records.

:func:`fold` applies one journal entry to an in-memory model of the store with Chroma's merge
semantics (what ``Journal.live_counts``, ``record_counts`` and ``compact`` count and keep), and
:func:`snapshot_lines` writes such a model back as journal lines (the snapshot archives), each line without secrets
(``journal_lines``).
"""

from __future__ import annotations

import json
import time

from kioku.lessons.store.journal_lines import line


def snapshot_lines(collections: dict[str, dict], seq: int) -> list[str]:
    """Journal lines that recreate ``collections`` (the shape :func:`fold` builds): ``upsert``
    entries of up to 1,000 records at ``seq``, or one ``noop`` keeping the seq when all is empty."""
    lines = []
    for name, col in sorted(collections.items()):
        ids = list(col["records"])
        for start in range(0, len(ids), 1000):
            chunk = ids[start : start + 1000]
            lines.append(line({
                "seq": seq, "ts": time.time(), "op": "upsert", "collection": name, "agent": col["agent"],
                "kind": col["kind"], "project_id": col["project_id"], "ids": chunk,
                "documents": [col["records"][i][0] for i in chunk],
                "metadatas": [col["records"][i][1] or {"kioku_placeholder": True} for i in chunk],
                "snapshot": True}))
    if not lines:  # everything was deleted: keep the seq marker
        lines.append(json.dumps({"seq": seq, "ts": time.time(), "op": "noop", "snapshot": True}))
    return lines


def fold(state: dict[str, dict], entry: dict) -> None:
    """Apply one entry to an in-memory model of the store (Chroma's merge semantics)."""
    op = entry.get("op")
    if op == "upsert":
        col = state.setdefault(entry["collection"], {"agent": entry.get("agent"), "kind": entry.get("kind"),
                                                     "project_id": entry.get("project_id"), "records": {}})
        for rid, doc, meta in zip(entry["ids"], entry["documents"], entry["metadatas"]):
            old = col["records"].get(rid, (None, {}))[1]
            col["records"][rid] = (doc, {**old, **{k: v for k, v in meta.items() if k != "kioku_placeholder"}})
    elif op == "update":
        col = state.get(entry["collection"])
        if col:
            for rid, meta in zip(entry["ids"], entry["metadatas"]):
                if rid in col["records"]:
                    doc, old = col["records"][rid]
                    col["records"][rid] = (doc, {**old, **meta})
    elif op == "delete":
        col = state.get(entry["collection"])
        if col:
            for rid in entry["ids"]:
                col["records"].pop(rid, None)
    elif op == "drop":
        for name in entry["collections"]:
            state.pop(name, None)
    elif op == "copy":
        for src_name, dst_name, kind in entry["pairs"]:
            src = state.get(src_name)
            if not src:
                continue
            dst = state.setdefault(dst_name, {"agent": entry.get("dst_agent"), "kind": kind,
                                              "project_id": entry.get("project_id"), "records": {}})
            for rid, (doc, meta) in src["records"].items():
                old = dst["records"].get(rid, (None, {}))[1]
                dst["records"][rid] = (doc, {**old, **meta})
