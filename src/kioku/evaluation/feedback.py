"""What a prompt says about the previous turn's result: ``positive``, ``negative`` or ``none``.

``feedback_polarity(text) -> int`` (+1, -1, 0) reads the one phrase table,
:mod:`kioku.evaluation.feedback_phrases`:
- strong phrases ("thanks", "that worked", "doesn't work", "not what I asked", "ありがとう",
  "動かない") count anywhere in the first 600 characters; weak single words ("great", "failing",
  "wrong", "失敗") only in a reply of at most three words or among its first two words, because
  tasks use them too ("fix the failing test");
- positive phrases that contain a negative word win ("not bad", "no problem", "doesn't fail
  anymore", "間違いない");
- saying the result still fails, or correcting it ("still failing", "you forgot to commit",
  "feels implausible?"), is negative whatever else the prompt says, also as a question; a prompt
  opening with praise ("Great!", "Works.") is positive otherwise;
- mixed feedback with a contrast ("thanks, but it fails on Windows") is negative; another
  question is neutral unless it complains ("why is it failing again?");
- asking for a retry ("try again", もう一度) is neither; emoji count only in a prompt of at most
  four words ("add 🎉 emojis" is a request).

``classify(text)`` is that polarity as a word, and a pasted failing log (a shell prompt or an
error/traceback line opening a multi-line prompt) is negative too. ``shows_failure`` and
``says_still_broken`` tell the judge whether a prompt reports a failure.
"""

from __future__ import annotations

import re

from kioku.evaluation import feedback_phrases as ph
from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.memory.triggers.sentences import has_japanese, is_question

POSITIVE, NEGATIVE, NONE = "positive", "negative", "none"

_WEAK_SHORT_WORDS = 3
_FEEDBACK_SCAN = 600
_EMOJI_WORDS = 4  # emoji are feedback only in a prompt of at most this many words
_CONTRAST = _Lazy(r"\bbut\b|\bhowever\b|\bthough\b|\bstill\b|けど|けれど|しかし|でも|ただ、|まだ")
_COMPLAINT_Q = _Lazy(r"\bwhy\b|\bstill\b|\bagain\b|なぜ|なんで|まだ|また")
_WORD_RE = _Lazy(r"[a-z0-9']+|[^\x00-\x7f\s]{1,4}")
# "does not work", "can't complain": a statement with its subject left out, not a question
_NEGATED_START = _Lazy(r"(?:do|does|did|is|are|was|were|has|have|can|could|will|would)(?:\s+not\b|n?'t\b)")
_PASTED_LOG_LINE = _Lazy(
    r"^\s*(?:[❯$>#]\s+\S|Traceback \(most recent call last\)|error(?:\[\w+\])?:|ERROR\b|FAILED\b|fatal:|"
    r"npm ERR!|E\s{2,}\w|\w+Error:|panic:|Exception)", re.M)


def _count(pattern: _Lazy, t: str, weak_limit: int) -> int:
    """Matches; with ``weak_limit`` >= 0 only those starting before that offset count."""
    if weak_limit < 0:
        return len(pattern.findall(t))
    return sum(1 for m in pattern.finditer(t) if m.start() < weak_limit)


def feedback_polarity(text: str) -> int:
    """+1 if the text praises the previous answer, -1 if it says it failed, else 0 (the rules are
    the module's)."""
    if not text or not text.strip():
        return 0
    # Feedback opens a prompt ("thanks, now ..."); scanning only the start keeps a long prompt cheap.
    text = text.strip()[:_FEEDBACK_SCAN]
    t = text.lower().replace("\u2019", "'")
    if len(re.findall(r"\w+", t)) > _EMOJI_WORDS:
        t = ph.PICTOGRAPH.sub(" ", t)
    t = ph.RETRY.sub(" ", t)
    asked = is_question(text) and (text.endswith(("?", "？")) or not _NEGATED_START.match(t))
    if ph.STILL_BROKEN.search(t) or ph.CORRECTION.search(t):
        return -1
    if ph.PRAISE_OPENER.match(t):
        return 1
    pos = len(ph.POS_OVERRIDE.findall(t))
    if pos:
        t = ph.POS_OVERRIDE.sub(" ", t)
    # weak words count everywhere in a short reply, else only among its first two words
    words = list(_WORD_RE.finditer(t))
    if has_japanese(t):
        limit = len(t) if len(t) <= 8 else 6
    elif len(words) <= _WEAK_SHORT_WORDS:
        limit = len(t)
    else:
        limit = words[1].end()
    neg = len(ph.NEG_STRONG.findall(t))
    t_no_neg = ph.NEG_STRONG.sub(" ", t) if neg else t
    neg += _count(ph.NEG_WEAK, t_no_neg, limit)
    praised = len(ph.PRAISE.findall(t_no_neg))
    pos += len(ph.POS_STRONG.findall(t_no_neg)) + praised
    pos += _count(ph.POS_WEAK, ph.NEG_WEAK.sub(" ", t_no_neg), limit)
    if asked:
        # a question is neutral unless it complains, or praises before asking ("This is really
        # helpful! Can you …?")
        return -1 if neg and _COMPLAINT_Q.search(t) else (1 if praised and not neg else 0)
    if neg and pos:
        return -1 if _CONTRAST.search(t) or neg >= pos else 1
    if neg:
        return -1
    if pos:
        return 1
    return 0


def _pasted_failure(text: str) -> bool:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if len(lines) < 3:
        return False
    opening = "\n".join(lines[:2])
    if re.match(r"\s*[❯$]\s+\S", opening):
        return bool(re.search(r"error|fail|fatal|exception|denied|not found|exit code [1-9]", text, re.I))
    return bool(_PASTED_LOG_LINE.search(opening))


def classify(text: str) -> str:
    """Feedback on the previous turn carried by the prompt ``text``."""
    if not text or not text.strip():
        return NONE
    if _pasted_failure(text):
        return NEGATIVE
    return {1: POSITIVE, -1: NEGATIVE}.get(feedback_polarity(text), NONE)


def shows_failure(text: str) -> bool:
    """The prompt reports that something still fails (a pasted failing log, "still failing")."""
    return bool(text) and (_pasted_failure(text) or bool(ph.STILL_BROKEN.search(text[:_FEEDBACK_SCAN]))
                           or _says_wrong(text))


def says_still_broken(text: str) -> bool:
    """The prompt says, in words, that the result is wrong or still fails."""
    return bool(text) and bool(ph.STILL_BROKEN.search(text[:_FEEDBACK_SCAN]) or _says_wrong(text))


def _says_wrong(text: str) -> bool:
    """"that's wrong", "it is not right", 間違って: the result judged wrong in the prompt's opening."""
    return bool(ph.WRONG.search(text[:300].lower().replace("\u2019", "'")))
