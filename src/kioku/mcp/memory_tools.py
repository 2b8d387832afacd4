"""The memory tools: save, search, recall and forget, through the memory-system's own functions.

- ``memory_save`` is ``kioku.memory.api.remember`` (the "remember" path of the prompt hook and
  ``kioku remember``: secret filter, guard, duplicates, contradictions, the folder lock); the
  note is also checked with its line breaks removed, as the hook checks a prompt, so a key split
  over lines is refused too.
- ``memory_search`` is ``search_or_nearest``, the ranker of ``kioku search``.
- ``memory_recall`` is ``build_recall`` (SessionStart's memory part), or one topic file.
- ``memory_forget`` is ``kioku.memory.forget.forget`` by id: archived, never deleted.

Everything remembered that a reply shows goes through ``kioku.memory.recall.fence_lines``
(SessionStart's header and fence, redacted and defanged); Kioku's own sentences around it name
no stored text except through ``defang_line``.
"""

from __future__ import annotations

import re
from pathlib import Path

from kioku.infra import paths
from kioku.infra.errors import UsageError
from kioku.mcp.context import Context, Reply
from kioku.text.defang import defang_line

RECALL_BUDGET = 10000  # SessionStart's whole context cap: recall alone may use it here


def where(path: str | Path, root: Path) -> str:
    """A memory file as a reader knows it: relative to the project, or ``~/...`` for the user's."""
    p = Path(path)
    for base, prefix in ((root, ""), (paths.user_home(), "~/")):
        try:
            return prefix + p.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(p)


def _fence(lines: list[str]) -> str:
    from kioku.memory.recall import fence_lines

    return fence_lines(lines)


def _type_for(text: str, type_: str | None, scope: str | None) -> str | None:
    """The memory type a save uses when a scope is asked for: only type user lives in the
    user-wide folder, every other type in the project's."""
    if scope is None:
        return type_
    if scope == "user":
        if type_ not in (None, "user"):
            raise UsageError(f"not saved: a {type_} memory belongs to the project memory; only type user is "
                             "saved in the user-wide memory (drop scope, or use type user)")
        return "user"
    if type_ == "user":
        raise UsageError("not saved: a user memory (about the person) is kept in the user-wide memory; "
                         "use scope user, or another type for the project memory")
    if type_ is not None:
        return type_
    from kioku.memory.classify import classify_type

    guessed = classify_type(text)
    return "project" if guessed == "user" else guessed


def memory_save(ctx: Context, args: dict) -> Reply:
    from kioku.memory.api import remember
    from kioku.text.secrets import ensure_storable

    text = args["text"]
    if "\n" in text:
        ensure_storable(re.sub(r"[ \t]*\r?\n[ \t]*", "", text), what="memory")
    type_ = _type_for(text, args.get("type"), args.get("scope"))
    result = remember(text, type=type_, topic=args.get("topic"), project_root=ctx.project_root)
    place = f"{result.scope} memory, {where(result.topic_file, ctx.project_root)}"
    if result.status == "duplicate":
        lines = [f"Already in memory ({place}); nothing new was added:", _fence([result.summary])]
    else:
        lines = [f"Saved to memory ({place}, id {result.id}, type {result.type}):", _fence([result.summary])]
        if result.superseded:
            lines += ["It replaces the older memory:", _fence(result.superseded[:3])]
        if not result.indexed:
            lines.append("The memory index is full, so it is not listed in MEMORY.md and new sessions will not "
                         "see it until `kioku organize` makes room.")
    lines += [f"Note: {defang_line(w)}" for w in result.warnings[:3]]
    return Reply("\n".join(lines))


def _hit_line(hit, root: Path) -> str:
    saved = f", saved {hit.date}" if hit.date else ""
    return f"- {hit.text} ({hit.scope} memory, {where(hit.file, root)}:{hit.line}{saved})"


def memory_search(ctx: Context, args: dict) -> Reply:
    from kioku.memory.api import search_or_nearest

    query = args["query"]
    shown = defang_line(query if len(query) <= 80 else query[:79] + "…")
    hits, nearest = search_or_nearest(query, project_root=ctx.project_root, limit=args["limit"],
                                      archive=args["archive"], dense="auto", nearest=3)
    if not hits and not nearest:
        return Reply(f"No memory matches {shown!r}.")
    if hits:
        head = f"{len(hits)} memor{'y matches' if len(hits) == 1 else 'ies match'} {shown!r}, best first"
        if all(h.semantic for h in hits):
            head += " (none shares the query's words; close in meaning)"
        return Reply(f"{head}:\n{_fence([_hit_line(h, ctx.project_root) for h in hits])}")
    return Reply(f"No close match for {shown!r}. Nearest memories, below the relevance cut-off (probably not what "
                 f"was asked):\n{_fence([_hit_line(h, ctx.project_root) for h in nearest])}")


def memory_recall(ctx: Context, args: dict) -> Reply:
    topic = args.get("topic")
    if topic is None:
        from kioku.memory.api import build_recall

        text = build_recall(project_root=ctx.project_root, budget=RECALL_BUDGET)
        return Reply(text or "Nothing is remembered yet for this project or user "
                             "(memory_save saves a note).")
    return Reply(_topic_text(ctx, topic))


def _topic_text(ctx: Context, topic: str) -> str:
    from kioku.memory.api import memory_dirs
    from kioku.memory.topics import read_topic, slugify_topic, topic_path

    name = slugify_topic(topic)
    parts: list[str] = []
    known: set[str] = set()
    for md in memory_dirs(ctx.project_root):
        md.check_links()
        known.update(p.name for p in md.topic_paths())
        path = md.path / name
        if not path.is_file():
            continue
        parsed = read_topic(topic_path(md.path, name))
        lines: list[str] = []
        active = parsed.active()
        held: dict[str, str] = {}
        if md.scope == "project":
            from kioku.memory.screen import withheld_ids

            held = withheld_ids(ctx.project_root, name)
        for entry in active:
            if entry.id in held:
                lines.append(f"- {entry.date} [{entry.type}] {held[entry.id]}")
                continue
            body = [line for line in entry.text.splitlines() if line.strip()]
            lines.append(f"- {entry.date} [{entry.type}] {body[0] if body else entry.summary} [id {entry.id}]")
            lines.extend(f"  {line}" for line in body[1:])
        count = len(active)
        parts.append(f"{md.scope} memory, {where(path, ctx.project_root)}: {count} current "
                     f"memor{'y' if count == 1 else 'ies'}" + (f"\n{_fence(lines)}" if lines else ""))
    if not parts:
        listed = ", ".join(sorted(n[:-3] for n in known)) or "none yet"
        raise UsageError(f"no topic {defang_line(name[:-3])!r} in the memory folders; the topics are: {listed}")
    return "\n".join(parts)


def memory_forget(ctx: Context, args: dict) -> Reply:
    from kioku.memory.api import forget

    result = forget(id=args["id"].strip(), project_root=ctx.project_root, scope=args.get("scope"))
    return Reply(f"Forgot memory {result.id or args['id'].strip()} ({result.scope} memory): moved to "
                 f"{where(result.archive_file, ctx.project_root)} and out of MEMORY.md.\n{_fence([result.summary])}")
