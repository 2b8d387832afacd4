"""What can be enriched: the current memories and the active lessons in scope, and their state.

``memory_items(project_root)``: every current memory ``kioku search`` searches (topic entries,
lines written by hand into MEMORY.md or before a topic file's first heading) of the user-wide
and the project folder. ``lesson_items(project_root, agent=None)``: every lesson retrieval can
return (not deprecated, confidence at least 0.7) of each agent, in both scopes. Items with the
same text are one item (one call enriches both). ``states(items)`` says of each whether it is
``enriched``, ``stale`` (enriched for an earlier wording: its text was edited since), ``failed``
(the model gave no usable answer) or ``none``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kioku.enrich.request import Item
from kioku.retrieval.enrichment import Row, content_key, default_path, default_store

STATES = ("enriched", "stale", "failed", "none")


def _readable(text: str) -> str:
    """A topic entry's searched text is its summary, then its text: the text alone when it
    begins with the summary (the summary is cut from it)."""
    summary, _, body = text.partition("\n")
    if body and body.startswith(summary.rstrip("…").rstrip()):
        return body
    return text


def _memory_item(m) -> Item:
    key = content_key("memory", m.text)
    label = ", ".join(part for part in (f"type {m.type}" if m.type else "", f"topic {m.topic}" if m.topic else "")
                      if part)
    return Item("memory", key, m.entry_id or f"note:{key[:16]}", _readable(m.text), label, "", m.scope,
                str(Path(m.key[0]).parent))


def memory_items(project_root: Path | None = None) -> list[Item]:
    from kioku.memory.search import collect

    memories, _signature = collect(project_root, archive=False)
    return _distinct(_memory_item(m) for m in memories if m.text.strip())


def memories_in(folder: Path, scope: str) -> list[Item]:
    """The current memories of one memory folder (what a saved memory's marker points at)."""
    from kioku.memory.search import folder_memories

    if not folder.is_dir():
        return []
    return _distinct(_memory_item(m) for m in folder_memories(folder, scope) if m.current and m.text.strip())


def lesson_item(agent: str, scope: str, record) -> Item:
    meta = dict(record.metadata or {})
    category = str(meta.get("category") or "")
    return Item("lesson", content_key("lesson", record.document or ""), record.id, record.document or "",
                f"category {category}" if category else "", agent, scope)


def lesson_items(project_root: Path | None = None, agent: str | None = None) -> list[Item]:
    from kioku.lessons import scopes as sc
    from kioku.lessons import stats
    from kioku.lessons.improvements import MIN_CONFIDENCE_ACTIVE, all_improvements

    agents: set[str] = set()
    if agent:
        agents.add(sc.validate_agent(agent))
    else:
        for scope in sc.existing_scopes(project_root):
            agents.update(sc.open_scope(scope, project_root).agents())
    items: list[Item] = []
    for name in sorted(agents):
        for scope, record in all_improvements(name, project_root):
            if (record.document or "").strip() and stats.is_active(dict(record.metadata or {}), MIN_CONFIDENCE_ACTIVE):
                items.append(lesson_item(name, scope, record))
    return _distinct(items)


def _distinct(items) -> list[Item]:
    seen: set[tuple[str, str]] = set()
    out: list[Item] = []
    for item in items:
        if (item.kind, item.key) not in seen:
            seen.add((item.kind, item.key))
            out.append(item)
    return out


@dataclass(frozen=True)
class ItemState:
    item: Item
    state: str                      # one of STATES
    row: Row | None = None          # its row (enriched / failed), or the owner's older row (stale)


def states(items: list[Item]) -> list[ItemState]:
    if not items or not default_path().exists():
        return [ItemState(item, "none") for item in items]
    store = default_store()
    out: list[ItemState] = []
    for kind in {item.kind for item in items}:
        mine = [item for item in items if item.kind == kind]
        rows = store.rows(kind, [item.key for item in mine])
        owners = store.by_owner(kind, [item.owner for item in mine if item.key not in rows])
        for item in mine:
            row = rows.get(item.key)
            if row is not None:
                out.append(ItemState(item, "enriched" if row.status == "ok" else "failed", row))
            elif item.owner in owners and owners[item.owner].key != item.key:
                out.append(ItemState(item, "stale", owners[item.owner]))
            else:
                out.append(ItemState(item, "none"))
    order = {id(item): i for i, item in enumerate(items)}
    return sorted(out, key=lambda s: order[id(s.item)])
