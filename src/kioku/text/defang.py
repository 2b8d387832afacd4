"""Defanging: remembered text made inert before it reaches a model (stdlib only).

Every memory, lesson, agent name, category, tag and evaluation reason that is injected into a
session passes through :func:`defang` (body text) or :func:`attr` (a value inside a fence's
attribute). The fences Kioku draws around remembered data (``<kioku-memory>``,
``<kioku-learned-improvements>``) only mean something if nothing inside can close or open a
tag, so:

1. text is NFKC-normalised (full-width ``＜`` and small ``﹤`` become ``<``, full-width letters
   become ASCII) and stripped of invisible format characters (zero-width space and joiners,
   soft hyphen, bidi controls, BOM, variation selectors), which otherwise hide a tag from a
   plain comparison;
2. terminal escape sequences and control characters other than newline and tab are removed;
3. every tag-like opening - ``<`` or a lookalike of it, followed after any run of spaces,
   slashes, ``!``, ``?``, backslashes or combining marks by a letter in any script or by the
   end of the text - has its bracket replaced by ``&lt;``. Any
   tag is neutralised, not only Kioku's own, because a model reads ``</system>`` or
   ``<instructions>`` with the same eyes.

Text on disk is never changed: defanging applies to the copy that is injected or printed for
Claude to read (``kioku lessons search``, ``dashboard``, ``search``, ``evaluate``; their JSON
output goes through :func:`defang_json`, which keeps the data identical for parsers). Lessons
learned from a transcript are the exception: they are defanged before they are stored.
"""

from __future__ import annotations

import re

from kioku.infra.lazyre import NON_ASCII, LazyPattern

# The patterns compile on first use and unicodedata is imported only for non-ASCII text: a save
# (a hook) strips control characters from every note, and most notes need neither.

# The fence around remembered notes (recall at SessionStart, the save confirmation).
MEMORY_OPEN, MEMORY_CLOSE = "<kioku-memory>", "</kioku-memory>"

# Characters a model may read as "<" that NFKC does not fold into it.
LT_LOOKALIKES = "<‹〈〈⟨˂ᐸᐊ❮❰❬⧼⟪《≺⋖≪⊲◁◀"
# A bracket followed, after any run of spaces, slashes, "!", "?", backslashes or combining marks
# (none of them a letter or "<", so each bracket scans only its own run), by a letter in any script
# opens a tag; one at the very end counts too, since the next
# line or value joined after it may start a name. "x < 5", "<3" and "<- arrow" stay as they are.
_TAG_GAP = r"[\s/!?\\\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
_TAG_OPEN = LazyPattern("[" + re.escape(LT_LOOKALIKES) + "](?=" + _TAG_GAP + r"*(?:[^\W\d_]|\Z))")
_TAG_ESCAPED = LazyPattern("&lt;(?=" + _TAG_GAP + r"*(?:[^\W\d_]|\Z))")  # what defang writes for a tag-like "<"
_INVISIBLE_EXTRA = {"\u034f", "\u115f", "\u1160", "\u3164", "\uffa0", "\u180b", "\u180c", "\u180d",
                    "\u180f", "\u2800"}  # joiners, fillers and blanks outside Cf
# Terminal escape sequences (colour, cursor moves, OSC hyperlinks and titles) and every other
# C0/C1 control character but newline and tab: they are never part of a note, and printed raw
# they drive the reader's terminal.
_ESCAPES = LazyPattern(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-_]?"
                       r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (newline and tab kept;
    a carriage return before a newline goes with it)."""
    if text.replace("\n", "").replace("\t", "").isprintable() or not _ESCAPES.search(text):
        return text
    return _ESCAPES.sub("", text.replace("\r\n", "\n"))


def _visible(text: str) -> str:
    """NFKC-normalised ``text`` without format characters and variation selectors."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text)
    # every character dropped here is outside ASCII: only those are looked at one by one
    hidden = [m.start() for m in NON_ASCII.finditer(text)
              if unicodedata.category(text[m.start()]) == "Cf"
              or "\ufe00" <= text[m.start()] <= "\ufe0f" or "\U000e0100" <= text[m.start()] <= "\U000e01ef"
              or text[m.start()] in _INVISIBLE_EXTRA]
    if not hidden:
        return text
    kept: list[str] = []
    pos = 0
    for i in hidden:
        kept.append(text[pos:i])
        pos = i + 1
    kept.append(text[pos:])
    return "".join(kept)


def defang(text: str) -> str:
    """``text`` with every tag-like opening neutralised and control characters removed (see
    the module docstring)."""
    if not text:
        return ""
    text = strip_controls(text)
    if not text.isascii():
        text = _visible(text)
    elif "<" not in text:
        return text
    return _TAG_OPEN.sub("&lt;", text)


def unescape_tags(text: str) -> str:
    """``text`` with each ``&lt;`` that :func:`defang` writes for a tag-like ``<`` turned back:
    for a text a person edited in defanged output (``kioku lessons export`` printed to a terminal)."""
    return _TAG_ESCAPED.sub("<", text) if "&lt;" in text else text


def defang_line(text: str) -> str:
    """``defang(text)`` on one line (runs of white space, line breaks included, become one
    space): a stored text printed in a list cannot start lines that look like the list's own."""
    return " ".join(defang(text).split())


def attr(value: str) -> str:
    """``value`` safe inside a double-quoted attribute of a fence: defanged, on one line,
    with ``&``, quotes and angle brackets escaped."""
    value = strip_controls(str(value))
    flat = " ".join((value if value.isascii() else _visible(value)).split())
    for lookalike in LT_LOOKALIKES[1:]:
        flat = flat.replace(lookalike, "<")
    return (flat.replace("&", "&amp;").replace('"', "&quot;").replace("'", "&#39;")
            .replace("<", "&lt;").replace(">", "&gt;"))


# JSON output is not NFKC-folded (it must keep the data), so the characters NFKC folds into
# "<" (full-width and small forms) are escaped there as well.
_JSON_LT = LT_LOOKALIKES + "\uff1c\ufe64"


def defang_json(encoded: str) -> str:
    """A JSON document (already encoded) with every ``<`` and lookalike written as a ``\\uXXXX``
    escape. Outside strings JSON has no such characters, so parsers read exactly the same
    data, while a model reading the raw output sees no tag."""
    if not any(ch in encoded for ch in _JSON_LT):
        return encoded
    return encoded.translate({ord(ch): f"\\u{ord(ch):04x}" for ch in _JSON_LT})
