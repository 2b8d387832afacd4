"""What the web UI and the HTML report show, read through the stores' own APIs.

Every function returns plain dicts and lists. Fields written by other parts of Kioku
(lesson evidence, per-turn verdicts) may be missing in older records: absent values are
``None`` here, and the views show "no data" for them, never a made-up 0.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kioku.infra import clock

LESSON_EVIDENCE = ("turns_given", "turns_held_back", "success_given", "success_held_back", "uplift",
                   "uplift_low", "uplift_high")
ERRORS_BY_BLAME = ("agent_errors", "user_rejections", "hook_blocks", "cascade_errors", "tool_errors")
TOKEN_KINDS = ("input", "output", "cache_write", "cache_read")


def number(value: Any) -> float | None:
    """A finite float, or None for missing, empty or non-numeric values."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out and out not in (float("inf"), float("-inf")) else None


def _json_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            loaded = json.loads(value)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


# -- memories -------------------------------------------------------------------------------


def memories(project_root: Path | None = None) -> list[dict[str, Any]]:
    """Every memory entry of the user and project folders, archived ones included; a project memory
    not written on this machine carries its provenance (``origin``) and whether it is withheld."""
    from kioku.memory.api import memory_dirs
    from kioku.memory.written import memory_digest

    verdicts = _project_verdicts(project_root)
    out: list[dict[str, Any]] = []
    for md in memory_dirs(project_root):
        for archived in (False, True):
            for name, topic in md.load_topics(archive=archived).items():
                for entry in topic.entries:
                    verdict = verdicts.get(memory_digest(entry.summary, entry.text)) if md.scope == "project" else None
                    origin = verdict.origin if verdict is not None else None
                    out.append({
                        "id": entry.id, "type": entry.type, "summary": entry.summary, "text": entry.text,
                        "status": "archived" if archived else entry.status, "scope": md.scope,
                        "topic": name, "created": entry.created,
                        "updated": entry.meta.get("edited") or entry.meta.get("restored") or "",
                        "file": str(topic.path), "line": entry.line,
                        "foreign": bool(verdict is not None and verdict.foreign),
                        "withheld": bool(verdict is not None and verdict.withheld),
                        "origin": origin.describe() if origin else "",
                    })
    out.sort(key=lambda m: (m["status"] != "active", m["created"]), reverse=False)
    _with_enrichment([m for m in out if m["status"] == "active"])
    return out


def _project_verdicts(project_root: Path | None) -> dict[str, Any]:
    """Content digest -> ``kioku.memory.screen.Verdict`` of every project memory, provenance looked up
    for those not written on this machine."""
    from kioku.infra.paths import find_project_root
    from kioku.memory.screen import ProjectScreen

    screen = ProjectScreen(project_root or find_project_root())
    found = {v.digest: v for v in screen.everything()}
    for verdict in found.values():
        if verdict.foreign:
            screen.origin(verdict)
    screen.save()
    return found


def withheld_memories(project_root: Path | None = None) -> list[dict[str, Any]]:
    """The project memories withheld from the agent (not written by Kioku here, asking it to act),
    with what they ask for, where they came from and their text (redacted) for the user to judge."""
    from kioku.infra.paths import find_project_root
    from kioku.memory.screen import ProjectScreen
    from kioku.text.secrets import redact

    screen = ProjectScreen(project_root or find_project_root())
    out = []
    for verdict in screen.withheld():
        text = verdict.summary if not verdict.text or verdict.text == verdict.summary else \
            f"{verdict.summary}\n{verdict.text}"
        out.append({"id": verdict.ref, "digest": verdict.digest, "file": verdict.file, "line": verdict.line,
                    "why": verdict.why(), "kinds": list(verdict.kinds), "archived": verdict.archived,
                    "matched": redact(verdict.phrase),
                    "origin": verdict.origin.describe() if verdict.origin else "", "text": redact(text)})
    screen.save()
    return out


