"""Helpers shared by the hook handlers (stdlib only; imported on every hook's fast path).

- :func:`project_root` resolves the project from the payload's ``cwd`` (Claude's current
  directory, which may be a subfolder), falling back to the process cwd.
- :func:`improvements_block` formats lessons (digest entries) as a fenced, factual block of
  remembered data - never phrased as system instructions, since imperative "system" text
  trips Claude's prompt-injection defences. Lesson text goes through
  ``kioku.text.defang.defang`` and the agent name and categories through ``attr``.
- :func:`inject_lessons` selects the lessons for a turn (``kioku.learning.select``: task-relevant
  through the FTS5 index, the digest's top list when there is no task text, with exploration)
  and formats them; the caller records what was given and held back in the session ledger
  (``kioku.learning.ledger``).
- :func:`soft` runs one optional part of a handler (e.g. the improvements digest at
  SessionStart) so that its failure is logged but the other parts still reach Claude. The
  process-level fail-open boundary stays :func:`kioku.hooks.dispatch.run`.
"""

from __future__ import annotations

# Annotations only (PEP 563): nothing here imports pathlib/typing, which the Stop path avoids.

MAX_IMPROVEMENTS = 5
IMPROVEMENT_CHARS = 300  # one lesson is a sentence or two; longer ones are cut


def project_root(payload: dict) -> "Path":
    from pathlib import Path

    from kioku.hooks.dispatch import project_root_of

    return Path(project_root_of(payload))


def soft(label: str, fn, default):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one missing part must not hide the others
        if type(exc).__name__ == "DiskFull":  # no log can be written: one line says what was kept
            import sys

            sys.stderr.write(f"kioku: error: {str(exc)[:400]} ({label}; the session goes on)\n")
            return default
        from kioku.hooks.dispatch import log_exception

        log_exception(label)
        return default


def inject_lessons(agent: str, root, task: str, *, session_id: str, turn: str, budget: int,
                   exclude: set[str], about_the_task: bool = True
                   ) -> tuple[str, dict[str, str], dict[str, str], dict[str, float]]:
    """(fenced block, given id -> scope, held-back id -> scope, id -> chance of being given) for a turn.

    A lesson selected but cut by the character budget gets chance 0: budget cuts are not random.
    ``about_the_task``: see ``kioku.learning.select.select``.
    """
    from kioku.learning.select import hold_back_share, select

    chosen = select(agent, root, task, session_id=session_id, turn=turn, k=MAX_IMPROVEMENTS,
                    hold_back=hold_back_share(), exclude=exclude, about_task_only=about_the_task)
    block, shown = improvements_block(agent, chosen.given, budget)
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


def improvements_block(agent: str, items: list[dict], budget: int
                       ) -> tuple[str, list[dict]]:
    """Fenced list of learned lessons within ``budget`` characters, and the items it holds.

    Returns ("", []) when nothing fits: the caller records only what was really injected.
    """
    if not items or budget < 200:
        return "", []
    from kioku.text.defang import attr, defang
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


def main_agent(root) -> str:
    from kioku.hooks.dispatch import config_present

    if not config_present(str(root)):
        return "main"  # the default; skips importing tomllib when there is no config file
    from pathlib import Path

    from kioku.infra.config import ConfigError, load_config

    try:
        return load_config(Path(root)).main_agent
    except ConfigError:
        return "main"  # a broken config file must not cost the session its memory
