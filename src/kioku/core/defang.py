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
2. every tag-like opening - ``<`` or a lookalike of it, optionally followed by spaces and ``/``
   or ``!`` or ``?``, then a letter in any script or the end of the text - has its bracket replaced by ``&lt;``. Any
   tag is neutralised, not only Kioku's own, because a model reads ``</system>`` or
   ``<instructions>`` with the same eyes.

Text on disk is never changed: defanging applies to the copy that is injected or printed for
Claude to read (``kioku improvements``, ``dashboard``, ``search``, ``evaluate``; their JSON
output goes through :func:`defang_json`, which keeps the data identical for parsers). Lessons
learned from a transcript are the exception: they are defanged before they are stored.
"""

from __future__ import annotations

import re
import unicodedata

# Characters a model may read as "<" that NFKC does not fold into it.
LT_LOOKALIKES = "<‹〈〈⟨˂ᐸ❮❬⧼⟪《≺⋖"
# A bracket at the very end counts too: the next line or value joined after it may start a name.
_TAG_OPEN = re.compile("[" + re.escape(LT_LOOKALIKES) + r"](?=\s*[/!?]?\s*(?:[^\W\d_]|\Z))")
_INVISIBLE_EXTRA = {"\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"}  # joiners and fillers outside Cf


def _visible(text: str) -> str:
    """NFKC-normalised ``text`` without format characters and variation selectors."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text
                   if unicodedata.category(ch) != "Cf"
                   and not ("\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef")
                   and ch not in _INVISIBLE_EXTRA)


def defang(text: str) -> str:
    """``text`` with every tag-like opening neutralised (see the module docstring)."""
    if not text:
        return ""
    if not text.isascii():
        text = _visible(text)
    elif "<" not in text:
        return text
    return _TAG_OPEN.sub("&lt;", text)


def attr(value: str) -> str:
    """``value`` safe inside a double-quoted attribute of a fence: defanged, on one line,
    with ``&``, quotes and angle brackets escaped."""
    value = str(value)
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
