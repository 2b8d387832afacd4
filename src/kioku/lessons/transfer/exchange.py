"""The agent-memory export files: writing an agent's memory for human review, and reading one back.

JSON (``kioku lessons export --agent NAME --format json``)::

    {"format": "kioku-agent-memory", "version": 1, "agent": "...", "exported_at": "...",
     "improvements": [{"id", "scope", "improvement", "metadata"}],
     "evaluations": [{"id", "scope", "document", "metadata"}],
     "performance": [{"id", "scope", "document", "metadata"}]}

Markdown: one section per lesson (heading with category, scope and numbers, the lesson as a
block quote, then an HTML comment ``<!-- kioku:improvement {json} -->`` holding id, scope and
metadata), so a person can read and edit the lessons and the file still imports. The copies one
``kioku lessons learn`` wrote of a lesson into both scopes share a section, with one comment per copy;
the second names the first (``"copy_of"``) and, with nothing but blank lines since that one,
takes its lesson, so an edit reaches both, as the hooks would otherwise go on giving the unedited
copy. A Kioku without this grouping reads the second comment as an empty, unchanged lesson:
imported there, an edit reaches the first copy only. Markdown carries
improvements only; evaluations are summarised (count) and round-trip through JSON.

The metadata comment is written with ASCII-only JSON and ``<`` escaped, so the copy printed to
standard output (defanged like every output Claude reads: NFKC, tag-like ``<`` as ``&lt;``)
keeps it byte for byte; only the lesson text shows the defanged form.

``load_file`` reads either format (and the JSON Lines archives written by maintenance and
rollback); ``kioku.lessons.transfer.importing`` merges what it read into an agent's store.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from kioku.lessons import scopes as sc
from kioku.lessons import stats
from kioku.lessons.improvements import KIND, now
from kioku.infra.errors import UsageError
from kioku.lessons.store.journal_lines import identifies
from kioku.text.secrets import redact_value

FORMAT = "kioku-agent-memory"
# on a line of its own: a lesson quoting one ("> ... <!-- kioku:improvement {...} -->") is text
_COMMENT = re.compile(r"^<!--[ \t]*kioku:improvement[ \t]+(\{[^\n]*?\})[ \t]*-->[ \t]*$", re.M)


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
    # no secret leaves in an export, whatever an older store still holds (ids, hashes and times kept)
    return redact_value(data, keep=identifies)


def _twins(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two exported improvements are the copies one ``kioku lessons learn`` wrote of a lesson into
    both scopes (``kioku.lessons.lesson_state.written_together``)."""
    from kioku.lessons.lesson_state import written_together

    def created(item: dict[str, Any]) -> float:
        meta = item.get("metadata")
        return stats.epoch_of(meta.get("created_at_epoch")) if isinstance(meta, dict) else 0.0

    return (a.get("scope") != b.get("scope") and a.get("improvement") == b.get("improvement")
            and written_together(created(a), created(b)))


