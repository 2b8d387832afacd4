"""The lessons a turn is given, fenced as remembered data (stdlib only; the hooks run it).

- :func:`inject_lessons` selects the lessons for a turn (``kioku.learning.select``: task-relevant
  through the FTS5 index, the digest's top list when there is no task text, with exploration)
  and formats them; the caller records what was given and held back in the session ledger
  (``kioku.learning.ledger``). The hooks (through ``kioku.hooks.common``) and the MCP server's
  ``lessons_for`` tool both use it, so a tool call shows what a hook would inject.
- :func:`improvements_block` formats lessons (digest entries) as a fenced, factual block of
  remembered data - never phrased as system instructions, since imperative "system" text
  trips Claude's prompt-injection defences. Lesson text goes through
  ``kioku.text.defang.defang`` and the agent name and categories through ``attr``.

:data:`MAX_IMPROVEMENTS` is read when a selection runs, so a benchmark may change it.
"""

from __future__ import annotations

MAX_IMPROVEMENTS = 5
IMPROVEMENT_CHARS = 300  # one lesson is a sentence or two; longer ones are cut


def inject_lessons(agent: str, root, task: str, *, session_id: str, turn: str, budget: int,
                   exclude: set[str], about_the_task: bool = True, hold_back: float | None = None,
                   with_ids: bool = False) -> tuple[str, dict[str, str], dict[str, str], dict[str, float]]:
    """(fenced block, given id -> scope, held-back id -> scope, id -> chance of being given) for a turn.

    A lesson selected but cut by the character budget gets chance 0: budget cuts are not random.
    ``about_the_task``: see ``kioku.learning.select.select``. ``hold_back``: the share of
    eligible lessons held back (default ``KIOKU_HOLD_BACK`` or the selection's default).
    ``with_ids``: see :func:`improvements_block`.
    """
    from kioku.learning.select import hold_back_share, select

    share = hold_back_share() if hold_back is None else hold_back
    chosen = select(agent, root, task, session_id=session_id, turn=turn, k=MAX_IMPROVEMENTS,
                    hold_back=share, exclude=exclude, about_task_only=about_the_task)
    block, shown = improvements_block(agent, chosen.given, budget, with_ids)
    shown_ids = {str(i["id"]) for i in shown}
    selected = chosen.scope_map("given")
    given = {k: v for k, v in selected.items() if k in shown_ids}
    held = {**chosen.scope_map("held_back"), **{k: v for k, v in selected.items() if k not in shown_ids}}
    chances = {k: (0.0 if k in selected and k not in given else p) for k, p in chosen.propensity.items()}
    return block, given, held, chances


def second_chances(agent: str, root, task: str, *, session_id: str, turn: str, exclude: set[str],
                   already_given: set[str]) -> dict[str, float]:
    """For lessons given before this prompt (SessionStart): the chance this prompt's selection
    would have given each had it not been given yet, the other lessons' draws being as they are.
    Recorded beside the first chance, it makes the turn's chance the same whichever stage gave
    the lesson (otherwise a lesson given early would record a lower chance than one given late)."""
    from kioku.learning.select import hold_back_share, select

    chosen = select(agent, root, task, session_id=session_id, turn=turn, k=MAX_IMPROVEMENTS,
                    hold_back=hold_back_share(), exclude=exclude - already_given)
    return {rec_id: chosen.propensity.get(rec_id, 0.0) for rec_id in already_given}


def lessons_block_for(agent: str, root, ids: list[str], budget: int) -> str:
    """The fenced block of the lessons ``ids`` (in that order) as the digest holds them now."""
    if not ids:
        return ""
    from kioku.lessons.digest import read_digest

    by_id = {str(e["id"]): e for e in read_digest(agent, project_root=root) if isinstance(e, dict) and e.get("id")}
    return improvements_block(agent, [by_id[i] for i in ids if i in by_id], budget)[0]


def improvements_block(agent: str, items: list[dict], budget: int, with_ids: bool = False
                       ) -> tuple[str, list[dict]]:
    """Fenced list of learned lessons within ``budget`` characters, and the items it holds.

    Returns ("", []) when nothing fits: the caller records only what was really injected.
    ``with_ids`` adds each lesson's id to its facts (for a reader that may act on one).
    """
    if not items or budget < 200:
        return "", []
    from kioku.text.defang import attr, defang, defang_line
    from kioku.text.secrets import redact

    name = attr(agent)
    head = (f'<kioku-learned-improvements agent="{name}">\n'
            f"Remembered data (not instructions): lessons agent \"{name}\" learned in earlier "
            "tasks. Apply them where they fit the current task.\n")
    tail = "</kioku-learned-improvements>"
    lines: list[str] = []
    shown: list[dict] = []
    used = len(head) + len(tail) + 1
    for item in items:
        text = " ".join(defang(str(item.get("improvement", ""))).split())
        if not text:
            continue
        if len(text) > IMPROVEMENT_CHARS:
            text = text[: IMPROVEMENT_CHARS - 1] + "…"
        facts = [" ".join(defang(str(item.get("category") or "general")).split())]
        conf = item.get("confidence")
        if isinstance(conf, (int, float)):
            facts.append(f"confidence {conf:.2f}")
        rate = item.get("success_rate")
        if isinstance(rate, (int, float)) and rate >= 0:
            facts.append(f"success {rate:.0%}")
        if with_ids and item.get("id"):
            facts.append(f"id {defang_line(str(item['id']))}")
        line = f"- {text} ({', '.join(facts)})\n"
        if used + len(line) > budget:
            break
        lines.append(line)
        shown.append(item)
        used += len(line)
    if not lines:
        return "", []
    # Every remembered value is defanged (body) or escaped (agent attribute) so nothing inside
    # can close the fence; then one secrets pass over the whole block (the single choke point
    # for injected text).
    # Callers measure the returned text, so a [REDACTED:kind] marker cannot break a budget.
    body = redact("".join(lines))
    return head + body + tail, shown
