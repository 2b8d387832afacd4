"""Which lessons each turn of a session was given or held back from (stdlib only; hooks write it).

One JSON file per session (``kioku.lessons.usage.session_path``), written atomically under an
exclusive lock (``kioku.infra.fsutil``)::

    {"session_id": "...", "project_root": "...",
     "agents": {"<agent>": {
        "pending": {"given": {"<id>": "<scope>"}, "held_back": {...}, "propensity": {...}},
        "turns": [{"n": 1, "prompt_id": "...", "prompt_sha256": "...", "at": "...",
                   "given": {"<id>": "<scope>"}, "held_back": {"<id>": "<scope>"},
                   "propensity": {"<id>": 0.3}}]}}}

A turn starts at a user prompt (UserPromptSubmit records it, with the hook's ``prompt_id`` and
the sha256 of the prompt text). Lessons injected before any prompt (SessionStart, no task text
yet) wait in ``pending`` and belong to the next turn that opens. ``held_back`` holds the lessons
that were eligible for the turn but not given (held back on purpose by exploration, or below the
cut): the comparison group of ``kioku.learning.uplift``. ``propensity`` is each eligible lesson's
chance of being given (``kioku.learning.select``); a lesson eligible both before the prompt and
at it had two independent chances, so its turn records ``1 - (1 - p1)(1 - p2)``, whichever
stage gave it: for a lesson already given before the prompt, ``p2`` is the chance the prompt's
selection would have given it had it not been (``kioku.learning.inject.second_chances``), so the
recorded chance never depends on how the first draw came out. A SessionStart
replaces what an earlier one recorded (a retry makes the same draws; after /clear the context
holds only the new injection), and a retried prompt hook shows the lessons its turn recorded
(``given_at_prompt``) and records nothing. The credit step
(``kioku.learning.credit``) reads the turns and never writes here, so a retried credit sees the
same ledger.

Lessons shown outside a turn's selection (the MCP server's ``lessons_for`` tool, called by the
model mid-session) are kept in the agent's ``shown`` map: they are in the conversation from then
on, so later turns leave them out of both arms like any lesson given earlier, and no turn is
credited for them.
"""

from __future__ import annotations

import os

from kioku.lessons.usage import session_path
from kioku.infra import clock, fastjson, fsutil

MAX_TURNS = 500  # per agent and session; older turns are long credited


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = fastjson.loads(handle.read())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _agent_entry(data: dict, agent: str) -> dict:
    entry = data.setdefault("agents", {}).setdefault(agent, {})
    entry.setdefault("pending", {"given": {}, "held_back": {}})
    entry.setdefault("turns", [])
    return entry


def _update(session_id: str, agent: str, project_root: str, change) -> dict:
    path = session_path(session_id)
    with fsutil.exclusive_lock(os.path.splitext(path)[0] + ".lock", timeout=10):
        data = _load(path)
        data.setdefault("session_id", session_id)
        data["project_root"] = data.get("project_root") or str(project_root)
        entry = _agent_entry(data, agent)
        result = change(entry)
        fsutil.atomic_write_text(path, fastjson.dumps(data, ensure_ascii=False, sort_keys=True))
    return result


def combined_chance(first: float | None, second: float | None) -> float | None:
    """Chance of being given by either of two independent selections (None when one is unknown)."""
    if first is None or second is None:
        return None
    return round(1.0 - (1.0 - first) * (1.0 - second), 6)


def _merge_chances(old: dict, new: dict) -> dict:
    merged = dict(old)
    for rec_id, p in new.items():
        merged[rec_id] = combined_chance(old[rec_id], p) if rec_id in old else p
    return merged


def record_pending(session_id: str, agent: str, given: dict[str, str], held_back: dict[str, str],
                   project_root: str, propensity: dict[str, float] | None = None, *,
                   replace: bool = False) -> None:
    """Lessons injected (or held back) before the session's next prompt.

    ``replace``: this selection is what the context holds now (a SessionStart: a retried one, or
    one after /clear or a compaction, makes the same deterministic draws), so it replaces what
    an earlier one recorded instead of counting as a second, independent chance."""
    if not session_id or not agent or not (given or held_back):
        return

    def change(entry: dict) -> None:
        if replace:
            entry["pending"] = {"given": {}, "held_back": {}, "propensity": {}}
        pending = entry["pending"]
        pending["propensity"] = _merge_chances(pending.get("propensity", {}), propensity or {})
        pending.setdefault("given", {}).update(given)
        for rec_id, scope in held_back.items():
            if rec_id not in pending["given"]:
                pending.setdefault("held_back", {})[rec_id] = scope

    _update(session_id, agent, project_root, change)