def _with_enrichment(active: list[dict[str, Any]]) -> None:
    """Each active memory's search enrichment (``kioku.enrich.show.describe``) under "enrichment"."""
    from kioku.enrich.request import Item
    from kioku.enrich.show import describe
    from kioku.enrich.targets import states
    from kioku.retrieval.enrichment import content_key

    items = [Item("memory", content_key("memory", f"{m['summary']}\n{m['text']}"), m["id"], m["text"]) for m in active]
    try:
        found = states(items)
    except Exception:  # noqa: BLE001 - an unreadable sidecar: the memories are shown without it
        return
    for memory, state in zip(active, found):
        memory["enrichment"] = describe(state)


def hand_notes(project_root: Path | None = None) -> list[dict[str, Any]]:
    """Notes written by hand into MEMORY.md (lines that are not Kioku's entries), as recall and
    search read them: typed by their section, secrets redacted, comments and code left out."""
    from kioku.memory.api import memory_dirs
    from kioku.memory.index import IndexUnreadable, index_notes, read_index_text, redacted_index_lines

    out: list[dict[str, Any]] = []
    for md in memory_dirs(project_root):
        try:
            text = read_index_text(md.index_path) if not md.index_path.is_symlink() else None
        except (IndexUnreadable, OSError):
            continue
        if not text:
            continue
        for number, type_, note, _topic, entry in index_notes(redacted_index_lines(text.splitlines())):
            if not entry:
                out.append({"scope": md.scope, "file": str(md.index_path), "line": number, "type": type_,
                            "text": note})
    return out


