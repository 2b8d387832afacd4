"""What may be stored as a memory (standard library only).

Refused, with a message that says why and what to do, before anything is written:

- secrets (``kioku.text.secrets.ensure_storable`` raises ``SecretRejected``, exit 3);
- text decoded from invalid UTF-8 (lone surrogates, U+FFFD): recall would skip it as damaged;
- text longer than ``MAX_CHARS`` (1,500): a memory is a note, not a document;
- fenced code blocks longer than ``MAX_CODE_LINES`` (8) lines, or several long
  code-looking lines: memories describe code, they do not carry it;
- pasted transcripts: two or more JSON-object lines with transcript keys (Claude Code JSONL),
  or two or more ``Human:``/``Assistant:``/``User:`` turn markers;
- transient notes about today or this session only ("I'm in a meeting until 3pm today",
  "for this session, focus on the parser", "今日は午後休み"): recalled in a later session they
  would be stale. A standing rule ("from today on", "always", "every", 今日から, 毎回) or a
  written date ("2026-12-01") makes a note last, so it is kept.

Terminal escape sequences and control characters (newline and tab excepted) are removed.
Everything else passes; the rule is to refuse only what is clearly not a note.
"""

from __future__ import annotations

import re

from kioku.text.defang import strip_controls
from kioku.infra.errors import KiokuError, UsageError
from kioku.text.secrets import ensure_storable


class _Lazy:
    """A regex compiled on first use: most notes never need these four (hook save path)."""

    __slots__ = ("_args", "_p")

    def __init__(self, *args) -> None:
        self._args, self._p = args, None

    def __getattr__(self, name: str):
        if self._p is None:
            self._p = re.compile(*self._args)
        return getattr(self._p, name)


MAX_CHARS = 1500
MAX_CODE_LINES = 8

_FENCE = _Lazy(r"^\s*(```|~~~)")
_JSONL = _Lazy(r'^\s*\{.*"(?:type|role|message|sessionId|uuid|parentUuid|content)"\s*:', re.I)
_TURN = _Lazy(r"^\s*(?:human|assistant|user|claude|system)\s*[:>]", re.I)
_CODE_LINE = _Lazy(r"(?:[;{}]\s*$|^\s*(?:def|class|import|from|function|const|let|var|return|if|for)\b.*[:({=])")


# Cheap prefilter (the hook's save path): only a note holding one of these is checked further.
_TRANSIENT_HINTS = ("today", "tonight", "this morning", "this afternoon", "this evening", "tomorrow", "session",
                    "conversation", "chat", "今日", "本日", "今夜", "今晩", "今朝", "明日", "今だけ", "セッション",
                    "会話", "今回", "この作業", "このタスク", "this task", "this pr", "this pull request", "this ticket", "this change",
                    "this branch")
# This session or conversation only: transient whatever else the note says ("For this session,
# never run npm install"), unless it says it goes on in later sessions.
_SESSION_ONLY = _Lazy(
    r"\b(?:(?:for|in|during) this (?:session|conversation|chat)"
    r"(?!\s+(?:cookie|token|id|key|storage|variable|state|data|store|object|name)s?\b)|"
    r"this (?:session|conversation|chat) only|for the rest of (?:this|the) (?:session|conversation|chat|day))\b|"
    r"(?:^|[.!;]\s*)this (?:session|conversation|chat)\s*[,:]|"
    # the work at hand: "only touch src/parser for this task", "this PR should only contain the rename"
    r"\b(?:for|in) this (?:task|pr|pull request|ticket|change|branch)\b|"
    r"(?:^|[.!;]\s*)this (?:pr|pull request|task)\s+(?:should|must|will|is|only)\b|"
    r"\bfrom this (?:chat|conversation|session)\b|"
    r"(?:このセッション|この会話|この作業|このタスク)(?:では|だけ|のみ|中|の間)|今回だけ|今回のみ", re.I)
_LATER_SESSIONS = _Lazy(r"\b(?:every (?:later|future|new|other|next)|(?:all |later |future |next )sessions?\b|"
                        r"from (?:this|the next) (?:session|conversation) on)|以降のセッション|今後のセッション|毎回", re.I)
# Today only: transient unless the note says it lasts. A name is not a time: in code or a file
# ("datetime.today()", "today.py", "`today`", "Tomorrow.io"), in capitals mid-sentence (the
# "Today" tab, the TODAY constant), or today's date as a rule (今日の日付).
_TODAY = _Lazy(r"(?<![.\w'\"`])(?:today|tonight|tomorrow|this (?:morning|afternoon|evening)|"
               r"(?:^|(?<=[.!?]\s))(?:Today|Tonight|Tomorrow|This (?:morning|afternoon|evening)))"
               r"\b(?![(\w'\"`]|\.\w)|今日は|今日の(?!日付)|本日は|今夜|今晩|今朝|明日は|今だけ")
