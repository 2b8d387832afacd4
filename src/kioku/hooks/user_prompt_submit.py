"""UserPromptSubmit: lessons for the task at hand, and "remember …" requests saved to memory.

Lessons: every real user prompt opens a turn of the main agent in the session ledger
(kioku.learning.ledger). The prompt is the task text: the lessons the FTS5 lexical index ranks
for it (kioku.learning.select; stdlib SQLite, no Chroma, no model) that the session has not been
given yet are injected, fenced as remembered data, and what was given and held back is
recorded for that turn, keyed by the hook's ``prompt_id`` and the prompt's sha256 - the keys
the credit step joins the turn's verdict on.

Remember requests: ``kioku.memory.triggers.REMEMBER_HINT`` (one precompiled regex) is checked
before the save path is imported. On a real request (``detect_remember``) the note is saved with kioku.memory.api.remember and
a short confirmation is added next to the prompt (``Saved to memory: …``). The confirmation
states that the note is already stored by Kioku, so Claude does not save it a second time
into its built-in auto memory (docs/configuration.md, "Claude Code's auto memory").

The prompt is cut to ``kioku.hooks.dispatch.MAX_PROMPT_CHARS`` before any scan; a longer
request is refused with a message. The whole prompt (and the prompt with its line breaks
removed, so a key split over lines is whole again) is checked for secrets before the note
is kept, not only the extracted note.

A secret is never saved: Claude is told (additionalContext) that nothing was stored and
why, so it tells the user, and the user also sees a ``systemMessage``. The message names
the kind of secret, never the secret itself.
This handler never blocks, never asks Claude Code to erase the prompt and never exits 2.
"""

from __future__ import annotations

from kioku.hooks.dispatch import HookResult

# Text Claude Code itself submits through this event (background task results and the
# like) starts with one of these tags; it is not the user asking to remember anything.
SYSTEM_PREFIXES = ("<task-notification>", "<command-name>", "<command-message>",
                   "<local-command-stdout>", "<system-reminder>", "<bash-input>")
# A superset of every word kioku.memory.triggers.REMEMBER_HINT can match, as lowercase UTF-8
# substrings, so most prompts are skipped on the raw hook input without importing json or re.
HINT_TEXT = ("remem", "memor", "remb", "remeb", "remmeb", "rmem", "mind", "save", "store", "down", "forget",
             "future", "from now", "from here", "going forward", "note", "sessions", "standing", "later", "lasting",
             "long-term", "long term", "longterm", "next time", "next session", "persist", "permanent", "henceforth",
             "this point", "forward", "forever", "for good", "beyond", "durable",
             "覚え", "記憶", "記録", "保存", "メモ", "忘れ", "今後", "今度から", "これからは", "これから先", "次回から", "次から",
             "以後", "以降")
HINT_WORDS = tuple(w.encode() for w in HINT_TEXT)
NOT_AGAIN = ("It is already stored by Kioku in .agents/memory, so it must not be saved again "
             "to auto memory or to any other memory file.")


def no_remember_hint_raw(raw: bytes) -> bool:
    """True when the raw stdin cannot hold a "remember" request (no hint word anywhere).

    JSON escapes (``\\uXXXX``) could hide a word, so input with any is never skipped here.
    """
    if b"\\u" in raw:
        return False
    low = raw.lower()
    return not any(word in low for word in HINT_WORDS)


def no_remember_request(payload: dict) -> bool:
    """True when the prompt cannot be a "remember" request (the common case: costs one regex)."""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt:
        return True
    from kioku.hooks.dispatch import MAX_PROMPT_CHARS

    head = prompt[:MAX_PROMPT_CHARS]  # the length limit comes before any scan
    folded = head.lower()
    if not any(word in folded for word in HINT_TEXT):  # the regex module stays unloaded
        return True
    from kioku.memory.triggers import REMEMBER_HINT

    return not REMEMBER_HINT.search(head) or head.lstrip().startswith(SYSTEM_PREFIXES)


LESSONS_BUDGET = 2500


def quick_skip_raw(raw: bytes) -> bool:
    """True when there is nothing to do: no session to select lessons for and no remember hint.

    Claude Code always sends ``session_id``, so real prompts are parsed (lessons are selected
    for every task); only session-less input is decided here without importing json.
    """
    body = raw.strip()
    # input that is not even shaped like a JSON object goes on to the parser, which says what is wrong
    return body[:1] == b"{" and body[-1:] == b"}" and b'"session_id"' not in raw and no_remember_hint_raw(raw)


def handle(payload: dict) -> HookResult | None:
    from kioku.hooks.common import soft

    lessons = soft("UserPromptSubmit lessons", lambda: _lessons(payload), "")
    saved = None if no_remember_request(payload) else _remember(payload)
    if saved is None:
        return HookResult(additional_context=lessons) if lessons else None
    if lessons:
        saved.additional_context = "\n\n".join(p for p in (saved.additional_context, lessons) if p)
    return saved


def _remember(payload: dict) -> HookResult | None:
    from kioku.memory.triggers import detect_remember
    from kioku.hooks.dispatch import MAX_PROMPT_CHARS

    prompt = payload["prompt"]
    request = detect_remember(prompt[:MAX_PROMPT_CHARS])
    if request is None or not request.content.strip():
        return None
    if len(prompt) > MAX_PROMPT_CHARS:
        reason = (f"the prompt is {len(prompt):,} characters, far longer than a memory can be; "
                  "state the note in a sentence or two")
        return HookResult(additional_context=f"Kioku could not save this to memory: {reason}. "
                                             "Tell the user it was not saved.",
                          system_message=f"Kioku: not saved to memory - {reason}")
    return _save(request.content, payload, prompt)


