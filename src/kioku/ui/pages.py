"""Whole pages of the web app: layout, Memory, Agents, Evaluations, Trends, Health.

Pages are rendered on the server from escaped data; the only script is the static
``app.js`` (confirmation prompts; it drops the one-time message from the address), which the
page works without.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from kioku.ui.agent_views import evaluations_section, lessons_section, trends_section
from kioku.ui.html import NO_DATA, cell, e, post_form, table

VIEWS = (("memory", "Memory"), ("agents", "Agents"), ("evaluations", "Evaluations"), ("trends", "Trends"),
         ("health", "Health"))
TYPES = ("user", "project", "feedback", "reference")


def layout(active: str, body: str, message: str = "", error: bool = False, nonce: str = "") -> str:
    current = ' aria-current="page"'
    nav = "".join(f'<a href="/{key}" class="{"active" if key == active else ""}" id="nav-{key}"'
                  f'{current if key == active else ""}>{label}</a>' for key, label in VIEWS)
    flash = f'<p class="flash {"error" if error else "ok"}" role="status">{e(message)}</p>' if message else ""
    title = dict(VIEWS).get(active, "Kioku")
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>Kioku: {e(title)}</title><link rel=\"stylesheet\" href=\"/static/app.css\">"
            f"<script src=\"/static/app.js\" defer nonce=\"{e(nonce)}\"></script></head>"
            f'<body><header><span class="brand">Kioku</span><nav>{nav}</nav></header>'
            f"<main>{flash}{body}</main></body></html>")


def _type_select(current: str) -> str:
    options = "".join(f'<option value="{t}"{" selected" if t == current else ""}>{t}</option>' for t in TYPES)
    return f'<select name="type" aria-label="type">{options}</select>'


def _memory_card(memory: dict[str, Any], csrf: str) -> str:
    dates = f'created {e(memory["created"][:10])}' + (f', changed {e(memory["updated"][:10])}' if memory["updated"] else "")
    head = (f'<div class="meta"><span class="type {e(memory["type"])}">{e(memory["type"])}</span> '
            f'<span class="topic">{e(memory["topic"])}</span> · {dates} · id <code>{e(memory["id"])}</code></div>')
    text = f'<div class="text">{e(memory["text"])}</div>'
    if memory.get("foreign"):
        state = "withheld from the agent (see above)" if memory.get("withheld") else "shown to the agent with this"
        source = f'from git: {memory["origin"]}' if memory.get("origin") else "not written by Kioku on this machine"
        head += f'<div class="origin">{e(source)} · {e(state)}</div>'
    if memory["status"] == "archived":
        actions = post_form("/memory/restore", csrf, {"id": memory["id"]}, "Restore", css="restore")
    elif memory["status"] != "active":
        actions = f'<span class="status">{e(memory["status"])}</span>'
    else:
        actions = (f'<details class="edit"><summary>Edit</summary><form method="post" action="/memory/edit" '
                   f'class="edit-form"><input type="hidden" name="csrf" value="{e(csrf)}">'
                   f'<input type="hidden" name="id" value="{e(memory["id"])}">'
                   f'<textarea name="text" rows="4" aria-label="text">{e(memory["text"])}</textarea>'
                   f'{_type_select(memory["type"])}<button type="submit">Save</button></form></details>'
                   + post_form("/memory/forget", csrf, {"id": memory["id"]}, "Forget", css="forget",
                               confirm="Move this memory to the archive?"))
    return (f'<article class="memory {e(memory["status"])}" data-id="{e(memory["id"])}">'
            f'<h3>{e(memory["summary"])}</h3>{head}{text}<div class="actions">{actions}</div></article>')


def _where(path: str) -> str:
    """A hit's file as the memory folder names it: ``archive/<topic>.md`` for an archived one."""
    folder, _, name = path.rpartition("/")
    return f"archive/{name}" if folder.endswith("/archive") else name


def withheld_section(withheld: list[dict[str, Any]], csrf: str) -> str:
    """Project memories kept from the agent until the user trusts them, each with a Trust button."""
    if not withheld:
        return ""
    rows = []
    for item in withheld:
        action = post_form("/memory/trust", csrf, {"digest": item["digest"], "id": item["id"]}, "Trust",
                           css="trust", confirm="Let the agent see this memory from the next session on?")
        command = f'<code>kioku trust {e(item["id"])}</code>'
        found = f' <span class="matched">(found: {e(item["matched"])})</span>' if item.get("matched") else ""
        rows.append(f'<tr data-id="{e(item["id"])}">{cell(e(item["file"]) + ":" + e(item["line"]))}'
                    f'{cell(e(item["origin"] or "not from git"))}{cell(e(item["why"]) + found)}'
                    f'{cell(e(item["text"]), "text")}{cell(action + " or " + command)}</tr>')
    return (f'<section id="withheld"><h2>Withheld from the agent ({len(withheld)})</h2>'
            "<p>Project memories Kioku did not write on this machine (committed by someone else, or edited by "
            "hand) that ask the agent to act: run commands, fetch or pipe URLs, read credentials or ignore its "
            "instructions. No session sees them until you trust them here or with <code>kioku trust ID</code> "
            "in your terminal; a trust holds for the text as it is, and an edit withholds it again.</p>"
            f'{table(("Where", "From", "Asks the agent", "Memory", "Allow"), rows, "withheld")}</section>')


