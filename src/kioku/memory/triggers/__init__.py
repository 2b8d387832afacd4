"""Pure, fast "remember this" trigger detection (English + Japanese).

Contract (stdlib only, no I/O; patterns compiled on first use, and only ``REMEMBER_HINT`` here:
the detectors in :mod:`.english` and :mod:`.japanese`, with their phrase tables, load on the first
call of ``detect_remember``, so a hook that only checks the hint never loads them):

- ``REMEMBER_HINT``: a cheap prefilter. Every prompt that ``detect_remember`` accepts matches
  it, so a hook can skip all further work when ``REMEMBER_HINT.search(prompt)`` is None.
- ``detect_remember(prompt) -> RememberRequest | None``: (content, trigger, language).
- ``is_question(text) -> bool``.

Rules chosen for the ambiguous cases (tests pin each of them):

- A trigger counts only at the start of a sentence (after optional lead-ins such as "please",
  "also,", "hey claude,", "can you", "I want you to") or as a closing tag after the content
  ("we use bun - remember that"). "I can't remember the command" is not a request.
- Questions are not saves: the trigger's sentence ending in "?"/"？" (or Japanese "か"),
  and "remember" followed by a wh-word ("remember when/what/how ..."). The exception is a
  polite request, "can/could/would/will you remember (or keep in mind) that <a statement in
  the present>?" or "… remember to <a standing rule>?"; "can you remember that the bug was
  …?" asks about the past, "could you remember to fix it?" asks for work now.
- Text inside code blocks, inline code, double quotes or "> " quote lines cannot trigger.
- "save this" needs a colon ("save this: ...") or a memory target ("save this to memory");
  "save this file" / "save the file and run tests" are file operations.
- "don't forget that ..." / "don't forget: ..." is a memory; "don't forget to <verb>" is a
  one-off task for now, not a fact to keep. "remember to <verb>" IS a memory: "remember"
  explicitly asks to keep something. Without "that" or a colon, "remember", "keep in mind"
  and "don't forget" need a statement after them ("keep in mind we use pnpm"), not a thing
  ("keep in mind the rate limit"); "keep in mind this …" and "… when you write the client"
  are about the work at hand.
- "note that ..." alone is prose; "note for future sessions: ...", "make a note that ...",
  "for future reference: ..." are memories.
- "from now on, ..." and "in future sessions, ..." are standing instructions, so memories;
  the content keeps the instruction ("always use bun"). So is a last sentence that ends in
  "from now on" / "going forward" ("Use tabs from now on."), kept without those words, and
  "Going forward, / Henceforth, / In future," before a rule ("never …", "use …", "when you …"),
  not before a plan ("In the future, we might add caching").
- A short label that asks to keep and says for how long is a memory: "Please retain this
  across our sessions: …", "Long-term preference: …", "Heads-up to carry forward: …", "Can you
  hang on to this for future chats? <fact>". Not when it negates ("don't remember this for
  future sessions:"), when the note is a question or is taken back ("… actually, run it now"),
  or when its paragraph asks for work now ("Long-term note: write unit tests for X").
- Japanese 保存して is a memory save only with a memory word (メモリ/記憶/メモ/覚え/kioku)
  before it, or with the content after a colon and no file-ish object (ファイル/変更/画像...);
  "ファイルを保存して" is a file save. 忘れないで is a memory when the content is a fact
  ("…ことを忘れないで", "忘れないで：…"), a task when it is "…するのを忘れないで".
- Content drops the trigger, politeness ("please", "ください"), a leading "that"/"to"/":"
  and trailing punctuation; empty content means no request. A task appended after
  ", and fix/run/add ..." is cut off; a fully quoted content is unwrapped. A Japanese trigger
  standing alone in its sentence takes the neighbouring sentence ("…。覚えておいて").
- Content that only points at the conversation ("this function's signature", "that
  approach", "what you just did", "この関数の仕様", "今日のミーティングの内容") holds no fact
  the hook could store, so it is not a save request (Claude can still act on the prompt).
"""

from __future__ import annotations

import re

from kioku.memory.triggers.request import RememberRequest

__all__ = [
    "REMEMBER_HINT",
    "RememberRequest",
    "detect_remember",
    "is_question",
]


# Cheap prefilter: every trigger contains one of these stems. Written as one leading character
# class plus look-behind branches because CPython's regex engine can then skip positions by
# the class alone; a plain alternation of words is ~3x slower on ordinary prompts.
REMEMBER_HINT: re.Pattern[str] = re.compile(
    r"(?i)[rmsfnkwglphtbd覚記保メ忘今こ次以](?:(?<=r)(?:emem|emb|emeb|emmeb|mem)|(?<=m)emor|(?<=m)ind\b|(?<=s)(?:ave|tore)\b"
    r"|(?<=dow)n\b|(?<=g)oing forward|(?<=s)(?:essions|tanding)\b|(?<=l)(?:ater\b|asting\b|ong[- ]?term)"
    r"|(?<=n)ext (?:time|session)|(?<=p)ersist|(?<=p)ermanent|(?<=h)enceforth|(?<=t)his point"
    r"|(?<=b)eyond (?:today|this)|(?<=d)urable"
    r"|(?<=f)(?:orget|uture|rom now|rom here|orward|orever|or good)|(?<=n)ote\b|(?<=覚)え|(?<=記)[憶録]|(?<=保)存|(?<=メ)モ|(?<=忘)れ"
    r"|(?<=今)(?:後|度から)|(?<=こ)れから(?:先)?は|(?<=次)(?:回)?から|(?<=以)[後降])"
)


def detect_remember(prompt: str) -> RememberRequest | None:
    """The memory a prompt asks to keep, or None. Pure; a few microseconds on a miss."""
    if not prompt or not REMEMBER_HINT.search(prompt):
        return None
    from kioku.memory.triggers.english import _detect_en
    from kioku.memory.triggers.japanese import _detect_ja, _detect_ja_standing
    from kioku.memory.triggers.sentences import has_japanese, _mask

    masked = _mask(prompt)
    if not REMEMBER_HINT.search(masked):
        return None
    if has_japanese(masked):
        req = _detect_ja(prompt, masked) or _detect_ja_standing(prompt, masked)
        if req:
            return req
    return _detect_en(prompt, masked)


def is_question(text: str) -> bool:
    """True for a question (English or Japanese); a trailing "?" always counts."""
    from kioku.memory.triggers.sentences import is_question as asks

    return asks(text)
