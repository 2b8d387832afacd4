"""SessionStart (startup | resume | clear | compact): inject what Kioku remembers.

Output: one ``additionalContext`` of at most 10,000 characters (Claude Code's cap) made of
1. the main agent's lessons, at most ~2,500 characters: no task is known yet, so these are
   the digest's top list (kioku.lessons.digest, a small derived file - Chroma is never touched
   here) with exploration (kioku.learning.select); task-relevant lessons follow with each
   prompt (UserPromptSubmit), and
2. the memory recall text (kioku.memory.api.build_recall: user + project MEMORY.md index,
   ranked, fenced as remembered data) in the remaining budget. Project memories not written on
   this machine carry their git provenance; those that ask the agent to act are withheld
   (kioku.memory.screen), and a one-line ``systemMessage`` tells the user which and how to
   allow them (``kioku trust``).
The lessons given and held back are recorded in the session ledger (kioku.learning.ledger) as
belonging to the session's next turn, whose verdict will credit them.
Each part fails softly (logged) so the other part still reaches Claude. What had to be repaired
on the way (a cut MEMORY.md completed from its topic files, a damaged lesson digest set aside and
queued for the worker to rebuild from the store) is said to the user in ``systemMessage``.
The first SessionStart where a model will judge turns also shows the user a one-time notice
(``kioku.model.notice``).

Side effect: when Claude Code provides ``CLAUDE_ENV_FILE``, the installed ``kioku`` launcher's
folder is put on PATH for the session's Bash tool calls, so every ``kioku ...`` command the
skills tell Claude to run works as written (the install does not touch the user's shell).
"""

from __future__ import annotations



from kioku.hooks.dispatch import MAX_CONTEXT_CHARS, HookResult
from kioku.hooks import common as _common

IMPROVEMENTS_BUDGET = 2500
SEPARATOR = "\n\n"


def handle(payload: dict) -> HookResult | None:
    root = _common.project_root(payload)
    agent = _common.soft("SessionStart config", lambda: _common.main_agent(root), "main")
    session_id = payload.get("session_id")
    session_id = session_id if isinstance(session_id, str) else ""
    resumed = payload.get("source") == "resume"
    block, given, held, chances = _common.soft(
        "SessionStart lessons", lambda: _lessons(agent, root, session_id, resumed), ("", {}, {}, {}))
    budget = MAX_CONTEXT_CHARS - len(block) - (len(SEPARATOR) if block else 0)
    withheld: list = []
    recall = _common.soft("SessionStart recall", lambda: _build_recall(root, budget, withheld), "")
    if len(recall) > budget:  # never let Claude Code turn our context into a file preview
        recall = ""
    notice = _common.soft("SessionStart withheld notice", lambda: _withheld_notice(withheld), None)
    if session_id and (given or held):
        from kioku.learning.ledger import record_pending

        _common.soft("SessionStart ledger",
                     lambda: record_pending(session_id, agent, given, held, str(root), chances, replace=True),
                     None)
    _common.soft("SessionStart PATH", _export_kioku_on_path, None)
    judge_notice = _common.soft("SessionStart notice", lambda: _model_notice(str(root)), "")
    if judge_notice:
        notice = f"{notice}\n" if notice else ""
        notice += f"Kioku: {judge_notice}"
    text = SEPARATOR.join(part for part in (recall, block) if part)
    notes = _common.soft("SessionStart repairs", lambda: _repairs(agent, root), [])
    message = "\n".join(notes + ([notice] if notice else [])) or None
    return HookResult(additional_context=text or None, system_message=message) if text or message else None


def _model_notice(root: str) -> str:
    from kioku.model.notice import pending_notice

    return pending_notice(root)


def _repairs(agent: str, root) -> list[str]:
    """What this start had to repair, for the user: a MEMORY.md recall completed from the topic
    files, and lesson digests that could not be read. Those are set aside (so this is said once)
    and the detached worker rebuilds them from the store (a hook never opens Chroma)."""
    from kioku.lessons import digest
    from kioku.memory import recall

    notes = [f"Kioku: {note}." for note in recall.notices]
    if not digest.last_damaged:
        return notes
    import os
    from kioku.infra import clock

    names = []
    for path in list(digest.last_damaged):
        aside = f"{path}.corrupt-{clock.compact_z()}"
        try:
            os.replace(path, aside)
            names.append(f"{path} (kept as {os.path.basename(aside)})")
        except OSError:
            names.append(path)
    try:
        from kioku.infra.jobs import enqueue

        enqueue({"kind": "rebuild_digests", "agent": agent, "project_root": str(root), "event": "SessionStart"})
        how = "the worker is rebuilding it from the store now"
    except OSError as exc:
        how = f"it could not be queued for rebuilding ({exc}); `kioku lessons maintain --agent {agent} --daily` rebuilds it"
    notes.append(f"Kioku: the lessons digest {', '.join(names)} was damaged, so this session starts without "
                 f"those learned lessons; {how}.")
    return notes


def _export_kioku_on_path() -> None:
    import os
    import sys

    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if not env_file:
        return
    # <claude dir>/kioku/hooks/kioku_hook.py beside <claude dir>/kioku/bin/kioku (install.py), or
    # <plugin root>/hooks/kioku_hook.py beside <plugin root>/bin/kioku (the plugin)
    bin_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))), "bin")
    if not os.path.isfile(os.path.join(bin_dir, "kioku")):
        return
    quoted = bin_dir.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
    line = f'export PATH="{quoted}:$PATH"\n'
    try:
        with open(env_file, encoding="utf-8") as handle:
            if line in handle.read():
                return
    except FileNotFoundError:
        pass
    with open(env_file, "a", encoding="utf-8") as handle:
        handle.write(line)


def _build_recall(root, budget: int, withheld: list) -> str:
    from kioku.memory.api import build_recall

    return build_recall(project_root=root, budget=budget, withheld=withheld) or ""


def _withheld_notice(withheld: list) -> str | None:
    """One line for the user about project memories kept from the agent, and how to allow them."""
    if not withheld:
        return None
    from kioku.memory.screen import user_notice

    return user_notice(withheld) or None


def _lessons(agent: str, root, session_id: str, resumed: bool
             ) -> tuple[str, dict[str, str], dict[str, str], dict[str, float]]:
    exclude: set[str] = set()
    if session_id and resumed:  # a resumed conversation still holds what it was given
        from kioku.learning.ledger import given_in_session

        exclude = given_in_session(session_id, agent)
    return _common.inject_lessons(agent, root, "", session_id=session_id, turn=f"start{len(exclude)}",
                                  budget=IMPROVEMENTS_BUDGET, exclude=exclude)