def _sections(imps: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Improvements grouped as the dashboard shows them: twins (:func:`_twins`) share a section."""
    sections: list[list[dict[str, Any]]] = []
    open_by_text: dict[str, list[list[dict[str, Any]]]] = {}
    for item in imps:
        for group in open_by_text.get(item["improvement"], []):
            if all(_twins(item, other) for other in group):
                group.append(item)
                break
        else:
            sections.append([item])
            open_by_text.setdefault(item["improvement"], []).append(sections[-1])
    return sections


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _figures(m: dict[str, Any]) -> str:
    """Confidence, successes and the dashboard's word for a lesson (deprecated, promoted, candidate, active)."""
    s, uses = stats.usage_of(m)
    rate = "untested" if not stats.is_tested(m) else f"{s}/{uses} successes, Wilson ≥ {stats.wilson_of(m):.2f}"
    return f"confidence {float(m.get('confidence', 0)):.2f} · {rate} · {stats.decision_of(m)}"


def to_markdown(data: dict[str, Any]) -> str:
    imps = data["improvements"]
    sections = _sections(imps)
    both = sum(1 for group in sections if len(group) > 1)
    counted = (f"{_count(len(sections), 'lesson')} in {len(imps)} records ({both} stored in both scopes: "
               "one section each, and an edit applies to both copies)" if both else f"{len(imps)} improvements")
    lines = [f"# Agent memory: {data['agent']}", "",
             f"Exported {data['exported_at']} by Kioku. {counted}, "
             f"{len(data.get('evaluations', []))} evaluations (evaluations are in the JSON export).",
             "Edit lessons inside the quotes; keep the `kioku:improvement` comments to re-import with "
             "`kioku lessons import FILE`.", ""]
    for n, group in enumerate(sections, 1):
        figures = [_figures(item["metadata"]) for item in group]
        category = group[0]["metadata"].get("category", "")
        if len(set(figures)) == 1:
            lines.append(f"## {n}. [{category}] {' + '.join(i['scope'] for i in group)} · {figures[0]}")
        else:
            lines.append(f"## {n}. [{category}] " + "; ".join(f"{i['scope']} · {f}" for i, f in zip(group, figures)))
        lines.append("")
        lines += ["> " + ln if ln else ">" for ln in group[0]["improvement"].splitlines() or [""]]
        for item in group:
            if item["metadata"].get("deprecated_reason"):
                which = f" ({item['scope']} copy)" if len(group) > 1 else ""
                lines += ["", f"Deprecated{which}: {item['metadata']['deprecated_reason']}"]
        for n_copy, item in enumerate(group):
            # ASCII JSON without "<" or "--": defanging the printed export (NFKC, "<" before a
            # letter) cannot change it, and nothing in it can close the HTML comment. A second
            # copy names the first ("copy_of"), whose lesson it takes at import.
            fields = {"id": item["id"], "scope": item["scope"], "metadata": item["metadata"]}
            if n_copy:
                fields["copy_of"] = group[0]["id"]
            payload = (json.dumps(fields, ensure_ascii=True, sort_keys=True)
                       .replace("--", "\\u002d\\u002d").replace("<", "\\u003c"))
            lines += ["", f"<!-- kioku:improvement {payload} -->"]
        lines.append("")
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
        if not isinstance(payload, dict):
            raise UsageError("broken kioku:improvement comment: not an object")
        item = {"id": payload.get("id", ""), "scope": payload.get("scope", "global"),
                "improvement": lesson, "metadata": payload.get("metadata", {})}
        if not block.strip() and items and payload.get("copy_of") == items[-1]["id"] \
                and items[-1]["id"] and item["scope"] != items[-1]["scope"]:
            item["improvement"] = items[-1]["improvement"]  # the other copy of the section's lesson
        items.append(item)
    if agent is None and not items:
        raise UsageError("not a Kioku agent-memory export (no '# Agent memory: NAME' heading and no lessons)")
    return {"format": FORMAT, "agent": agent, "improvements": items, "evaluations": [], "performance": []}


def parse_jsonl(text: str) -> dict[str, Any]:
    data: dict[str, Any] = {"format": FORMAT, "agent": None, "improvements": [], "evaluations": [],
                            "performance": []}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if not isinstance(row, dict):
            raise UsageError(f"line {number} is not a JSON object")
        data["agent"] = data["agent"] or row.get("agent")
        kind = row.get("kind", "improvements")
        if kind == KIND:
            data[KIND].append({"id": row["id"], "scope": row.get("scope", "global"),
                               "improvement": row["document"], "metadata": row.get("metadata", {})})
        elif kind in ("evaluations", "performance"):
            data[kind].append({"id": row["id"], "scope": row.get("scope", "global"),
                               "document": row["document"], "metadata": row.get("metadata", {})})
    return data


MAX_IMPORT_BYTES = 256 * 1024 * 1024


def load_file(path: Path) -> dict[str, Any]:
    from kioku.infra.fsutil import NotRegularFile, read_regular

    path = Path(path)
    try:  # a regular file only (a link is followed to one): /dev/zero or a FIFO would never end
        data = read_regular(os.path.realpath(path), MAX_IMPORT_BYTES)
    except NotRegularFile:
        raise UsageError(f"cannot read {path}: not a regular file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_IMPORT_BYTES:
        raise UsageError(f"cannot read {path}: larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {path}: not UTF-8 text (byte {exc.start})") from None
    if not text.lstrip().startswith("{"):
        parsed = parse_markdown(text)
        from kioku.text.defang import defang

        # printed to standard output (every tag-like "<" shown as "&lt;"): a file written with
        # --out holds its lessons as stored, and defanging it would change it
        parsed["printed"] = "&lt;" in text and defang(text) == text
        return parsed
    try:
        if path.suffix == ".jsonl" or "\n{" in text.strip():
            return parse_jsonl(text)
        data = json.loads(text)
    except KeyError as exc:
        raise UsageError(f"cannot parse {path.name}: a record lacks the field {exc}") from None
    except ValueError as exc:
        raise UsageError(f"cannot parse {path.name}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path.name} is not a Kioku agent-memory export")
    return data


def export_agent(agent: str, fmt: str = "md", out: Path | None = None,
                 project_root: Path | None = None) -> tuple[str, Path | None]:
    """Render the export; write it atomically to ``out`` if given. Returns (text, path)."""
    from kioku.infra.fsutil import atomic_write_text

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