def search_memories(query: str, project_root: Path | None = None,
                    limit: int = 20) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(hits, nearest): the same search as ``kioku search`` (archive included, so restorable hits
    show too) and, only when nothing passes its cut-off, the nearest memories below it."""
    from kioku.memory.search import search_or_nearest

    hits, nearest = search_or_nearest(query, project_root=project_root, limit=limit, archive=True)
    return [hit.to_dict() for hit in hits], [hit.to_dict() for hit in nearest]


# -- agents ---------------------------------------------------------------------------------


def agent_names(project_root: Path | None = None) -> list[str]:
    from kioku.lessons import scopes as sc

    found: set[str] = set()
    for scope in sc.existing_scopes(project_root):
        found.update(sc.open_scope(scope, project_root).agents())
    return sorted(found)


def lessons(agent: str, project_root: Path | None = None) -> list[dict[str, Any]]:
    from kioku.lessons.improvements import all_improvements
    from kioku.lessons.lesson_state import one_per_lesson
    from kioku.lessons.stats import decision_of, suspension_of, wilson_of

    out: list[dict[str, Any]] = []
    for scope, rec in one_per_lesson(all_improvements(agent, project_root)):
        meta = rec.metadata or {}
        item = {
            "id": rec.id, "scope": scope, "lesson": rec.document, "category": str(meta.get("category", "")),
            "confidence": number(meta.get("confidence")),
            "usage_count": number(meta.get("usage_count")), "success_count": number(meta.get("success_count")),
            "success_rate": number(meta.get("success_rate")) if meta.get("tested") else None,
            "wilson_lower": wilson_of(meta) if meta.get("tested") else None,
            # from the flags, as the dashboard shows it: the stored ``decision`` field is written
            # only by changes made by hand, not by the automatic lifecycle, so it can be stale
            "decision": decision_of(meta),
            "decision_reason": str(meta.get("decision_reason") or meta.get("deprecated_reason") or ""),
            "deprecated": bool(meta.get("deprecated")),
            # a model judge said following it hurt: the reason, when, and the session and turn
            "suspension": suspension_of(meta),
            "tags": str(meta.get("tags", "")), "created_at": str(meta.get("created_at", "")),
            "created_at_epoch": number(meta.get("created_at_epoch")),
            "deprecated_at_epoch": number(meta.get("deprecated_at_epoch")),
        }
        for key in LESSON_EVIDENCE:
            item[key] = number(meta.get(key))
        out.append(item)
    order = {"promoted": 0, "active": 1, "suspended": 2, "candidate": 3, "deprecated": 4}
    out.sort(key=lambda x: (order.get(x["decision"], 3), -(x["confidence"] or 0.0), x["id"]))
    return out


# -- evaluations ----------------------------------------------------------------------------


def _outcome(meta: dict[str, Any]) -> str | None:
    outcome = meta.get("outcome")
    if isinstance(outcome, str) and outcome:
        return outcome
    if isinstance(meta.get("success"), bool):
        return "success" if meta["success"] else "failed"
    return None


def _tokens(meta: dict[str, Any]) -> dict[str, float | None]:
    nested = _json_dict(meta.get("tokens"))
    out: dict[str, float | None] = {}
    for kind in TOKEN_KINDS:
        out[kind] = number(nested.get(kind, meta.get(f"tokens_{kind}", meta.get(f"{kind}_tokens"))))
    if all(v is None for v in out.values()) and number(meta.get("tokens")) is not None:
        out["total"] = number(meta.get("tokens"))
    return out


def evaluation_rows(agent: str, project_root: Path | None = None, limit: int | None = 50) -> list[dict[str, Any]]:
    """The newest evaluation records of ``agent`` (newest first), old and per-turn fields alike."""
    from kioku.lessons import scopes as sc

    found: dict[str, Any] = {}
    for scope in sc.existing_scopes(project_root):
        for rec in sc.open_scope(scope, project_root).get(agent, "evaluations"):
            found.setdefault(rec.id, rec)
    rows: list[dict[str, Any]] = []
    for rec in found.values():
        meta = rec.metadata or {}
        # when the work happened (the turn's prompt, else its transcript), not when it was judged:
        # a transcript evaluated days later still belongs to its own day
        epoch = (number(meta.get("started_at_epoch")) or number(meta.get("transcript_epoch"))
                 or number(meta.get("timestamp_epoch")) or 0.0)
        rows.append({
            "id": rec.id, "epoch": epoch, "prompt_index": number(meta.get("prompt_index")) or 0,
            "timestamp": clock.utc_minute(epoch) if epoch else str(meta.get("timestamp", "")),
            "task": str(meta.get("task") or _task_from(rec.document)), "outcome": _outcome(meta),
            "reason": str(meta.get("reason", "")), "quality": number(meta.get("quality")),
            "errors": {k: _error_value(meta.get(k)) for k in ERRORS_BY_BLAME},
            "retries": number(meta.get("retries")), "feedback": meta.get("feedback_on_previous", meta.get("feedback")),
            "tokens": _tokens(meta), "active_s": number(meta.get("active_s")),
            "wall_s": number(meta.get("wall_s", meta.get("duration_s"))),
        })
    rows.sort(key=lambda r: (-r["epoch"], -r["prompt_index"]))
    return rows[:limit] if limit else rows


def _error_value(value: Any) -> float | str | None:
    """A count, or the recorded text when a store keeps the errors of one blame as a list or names."""
    count = number(value)
    if count is not None:
        return count
    if isinstance(value, str) and value.strip() and value.strip() not in ("[]", "{}"):
        return value.strip()
    return None


def _task_from(document: str) -> str:
    first = (document or "").splitlines()[0] if document else ""
    return first[len("Task: "):] if first.startswith("Task: ") else ""


# -- trends ---------------------------------------------------------------------------------


MAX_FILLED_DAYS = 92  # a longer span is shown by its days with data only (the axis stays readable)


def _days_between(days: list[str]) -> list[str]:
    """Every day from the first to the last of ``days`` (sorted ISO dates), or ``days`` itself
    when they span more than MAX_FILLED_DAYS."""
    if len(days) < 2:
        return days
    first = datetime.strptime(days[0], "%Y-%m-%d").replace(tzinfo=timezone.utc)
    last = datetime.strptime(days[-1], "%Y-%m-%d").replace(tzinfo=timezone.utc)
    span = (last - first).days
    if span > MAX_FILLED_DAYS:
        return days
    return [clock.utc_day(first.timestamp() + n * 86400) for n in range(span + 1)]




def _week(epoch: float) -> str:
    year, week, _ = datetime.fromtimestamp(epoch, tz=timezone.utc).isocalendar()
    return f"{year}-W{week:02d}"


def trends(agent: str, project_root: Path | None = None, evaluations: list[dict[str, Any]] | None = None,
           lesson_rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Success rate and quality per day, lessons learned and deprecated per ISO week."""
    rows = evaluations if evaluations is not None else evaluation_rows(agent, project_root, limit=None)
    by_day: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row["epoch"]:
            by_day.setdefault(clock.utc_day(row["epoch"]), []).append(row)
    daily = []
    for day in _days_between(sorted(by_day)):
        if day not in by_day:  # a day without turns: no point, and the line breaks there
            daily.append({"day": day, "turns": 0, "success_rate": None, "quality": None})
            continue
        judged = [r for r in by_day[day] if r["outcome"] in ("success", "partial", "failed")]
        qualities = [r["quality"] for r in by_day[day] if r["quality"] is not None]
        daily.append({
            "day": day, "turns": len(by_day[day]),
            "success_rate": (sum(r["outcome"] == "success" for r in judged) / len(judged)) if judged else None,
            "quality": (sum(qualities) / len(qualities)) if qualities else None,
        })
    from kioku.lessons.lesson_state import written_together

    items = lesson_rows if lesson_rows is not None else lessons(agent, project_root)
    weeks: dict[str, dict[str, int]] = {}
    seen: dict[str, list[float]] = {}
    for lesson in items:
        # a lesson stored in both scopes is one lesson learned (its copies are two rows only
        # when their states differ: see kioku.lessons.lesson_state.one_per_lesson)
        written = lesson["created_at_epoch"] or 0.0
        if any(written_together(written, other) for other in seen.get(lesson["lesson"], [])):
            continue
        seen.setdefault(lesson["lesson"], []).append(written)
        if lesson["created_at_epoch"]:
            weeks.setdefault(_week(lesson["created_at_epoch"]), {"learned": 0, "deprecated": 0})["learned"] += 1
        if lesson["deprecated"] and lesson["deprecated_at_epoch"]:
            weeks.setdefault(_week(lesson["deprecated_at_epoch"]), {"learned": 0, "deprecated": 0})["deprecated"] += 1
    weekly = [{"week": week, **counts} for week, counts in sorted(weeks.items())]
    return {"daily": daily, "weekly": weekly}


