"""The search enrichment of each memory, as a person reads it (``kioku recall --verbose``, the web app).

``enrichment_report(project_root)`` lists every current memory with what search knows of it beyond
its text: the questions, the keywords in English and Japanese and the topic a model wrote, or that
it has none yet, that it went stale (its text was edited since: the worker or ``kioku enrich``
writes it again), or that the model's answer was unusable. ``describe(state)`` is one memory's
part as plain data. None of it is ever recalled at SessionStart or shown as the memory's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kioku.enrich.targets import ItemState, memory_items, states
from kioku.infra import clock

HEADER = ("Search enrichment (written by a model, used only by search to find a memory by other words; "
          "never part of the recall above):")
NOTES = {
    "none": "no search enrichment yet (`kioku enrich` writes it, with a model)",
    "stale": "search enrichment stale: written for an earlier wording, not used; it is written again",
    "failed": "no search enrichment: the model's answer was unusable (`kioku enrich` tries again)",
}


def describe(state: ItemState) -> dict[str, Any]:
    """One item's enrichment as data: its state and, when enriched, what was written and by which model."""
    out: dict[str, Any] = {"state": state.state, "note": NOTES.get(state.state, "")}
    e = state.row.enrichment if state.row is not None and state.state == "enriched" else None
    if e is not None:
        out.update(questions=list(e.questions), keywords_en=list(e.keywords_en), keywords_ja=list(e.keywords_ja),
                   topic=e.topic, model=e.model,
                   written=clock.utc_day(e.created) if e.created else "")
    return out


def _lines(state: ItemState) -> list[str]:
    from kioku.text.secrets import redact

    item = state.item
    head = " ".join(redact(item.text).split())
    head = head if len(head) <= 120 else head[:119] + "…"
    owner = f" [id {item.owner}]" if not item.owner.startswith("note:") else ""
    lines = [f"[{item.scope}] {head}{owner}"]
    info = describe(state)
    if state.state != "enriched":
        return lines + [f"    {info['note']}"]
    lines.append("    questions: " + " · ".join(info["questions"]))
    keywords = ", ".join(info["keywords_en"]) + (" · " + "、".join(info["keywords_ja"]) if info["keywords_ja"] else "")
    lines.append(f"    keywords: {keywords}")
    lines.append(f"    topic: {info['topic']} (model {info['model'] or 'unknown'}" +
                 (f", {info['written']})" if info["written"] else ")"))
    return lines


def enrichment_report(project_root: Path | None = None) -> str:
    found = states(memory_items(project_root))
    if not found:
        return HEADER + "\n(no memories)"
    out = [HEADER]
    for state in found:
        out.extend(_lines(state))
    return "\n".join(out)
