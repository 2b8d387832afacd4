"""The lesson tools: ``lessons_for`` (what the hooks would inject for a task) and
``lesson_feedback`` (the web UI's deprecate / restore).

``lessons_for`` runs the hooks' own selection and fence (``kioku.learning.inject``: the FTS5
index over the agent's digest, no Chroma, no model): for the main agent as UserPromptSubmit
selects for a prompt, for another agent as SubagentStart does for its task. Nothing is held back
at random (a tool call is not a turn of the learning experiment), but when Claude Code runs the
server the lessons the session's current turn held back are left out, so its comparison group
stays clean, and what is shown is recorded in the session ledger (``ledger.record_shown``): later
turns treat it as already in the conversation, and no turn is credited for it.

``lesson_feedback`` is ``kioku.lessons.lesson_state.set_deprecated`` with ``strict``, as the UI's
buttons call it: harmful deprecates (the hooks stop injecting the lesson at once; its evidence
is kept), helpful restores a deprecated lesson. The reason recorded says it came from an MCP
client, with the note redacted and on one line.
"""

from __future__ import annotations

from kioku.infra.sha import sha256
from kioku.mcp.context import Context, Reply
from kioku.text.defang import defang_line

LESSONS_BUDGET = 10000  # the hooks' context cap; at most five lessons are selected anyway
REASON_NOTE_CHARS = 200


def _agent(ctx: Context, args: dict) -> str:
    from kioku.lessons.scopes import validate_agent

    return validate_agent(args["agent"]) if args.get("agent") else ctx.main_agent()


def lessons_for(ctx: Context, args: dict) -> Reply:
    from kioku.learning import ledger
    from kioku.learning.inject import inject_lessons
    from kioku.lessons.digest import read_digest

    agent = _agent(ctx, args)
    task = " ".join(args["task"].split())
    if not read_digest(agent, project_root=ctx.project_root):
        return Reply(f"Agent {agent!r} has no active lessons yet; nothing to show.")
    withheld = ledger.held_back_now(ctx.session_id, agent) if ctx.session_id else set()
    block, given, _held, _chances = inject_lessons(
        agent, ctx.project_root, task, session_id=ctx.session_id or "mcp",
        turn="lessons_for:" + sha256(task.encode("utf-8")).hexdigest()[:16], budget=LESSONS_BUDGET,
        exclude=withheld, about_the_task=agent == ctx.main_agent(), hold_back=0.0, with_ids=True)
    if ctx.session_id and given:
        ledger.record_shown(ctx.session_id, agent, given, str(ctx.project_root))
    aside = (f" ({len(withheld)} held back from this turn by Kioku's learning experiment are not shown)"
             if withheld else "")
    if not block:
        return Reply(f"No lesson of agent {agent!r} fits this task{aside}.")
    return Reply(f"{len(given)} lesson{'' if len(given) == 1 else 's'} of agent {agent!r} for this task{aside}:\n"
                 f"{block}")


def lesson_feedback(ctx: Context, args: dict) -> Reply:
    from kioku.learning.inject import improvements_block
    from kioku.lessons.lesson_state import AlreadyInState, set_deprecated
    from kioku.text.secrets import redact

    agent = _agent(ctx, args)
    lesson_id = args["lesson_id"].strip()
    harmful = args["verdict"] == "harmful"
    note = " ".join(redact(args.get("note") or "").split())
    if len(note) > REASON_NOTE_CHARS:
        note = note[:REASON_NOTE_CHARS - 1] + "…"
    reason = f"reported {args['verdict']} through the MCP tool lesson_feedback" + (
        f": {defang_line(note)}" if note else "")
    try:
        text, state = set_deprecated(agent, lesson_id, harmful, ctx.project_root, reason=reason, strict=True)
    except AlreadyInState:
        if harmful:
            return Reply(f"Lesson {defang_line(lesson_id)} of agent {agent!r} is deprecated already: the hooks do "
                         "not inject it; nothing was changed.")
        return Reply(f"Lesson {defang_line(lesson_id)} of agent {agent!r} is active already: the hooks keep giving "
                     "it where it fits and its measured effect decides its future; nothing was changed.")
    block = improvements_block(agent, [{"improvement": text, "id": lesson_id}], LESSONS_BUDGET, with_ids=True)[0]
    if harmful:
        return Reply(f"Deprecated lesson {defang_line(lesson_id)} of agent {agent!r}: the hooks no longer inject "
                     f"it (lesson_feedback helpful or `kioku lessons restore` brings it back).\n{block}")
    return Reply(f"Restored lesson {defang_line(lesson_id)} of agent {agent!r} (now {state}): the hooks give it "
                 f"again where it fits.\n{block}")