# -- health ---------------------------------------------------------------------------------


def health(project_root: Path | None = None) -> dict[str, Any]:
    """``kioku doctor``'s checks, hook jobs, and per collection the store's count beside the journal's."""
    from kioku.lessons import scopes as sc
    from kioku.lessons.store.client import KINDS
    from kioku.infra import jobs
    from kioku.install.doctor import run_checks

    failed = len(list(jobs.failed_dir().glob("*.json"))) if jobs.failed_dir().is_dir() else 0
    stores: list[dict[str, Any]] = []
    for scope in sc.existing_scopes(project_root):
        store = sc.open_scope(scope, project_root)
        try:
            expected = store.journal.record_counts()
            pending = store.pending()
            for agent in store.agents():
                for kind in KINDS:
                    name = store.name(agent, kind)
                    stores.append({"scope": scope, "agent": agent, "kind": kind,
                                   "store": store.count(agent, kind), "journal": expected.get(name),
                                   "pending": pending})
        except Exception as exc:  # noqa: BLE001 - a broken store is what this view must show
            stores.append({"scope": scope, "agent": "", "kind": "", "store": None, "journal": None,
                           "pending": None, "error": f"{type(exc).__name__}: {exc}"})
    return {"checks": run_checks(project_root), "jobs_pending": len(jobs.pending()), "jobs_failed": failed,
            "stores": stores, "judge": _judge_status(project_root),
            "generated": clock.iso_z()}


def _judge_status(project_root: Path | None) -> str:
    """``kioku judge status`` as text (the doctor's checks already report a broken config)."""
    from kioku.infra import paths
    from kioku.model.status import format_status, status

    try:
        return format_status(status(project_root or paths.find_project_root()))
    except Exception as exc:  # noqa: BLE001 - the page shows the rest either way
        return f"model judge status unavailable: {exc}"
