"""Sentences, masking and questions, shared by the English and Japanese detectors."""

from __future__ import annotations

import re

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.memory.triggers.phrases_en_work import _STATING_WORDS


# --- masking: code, quotes and quoted lines cannot trigger (offsets are preserved) -------
# (a fence runs to its closing fence or the end of the text: "\Z", since "$" under re.M would end
# it at the end of its first line and leave the code after it readable as a request)
_MASK_RE = _Lazy(r"```[\s\S]*?(?:```|\Z)|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|^>.*$", re.M)


def _mask(text: str) -> str:
    if not any(ch in text for ch in "`\"“>"):  # every branch needs one of these: skip compiling
        return text
    return _MASK_RE.sub(lambda m: " " * len(m.group(0)), text)
# Sentence starts: beginning, after sentence punctuation, or a newline.
_SENT_START = _Lazy(r"(?:^|(?<=[.!?;])\s+|\n\s*|(?<=[。！？])"
                   r"|(?<=,)\s+(?:and|but)\s+(?=(?:please\s+)?(?:remember|keep (?:this |that )?in mind|don't forget)\b)"
                   # "I keep telling you this, so please remember it: …" (a colon and the note after it)
                   r"|(?<=\s)(?i:so),?\s+(?=(?i:please)\s+(?i:remember)\s+(?i:it|this)(?:\s+this\s+time)?\s*:))")
_JA_QUESTION_END = _Lazy(r"(?:[?？]|(?:ます|です|でしょう|だろう|る|た|の)?か[。\s]*|かな[。\s]*)$")
_TRAIL_CHARS = ".!。！、,;:"


def _strip_trail(text: str) -> str:
    r"""``re.sub(r"[\s.!。！、,;:]+$", "", text)`` without compiling a regex (``\s`` is
    ``str.isspace``; the run is greedy, so ``$`` before a final newline changes nothing)."""
    end = len(text)
    while end and (text[end - 1] in _TRAIL_CHARS or text[end - 1].isspace()):
        end -= 1
    return text[:end]


def _is_en_question(sentence: str) -> bool:
    return sentence.rstrip().endswith(("?", "？"))


_EN_Q_START = _Lazy(r"(?i)(?:do|does|did|can|could|would|will|is|are|was|were|have|has"
                         r"|what|when|where|why|how|who|which|should|shall)\b")


def is_question(text: str) -> bool:
    """True for a question (English or Japanese); a trailing "?" always counts."""
    t = text.strip()
    if not t:
        return False
    if t.endswith(("?", "？")):
        return True
    if _EN_Q_START.match(t) and not t.endswith((".", "!", "。", "！")):
        return True
    return bool(_JA_QUESTION_END.search(t)) and not t.endswith(("。", "！"))


_EN_REFERENCE = _Lazy(
    r"(?i)^(?:(?:this|that|these|those|it|them|the above|the following)\b(?:\s+[\w'.-]+){0,3}"
    r"|what (?:you|we|i) (?:just )?\w+)$")
_THIS_PROJECT = frozenset("repo repository project codebase monorepo app team company org service".split())
_JA_PARTICLE = _Lazy(r"[はがをにでとも]|って|、")
_JA_PREDICATE_END = _Lazy(r"(?:る|た|だ|です|ます|い|ない|こと|ず|ん|よ|ね)$")
_JA_THAT_TAIL = _Lazy(r"(?:ということ|ってこと)$")


def _is_reference(content: str, lang: str) -> bool:
    """Content that only points at something in the conversation ("this function's
    signature", "この関数の仕様", "今日のミーティングの内容") cannot be saved from the prompt
    alone: there is no fact in it, so it is not treated as a save request."""
    if lang == "en":
        # both branches match at most four words: a longer note is not compiled against
        words = content.lower().split(None, 4)
        if len(words) > 4 or not _EN_REFERENCE.match(content):
            return False
        # "this repo uses pnpm" says something of the project; "this is important", "that function's
        # signature", "these tests are flaky" point at the conversation
        return not (len(words) > 2 and words[0] == "this" and words[1] in _THIS_PROJECT
                    and set(words[2:]) & _STATING_WORDS)
    return not _JA_PARTICLE.search(content) and not _JA_PREDICATE_END.search(content) \
        and "\n" not in content and not content.isascii()


_PARA_END = _Lazy(r"\n\s*\n")
_SENT_END = _Lazy(r"[.!?](?=\s|$)|[。！？]|\n")
_BLOCK_SENTENCE = _Lazy(r"(?:[^.!?\n]|[.!?](?!\s|$))+(?:[.!?](?=\s|$)|\n|$)")  # "foo.py" is no end


def _sentence_end(text: str, start: int, block: bool) -> int:
    """End of the sentence (or paragraph when ``block``) that starts at ``start``."""
    if block:
        m = _PARA_END.search(text, start)
        return m.start() if m else len(text)
    if not any(mark in text[start:] for mark in ".!?\n。！？"):
        return len(text)  # no sentence mark after ``start``: the pattern cannot match
    m = _SENT_END.search(text, start)
    return m.end() if m else len(text)


# A sentence that only qualifies the fact before it ("Never on Mondays.", "Except for hotfixes.")
# belongs to the same memory; any other next sentence, or one that addresses the agent ("But
# please fix ..."), may be a new request and is left out.
_CONTINUATION_WORDS = ("never", "always", "not", "except", "unless", "but", "only", "otherwise", "because",
                       "since", "including", "excluding", "especially", "even")
_EN_CONTINUATION = _Lazy(
    r"(?i)[ \t]+(?:" + "|".join(_CONTINUATION_WORDS) + r")\b"
    # a request hidden in it: "But first fix the build", "Because of the freeze, update the changelog"
    r"(?![^.!?\n]*\b(?:please|you|let's|let us|first|now|then|also|next|afterwards|asap|right away)\b)"
    r"(?![^.!?\n]*,\s*(?:fix|run|update|add|make|create|remove|delete|write|change|check|commit|push|deploy|"
    r"install|build|open|show|tell|explain|refactor|rename|move|start)\b)"
    r"[^?\n]*?(?:[.!](?=\s|$)|(?=\n)|$)")
_MAX_CONTINUED = 3


def _continued_end(masked: str, end: int) -> int:
    """``end`` moved past the qualifying sentences that directly follow on the same line."""
    for _ in range(_MAX_CONTINUED):
        head = masked[end:end + 16].lstrip(" \t").lower()
        if not head.startswith(_CONTINUATION_WORDS):
            break  # the usual case: the regex is not even compiled (a save is a hook)
        m = _EN_CONTINUATION.match(masked, end)
        if not m or m.end() == end:
            break
        end = m.end()
    return end


_SENTENCE_MARKS = ".!?;\n。！？"


_SO_PLEASE = _Lazy(r"(?i)\bso,?\s+please\b")  # a sentence start of _SENT_START without a sentence mark


def _sentence_starts(masked: str):  # -> Iterator[int]
    """Where sentences start (``_SENT_START``); a text without any sentence mark is one
    sentence, found without compiling the pattern."""
    if not any(mark in masked for mark in _SENTENCE_MARKS) and ", and " not in masked and ", but " not in masked \
            and ("please" not in masked.lower() or not _SO_PLEASE.search(masked)):
        yield 0
        return
    for ss in _SENT_START.finditer(masked):
        yield ss.end()


def has_japanese(text: str) -> bool:
    """Kana or CJK ideographs ([\u3040-\u30ff\u3400-\u9fff]); no regex: that class alone
    took ~2 ms to compile on every save."""
    if text.isascii():
        return False
    return any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" for ch in text)
