"""Export an agent's memory for human review, and import it back (JSON and Markdown).

JSON (``kioku export --agent NAME --format json``)::

    {"format": "kioku-agent-memory", "version": 1, "agent": "...", "exported_at": "...",
     "improvements": [{"id", "scope", "improvement", "metadata"}],
     "evaluations": [{"id", "scope", "document", "metadata"}],
     "performance": [{"id", "scope", "document", "metadata"}]}

Markdown: one section per improvement (heading with category, scope and numbers, the lesson as a
block quote, then an HTML comment ``<!-- kioku:improvement {json} -->`` holding id, scope and
metadata), so a person can read and edit the lessons and the file still imports. Markdown carries
improvements only; evaluations are summarised (count) and round-trip through JSON.

``kioku import PATH [--agent NAME]`` reads either format (and the JSON Lines archives written by
maintenance and rollback). Every document passes the secrets check before anything is written; a
file with a secret is refused as a whole. Improvement ids are re-derived for the target agent
(``kioku.agent.scopes.improvement_id``), so importing twice updates, never duplicates. Importing
into a different agent marks own lessons ``source="transferred"`` (not consolidated again) with
``original_id``. Re-importing into the same agent a lesson whose wording was edited in the export
replaces the old record (its id is in the export), keeping the usage statistics. Import only adds or
updates: a section deleted from the file does not delete anything. Items below the 0.5 confidence
floor are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kioku.agent import scopes as sc
from kioku.agent import stats
from kioku.agent.improvements import KIND, MIN_CONFIDENCE_STORE, new_metadata, now
from kioku.core.errors import UsageError

FORMAT = "kioku-agent-memory"
_COMMENT = re.compile(r"<!--\s*kioku:improvement\s+(\{.*?\})\s*-->", re.S)
BATCH = 500


def export_data(agent: str, project_root: Path | None = None) -> dict[str, Any]:
    agent = sc.validate_agent(agent)
    iso, _ = now()
    data: dict[str, Any] = {"format": FORMAT, "version": 1, "agent": agent, "exported_at": iso,
                            "improvements": [], "evaluations": [], "performance": []}
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        for rec in store.get(agent, KIND):
            data["improvements"].append({"id": rec.id, "scope": scope, "improvement": rec.document,
                                         "metadata": rec.metadata or {}})
        for kind in ("evaluations", "performance"):
            for rec in store.get(agent, kind):
                data[kind].append({"id": rec.id, "scope": scope, "document": rec.document,
                                   "metadata": rec.metadata or {}})
    data["improvements"].sort(key=lambda r: (r["scope"], float(r["metadata"].get("created_at_epoch", 0)), r["id"]))
    return data


def to_markdown(data: dict[str, Any]) -> str:
    imps = data["improvements"]
    lines = [f"# Agent memory: {data['agent']}", "",
             f"Exported {data['exported_at']} by Kioku. {len(imps)} improvements, "
             f"{len(data.get('evaluations', []))} evaluations (evaluations are in the JSON export).",
             "Edit lessons inside the quotes; keep the `kioku:improvement` comments to re-import with "
             "`kioku import FILE`.", ""]
    for n, item in enumerate(imps, 1):
        m = item["metadata"]
        s, uses = stats.usage_of(m)
        state = "deprecated" if m.get("deprecated") else ("promoted" if m.get("promoted") else "active")
        rate = "untested" if not stats.is_tested(m) else f"{s}/{uses} successes, Wilson ≥ {stats.wilson_of(m):.2f}"
        lines.append(f"## {n}. [{m.get('category', '')}] {item['scope']} · confidence "
                     f"{float(m.get('confidence', 0)):.2f} · {rate} · {state}")
        lines.append("")
        lines += ["> " + ln if ln else ">" for ln in item["improvement"].splitlines() or [""]]
        if m.get("deprecated_reason"):
            lines += ["", f"Deprecated: {m['deprecated_reason']}"]
        payload = json.dumps({"id": item["id"], "scope": item["scope"], "metadata": m},
                             ensure_ascii=False, sort_keys=True).replace("--", "\\u002d\\u002d")
        lines += ["", f"<!-- kioku:improvement {payload} -->", ""]
    return "\n".join(lines)


def parse_markdown(text: str) -> dict[str, Any]:
    agent = None
    head = re.search(r"^# Agent memory: (.+)$", text, re.M)
    if head:
        agent = head.group(1).strip()
    items: list[dict[str, Any]] = []
    pos = 0
    for match in _COMMENT.finditer(text):
        block = text[pos:match.start()]
        pos = match.end()
        quote = [ln for ln in block.splitlines() if ln.startswith(">")]
        lesson = "\n".join(ln[2:] if ln.startswith("> ") else ln[1:] for ln in quote).strip()
        try:
            payload = json.loads(match.group(1))
        except ValueError as exc:
            raise UsageError(f"broken kioku:improvement comment: {exc}") from None
        items.append({"id": payload.get("id", ""), "scope": payload.get("scope", "global"),
                      "improvement": lesson, "metadata": payload.get("metadata", {})})
    return {"format": FORMAT, "agent": agent, "improvements": items, "evaluations": [], "performance": []}


def parse_jsonl(text: str) -> dict[str, Any]:
    data: dict[str, Any] = {"format": FORMAT, "agent": None, "improvements": [], "evaluations": [],
                            "performance": []}
    for line in text.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        data["agent"] = data["agent"] or row.get("agent")
        kind = row.get("kind", "improvements")
        if kind == KIND:
            data[KIND].append({"id": row["id"], "scope": row.get("scope", "global"),
                               "improvement": row["document"], "metadata": row.get("metadata", {})})
        elif kind in ("evaluations", "performance"):
            data[kind].append({"id": row["id"], "scope": row.get("scope", "global"),
                               "document": row["document"], "metadata": row.get("metadata", {})})
    return data


def load_file(path: Path) -> dict[str, Any]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if not text.lstrip().startswith("{"):
        return parse_markdown(text)
    try:
        if path.suffix == ".jsonl" or "\n{" in text.strip():
            return parse_jsonl(text)
        data = json.loads(text)
    except (ValueError, KeyError) as exc:
        raise UsageError(f"cannot parse {path.name}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path.name} is not a Kioku agent-memory export")
    return data


def import_data(data: dict[str, Any], agent: str | None = None,
                project_root: Path | None = None) -> dict[str, Any]:
    from kioku.agent.chroma_store import Record
    from kioku.agent.digest import refresh_digest
    from kioku.core.secrets import ensure_storable

    source_agent = data.get("agent")
    target = sc.validate_agent(agent or source_agent or "")
    kinds = ("improvements", "evaluations", "performance")
    # all-or-nothing secrets check before the first write
    for kind in kinds:
        for item in data.get(kind, []):
            text = item.get("improvement") if kind == KIND else item.get("document")
            ensure_storable(str(text or ""), what=f"imported {kind[:-1]}")
    iso, epoch = now()
    batches: dict[tuple[str, str], list[Any]] = {}
    skipped = 0
    renamed: dict[str, list[str]] = {}
    for item in data.get(KIND, []):
        lesson = str(item.get("improvement") or "").strip()
        scope = item.get("scope") if item.get("scope") in sc.SCOPES else "global"
        old = dict(item.get("metadata") or {})
        if not lesson or float(old.get("confidence", 0.0) or 0.0) < MIN_CONFIDENCE_STORE:
            skipped += 1
            continue
        meta = new_metadata(target, scope, str(old.get("category") or "general"),
                            float(old.get("confidence")), learned_from="import", when=(iso, epoch))
        meta.update(old)
        meta.update(agent_name=target, scope=scope, imported_at=iso, imported_at_epoch=epoch)
        if source_agent and source_agent != target:
            meta["original_id"] = old.get("original_id") or item.get("id", "")
            if meta.get("source", "self") == "self":
                meta.update(source="transferred", consolidation_eligible=False)
        rec_id = sc.improvement_id(target, scope, lesson)
        batches.setdefault((scope, KIND), []).append(Record(id=rec_id, document=lesson, metadata=meta))
        old_id = str(item.get("id") or "")
        if old_id and old_id != rec_id and source_agent in (None, target):
            renamed.setdefault(scope, []).append(old_id)  # the lesson was edited in the export
    for kind in ("evaluations", "performance"):
        for item in data.get(kind, []):
            scope = item.get("scope") if item.get("scope") in sc.SCOPES else "global"
            meta = {**(item.get("metadata") or {}), "agent_name": target}
            batches.setdefault((scope, kind), []).append(
                Record(id=str(item["id"]), document=str(item.get("document") or ""), metadata=meta))
    counts: dict[str, int] = {}
    for (scope, kind), recs in batches.items():
        store = sc.open_scope(scope, project_root)
        for i in range(0, len(recs), BATCH):
            store.upsert(target, kind, recs[i:i + BATCH])
        counts[f"{scope}.{kind}"] = len(recs)
    for scope, ids in renamed.items():  # after the edited copies are safely written
        sc.open_scope(scope, project_root).delete(target, KIND, ids)
    if batches:
        refresh_digest(target, None, project_root)
    return {"agent": target, "imported": counts, "skipped": skipped}


def export_agent(agent: str, fmt: str = "md", out: Path | None = None,
                 project_root: Path | None = None) -> tuple[str, Path | None]:
    """Render the export; write it atomically to ``out`` if given. Returns (text, path)."""
    from kioku.core.fsutil import atomic_write_text

    data = export_data(agent, project_root)
    if fmt == "json":
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    elif fmt in ("md", "markdown"):
        text = to_markdown(data)
    else:
        raise UsageError("--format must be md or json")
    if out is not None:
        atomic_write_text(Path(out), text)
    return text, out


def import_file(path: Path, agent: str | None = None, project_root: Path | None = None) -> dict[str, Any]:
    return import_data(load_file(Path(path)), agent, project_root)