def open_turn(session_id: str, agent: str, *, prompt_id: str, prompt_sha256: str, given: dict[str, str],
              held_back: dict[str, str], project_root: str, propensity: dict[str, float] | None = None) -> int:
    """Start a turn at a user prompt with what it was given; pending lessons join it. Returns n."""
    if not session_id or not agent:
        return 0

    def change(entry: dict) -> int:
        turns = entry["turns"]
        if prompt_id and any(t.get("prompt_id") == prompt_id for t in turns):
            return next(t["n"] for t in turns if t.get("prompt_id") == prompt_id)  # a repeated hook call
        pending = entry["pending"]
        all_given = {**pending.get("given", {}), **given}
        all_held = {k: v for k, v in {**pending.get("held_back", {}), **held_back}.items() if k not in all_given}
        n = (turns[-1]["n"] + 1) if turns else 1
        chances = _merge_chances(pending.get("propensity", {}), propensity or {})
        turns.append({"n": n, "prompt_id": prompt_id, "prompt_sha256": prompt_sha256, "at": clock.iso_z(),
                      "given": all_given, "held_back": all_held, "given_at_prompt": sorted(given),
                      "propensity": {k: v for k, v in chances.items() if k in all_given or k in all_held}})
        del turns[:-MAX_TURNS]
        entry["pending"] = {"given": {}, "held_back": {}, "propensity": {}}
        return n

    return _update(session_id, agent, project_root, change)


def record_shown(session_id: str, agent: str, shown: dict[str, str], project_root: str) -> None:
    """Lessons shown in the session outside any turn's selection (id -> scope)."""
    if not session_id or not agent or not shown:
        return

    def change(entry: dict) -> None:
        entry.setdefault("shown", {}).update(shown)

    _update(session_id, agent, project_root, change)


def held_back_now(session_id: str, agent: str) -> set[str]:
    """The lessons the session's latest selection for ``agent`` held back (lessons pending since
    SessionStart, else the latest turn's): the comparison group of the turn in progress, which
    nothing shown now may contaminate."""
    entry = _load(session_path(session_id)).get("agents", {}).get(agent, {}) if has_session(session_id) else {}
    pending = entry.get("pending") if isinstance(entry.get("pending"), dict) else {}
    if pending.get("given") or pending.get("held_back"):
        return {str(i) for i in pending.get("held_back") or {}}
    turns_ = [t for t in entry.get("turns", []) if isinstance(t, dict) and isinstance(t.get("n"), int)]
    return {str(i) for i in turns_[-1].get("held_back") or {}} if turns_ else set()


class SessionView:
    """What a prompt hook needs from the session's ledger, read once: the lessons a recorded
    turn of ``prompt_id`` was given by its own selection (None when no such turn), every lesson
    given in the session, and those given before this prompt (SessionStart)."""

    __slots__ = ("again", "in_session", "early")

    def __init__(self, session_id: str, agent: str, prompt_id: str) -> None:
        entry = _load(session_path(session_id)).get("agents", {}).get(agent, {}) if has_session(session_id) else {}
        turns_ = [t for t in entry.get("turns", []) if isinstance(t, dict) and isinstance(t.get("n"), int)]
        self.again: list[str] | None = None
        if prompt_id:
            for turn in turns_:
                if turn.get("prompt_id") == prompt_id:
                    ids = turn.get("given_at_prompt")
                    self.again = [str(i) for i in ids] if isinstance(ids, list) else []
                    break
        self.early: set[str] = set(entry.get("pending", {}).get("given", {}))
        self.in_session: set[str] = set(self.early) | set(entry.get("shown", {}) or {})
        for turn in turns_:
            self.in_session.update(turn.get("given", {}))


def given_in_session(session_id: str, agent: str) -> set[str]:
    """Every lesson id already given in this session (still in the conversation's context)."""
    return SessionView(session_id, agent, "").in_session


def turns(session_id: str, agent: str) -> list[dict]:
    """The recorded turns of ``agent`` in ``session_id``, oldest first."""
    entry = _load(session_path(session_id)).get("agents", {}).get(agent, {})
    return [t for t in entry.get("turns", []) if isinstance(t, dict) and isinstance(t.get("n"), int)]


def has_session(session_id: str) -> bool:
    return os.path.isfile(session_path(session_id))


def project_root_of(session_id: str) -> str:
    return str(_load(session_path(session_id)).get("project_root") or "")