def _joined_lines(text: str) -> str:
    """``text`` with its line breaks (and the spaces around them) removed, so a key split
    over several lines is whole again for the secrets scan."""
    import re

    return re.sub(r"[ \t]*\r?\n[ \t]*", "", text)


def _lessons(payload: dict) -> str:
    """Open the turn in the session ledger with the lessons relevant to the prompt; their block."""
    prompt, session_id = payload.get("prompt"), payload.get("session_id")
    if not isinstance(prompt, str) or not prompt.strip() or not isinstance(session_id, str) or not session_id:
        return ""
    if prompt.lstrip().startswith(SYSTEM_PREFIXES):
        return ""  # Claude Code's own messages are not a user's task
    from kioku.hooks.dispatch import project_root_of
    from kioku.infra.sha import sha256
    from kioku.hooks import common as _common
    from kioku.learning import ledger

    root = project_root_of(payload)  # a string: pathlib stays unloaded on the every-prompt path
    agent = _common.main_agent(root)
    prompt_id = payload.get("prompt_id") if isinstance(payload.get("prompt_id"), str) else ""
    view = ledger.SessionView(session_id, agent, prompt_id)  # the session's ledger, read once
    if view.again is not None:
        # a retried hook for a prompt whose turn is recorded: show the same lessons again (the
        # first output may have been lost) and record nothing twice
        return _common.lessons_block_for(agent, root, view.again, LESSONS_BUDGET)
    sha = sha256(prompt.encode("utf-8")).hexdigest()
    in_session, early = view.in_session, view.early
    block, given, held, chances = _common.inject_lessons(
        agent, root, prompt, session_id=session_id, turn=prompt_id or sha, budget=LESSONS_BUDGET,
        exclude=in_session)
    if early:
        chances = {**chances, **_common.second_chances(agent, root, prompt, session_id=session_id,
                                                       turn=prompt_id or sha, exclude=in_session,
                                                       already_given=early)}
    if given or held or view.in_session or ledger.has_session(session_id):  # no lessons: nothing written
        ledger.open_turn(session_id, agent, prompt_id=prompt_id, prompt_sha256=sha, given=given, held_back=held,
                         project_root=str(root), propensity=chances)
    return block


def _sentence(text: str) -> str:
    """``text`` ending as a sentence, so the instruction that follows it reads apart."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "。")) else text + "."


def _save(content: str, payload: dict, prompt: str) -> HookResult:
    from kioku.infra.errors import KiokuError, SecretRejected
    from kioku.text.secrets import ensure_storable
    from kioku.hooks.common import project_root
    from kioku.memory.api import remember

    try:
        # The whole prompt is checked before anything is kept, not only the extracted note:
        # a secret on another line, or split over lines, must not leave fragments behind.
        ensure_storable(prompt, what="memory")
        if "\n" in prompt:
            ensure_storable(_joined_lines(prompt), what="memory")
        result = remember(content, project_root=project_root(payload))
    except SecretRejected as exc:
        reason = _sentence(str(exc))
        return HookResult(
            additional_context=(
                f"Kioku did NOT save this to memory: {reason} Nothing was stored. Tell the user "
                "that the note was not saved because it looks like it contains a secret, and "
                "do not save it to auto memory or any other file either."),
            system_message=f"Kioku: not saved to memory - {reason}",
        )
    except (KiokuError, OSError) as exc:
        # OSError: a full disk, a read-only or unwritable memory folder. The save failed, so
        # Claude must hear it like any other refusal (fail-open would drop the note silently).
        if isinstance(exc, KiokuError):
            reason = str(exc).removeprefix("not saved: ")  # the lead-in below says it already
        else:
            where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
            reason = f"{exc.strerror or type(exc).__name__}{where}; the save did not complete"
        return HookResult(
            additional_context=f"Kioku could not save this to memory: {_sentence(reason)} Tell the user it was "
                               "not saved.",
            system_message=f"Kioku: not saved to memory - {reason}",
        )
    from pathlib import Path

    where = f"{result.scope} memory, {Path(result.topic_file).name}"
    if result.status == "duplicate":
        repaired = "; ".join(result.warnings[:3])  # e.g. its index line was missing and is back
        return HookResult(additional_context=(
            f"Already in memory (Kioku, {where}); nothing new was added:\n{_fenced([result.summary])}\n{NOT_AGAIN}"),
            system_message=f"Kioku: {repaired}" if repaired else None)
    text = f"Saved to memory: the note below (Kioku, {where}).\n{_fenced([result.summary])}"
    if not result.indexed:
        text += ("\nThe memory index is full, so it is not listed in MEMORY.md and new sessions will not "
                 "see it until `kioku organize` makes room; tell the user.")
    if result.status == "superseded" and result.superseded:
        text += f"\nIt replaces the older memory:\n{_fenced(result.superseded[:3])}"
    # "index nearly full" or "a damaged file was repaired" is for the user, not only for Claude
    notice = "; ".join(result.warnings[:3])
    return HookResult(additional_context=f"{text}\n{NOT_AGAIN}",
                      system_message=f"Kioku: {notice}" if notice else None)


def _fenced(notes: list[str]) -> str:
    """Remembered text as it may reach the model: defanged, one note a line, inside the same
    fence recall uses (a note saved earlier may come from anyone who can write the folder)."""
    from kioku.text.defang import MEMORY_CLOSE, MEMORY_OPEN, defang

    body = "\n".join(" ".join(defang(note).split()) for note in notes)
    return f"{MEMORY_OPEN}\n{body}\n{MEMORY_CLOSE}"