_LASTING = _Lazy(
    r"\b(?:(?:from|starting|beginning|as of|since|after) (?:today|tonight|tomorrow|now)|from now on|going forward|"
    r"always|never|every|each|daily|nightly|weekly|monthly|hourly|must|should|(?:in|for) (?:all )?future|"
    r"today i (?:learned|learnt|found out|realized|realised|discovered|noticed))\b|\d{4}-\d{2}-\d{2}|\d{4}年|"
    r"今日から|本日から|明日から|今日以降|本日以降|今後|以後|以降|いつも|毎日|毎晩|毎朝|毎回|常に|必ず|こと[。.!！]?$|ように",
    re.I)


def transient_marker(text: str) -> str | None:
    """The words that tie ``text`` to today or this session only, or None when it may last."""
    low = text.lower()
    if not low.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text)
        low = text.lower()
    if not any(hint in low for hint in _TRANSIENT_HINTS):
        return None
    found = _SESSION_ONLY.search(text)
    if found is not None:
        return None if _LATER_SESSIONS.search(text) else found.group(0).strip(" .!;,:")
    found = _TODAY.search(text)
    if found is None or _LASTING.search(text):
        return None
    return found.group(0).strip(" .!;,:")


class MemoryRejected(KiokuError):
    """The text is not something Kioku stores as a memory; nothing was written."""


def _not_utf8(text: str) -> bool:
    """True for text decoded from invalid UTF-8: lone surrogates (``surrogateescape``, how
    Python passes undecodable command-line bytes) or U+FFFD. Such a line would be written,
    confirmed, and then skipped by recall as damaged."""
    if text.isascii():
        return False
    return "\ufffd" in text or any("\ud800" <= ch <= "\udfff" for ch in text)


def _longest_indented_block(lines: list[str]) -> int:
    """Longest run of lines indented as a Markdown code block (four spaces or a tab; blank
    lines inside it continue it); indented list items ("    - item") are not code."""
    longest = current = 0
    for line in lines:
        if not line.strip():
            continue
        body = line.lstrip(" \t")
        indented = line.startswith(("    ", "\t")) and not (body[:2] in ("- ", "* ", "+ ")
                                                            or body.split(".", 1)[0].isdigit())
        current = current + 1 if indented else 0
        longest = max(longest, current)
    return longest


def ensure_rememberable(text: str) -> str:
    """The cleaned text to store; raises SecretRejected / MemoryRejected / UsageError."""
    # terminal escapes and control characters are never part of a note (printed raw, they would
    # drive the terminal of whoever reads the memory)
    cleaned = strip_controls(text.replace("\r\n", "\n")).replace("\x00", "").strip()
    if not cleaned:
        raise UsageError("nothing to remember: the text is empty")
    if _not_utf8(cleaned):
        raise MemoryRejected(
            "not saved: the text is not valid UTF-8 (undecodable bytes or U+FFFD replacement "
            "characters); retype it or fix the terminal's encoding"
        )
    ensure_storable(cleaned, what="memory")
    lines = cleaned.splitlines()
    # Each check runs only when its characters occur (a one-line note usually has none of them).
    if ("{" in cleaned and sum(1 for line in lines if "{" in line and _JSONL.match(line)) >= 2) or (
            sum(1 for line in lines if (":" in line or ">" in line) and _TURN.match(line)) >= 2):
        raise MemoryRejected(
            "not saved: this looks like a pasted transcript; remember the conclusion in a sentence instead"
        )
    if len(cleaned) > MAX_CHARS:
        raise MemoryRejected(
            f"not saved: {len(cleaned)} characters is too long for a memory (limit {MAX_CHARS}); "
            "summarise it, or keep long material in the repository and remember where it is"
        )
    longest_block = 0
    inside, current = False, 0
    fenced = "```" in cleaned or "~~~" in cleaned
    for line in lines if fenced else ():
        if _FENCE.match(line):
            if inside:
                longest_block = max(longest_block, current)
            inside, current = not inside, 0
        elif inside:
            current += 1
    if inside:
        longest_block = max(longest_block, current)
    code_like = sum(1 for line in lines if any(c in line for c in ";{}:(=") and _CODE_LINE.search(line))
    if len(lines) > MAX_CODE_LINES:
        longest_block = max(longest_block, _longest_indented_block(lines))
    if longest_block > MAX_CODE_LINES or code_like > MAX_CODE_LINES:
        raise MemoryRejected(
            f"not saved: memories do not store long code snippets (more than {MAX_CODE_LINES} lines); "
            "describe the rule or point to the file instead"
        )
    marker = transient_marker(cleaned)
    if marker:
        raise MemoryRejected(
            f"not saved: \"{marker}\" makes this a note for today or this session only, which a later "
            "session would recall as stale; keep it in mind for now, or word it to last (a date, "
            "\"from now on\", \"every ...\")"
        )
    return cleaned