def memory_page(memories: list[dict[str, Any]], csrf: str, query: str = "",
                hits: list[dict[str, Any]] | None = None, nearest: list[dict[str, Any]] | None = None,
                notes: list[dict[str, Any]] | None = None, withheld: list[dict[str, Any]] | None = None) -> str:
    search = (f'<form method="get" action="/memory" class="search"><input type="search" name="q" '
              f'value="{e(query)}" placeholder="search memories" aria-label="search">'
              f'<button type="submit">Search</button></form>')
    parts = [f"<h1>Memory</h1>{search}", withheld_section(withheld or [], csrf)]
    if hits is not None:
        def rows(found: list[dict[str, Any]]) -> list[str]:
            return [f'<tr>{cell(e(h["scope"]))}{cell(e(_where(h["file"])) + ":" + e(h["line"]))}'
                    f'{cell(e(h["text"]))}</tr>' for h in found]

        if hits:
            parts.append(f'<section id="search-results"><h2>Results for “{e(query)}”</h2>'
                         f'{table(("Scope", "Where", "Memory"), rows(hits), "hits")}</section>')
        else:
            # as `kioku search` says it: nothing is a close match; the nearest are shown apart
            near = (f'<p>Nearest memories, below the relevance cut-off (probably not what was asked):</p>'
                    f'{table(("Scope", "Where", "Memory"), rows(nearest), "nearest")}' if nearest else "")
            parts.append(f'<section id="search-results"><h2>Results for “{e(query)}”</h2>'
                         f'<p class="empty">No close match.</p>{near}</section>')
    for scope in ("user", "project"):
        mine = [m for m in memories if m["scope"] == scope and m["status"] == "active"]
        parts.append(f'<section class="scope" id="scope-{scope}"><h2>{scope.capitalize()} memories ({len(mine)})</h2>')
        for type_ in TYPES:
            group = [m for m in mine if m["type"] == type_]
            if group:
                parts.append(f'<h3 class="group">{type_}</h3>' + "".join(_memory_card(m, csrf) for m in group))
        if not mine:
            parts.append('<p class="empty">No memories yet.</p>')
        parts.append("</section>")
    if notes:
        rows = [f'<tr>{cell(e(n["scope"]))}{cell(e(_where(n["file"])) + ":" + e(n["line"]))}'
                f'{cell(e(n["type"] or "-"))}{cell(e(n["text"]))}</tr>' for n in notes]
        parts.append(f'<section id="hand-notes"><h2>Written by hand in MEMORY.md ({len(notes)})</h2>'
                     '<p>Recalled and searched like the others; edit them in the file itself.</p>'
                     f'{table(("Scope", "Where", "Type", "Note"), rows, "hand-notes")}</section>')
    others = [m for m in memories if m["status"] != "active"]
    parts.append(f'<section id="archive"><h2>Archived and superseded ({len(others)})</h2>'
                 + ("".join(_memory_card(m, csrf) for m in others) or '<p class="empty">Nothing archived.</p>')
                 + "</section>")
    return "".join(parts)


def agent_picker(view: str, agents: list[str], current: str) -> str:
    if not agents:
        return f'<p class="empty">No agent has learned anything yet ({NO_DATA}).</p>'
    links = "".join(f'<a href="/{view}?agent={quote(a)}" class="{"active" if a == current else ""}">{e(a)}</a>'
                    for a in agents)
    return f'<nav class="agents">{links}</nav>'


def agents_page(agents: list[str], current: str, lessons: list[dict[str, Any]], csrf: str) -> str:
    body = "<h1>Agents</h1>" + agent_picker("agents", agents, current)
    return body + (lessons_section(current, lessons, csrf) if current else "")


def evaluations_page(agents: list[str], current: str, rows: list[dict[str, Any]], limit: int = 50) -> str:
    body = "<h1>Evaluations</h1>" + agent_picker("evaluations", agents, current)
    return body + (evaluations_section(current, rows[:limit], total=len(rows)) if current else "")


def trends_page(agents: list[str], current: str, trend: dict[str, Any] | None) -> str:
    body = "<h1>Trends</h1>" + agent_picker("trends", agents, current)
    return body + (trends_section(current, trend) if current and trend is not None else "")


def health_page(health: dict[str, Any]) -> str:
    checks = []
    for check in health["checks"]:
        state = "warning" if check.get("warning") else ("ok" if check.get("ok") else "failed")
        checks.append(f'<tr class="{state}">{cell(e(check.get("check")))}{cell(e(state))}{cell(e(check.get("detail")))}</tr>')
    stores = []
    for row in health["stores"]:
        if row.get("error"):
            stores.append(f'<tr class="failed">{cell(e(row["scope"]))}<td colspan="5">{e(row["error"])}</td></tr>')
            continue
        same = row["journal"] is None or row["store"] == row["journal"]
        stores.append(f'<tr class="{"ok" if same else "failed"}">{cell(e(row["scope"]))}{cell(e(row["agent"]))}'
                      f'{cell(e(row["kind"]))}{cell(e(row["store"]))}'
                      f'{cell(e(row["journal"]) if row["journal"] is not None else ("0" if not row["store"] else "not in the journal"))}'
                      f'{cell(e(row["pending"]))}</tr>')
    jobs = (f'<p class="jobs">Hook jobs: {e(health["jobs_pending"])} pending, {e(health["jobs_failed"])} failed.</p>')
    return ("<h1>Health</h1>" + f'<section id="doctor"><h2>kioku doctor</h2>'
            + table(("Check", "State", "Detail"), checks, "checks") + "</section>" + jobs
            + '<section id="stores"><h2>Agent stores: Chroma vs journal</h2>'
            + table(("Scope", "Agent", "Collection", "In Chroma", "In journal", "Pending writes"), stores, "stores")
            + "</section>")
