"""What a prompt says about the previous turn's result: ``positive``, ``negative`` or ``none``.

``feedback_polarity(text) -> int`` (+1, -1, 0) reads the phrase tables of
:mod:`kioku.evaluation.feedback_phrases`. Strong phrases ("thanks", "that worked", "doesn't work",
"still failing", "not what I asked", "ありがとう", "動かない") count anywhere in the first 600
characters; weak single words ("great", "failing", "wrong", "失敗") only in a reply of at most
three words or among its first two words, because tasks use them too ("fix the failing test").
Positive phrases that contain a negative word win ("not bad", "no problem", "doesn't fail
anymore", "間違いない"). Mixed feedback with a contrast ("thanks, but it still fails") is
negative. Questions are neutral unless they complain ("why is it still failing?").

``classify(text)`` adds what a reviewer reading the next prompt also sees:
- a pasted failing log (a shell prompt or an error/traceback line opening a multi-line prompt)
  or "still fails / still not working" is negative, even phrased as a question;
- emoji inside a request ("add 🎉 emojis") is not praise: pictographs count only when the
  prompt is little more than the emoji;
- a correction ("feels implausible?", "that's an ancient image", "not what I asked") is negative;
- a new request that merely starts with "no"/"not" is not a complaint: weak negatives only
  count in a short reply (``feedback_polarity`` already limits them to the first words).
"""

from __future__ import annotations

import re

from kioku.evaluation.feedback_phrases import _NEG_STRONG, _NEG_WEAK, _POS_OVERRIDE, _POS_STRONG, _POS_WEAK
from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.memory.triggers.sentences import has_japanese, is_question

POSITIVE, NEGATIVE, NONE = "positive", "negative", "none"

_WEAK_SHORT_WORDS = 3
_FEEDBACK_SCAN = 600
_CONTRAST = _Lazy(r"\bbut\b|\bhowever\b|\bthough\b|\bstill\b|けど|けれど|しかし|でも|ただ、|まだ")
_COMPLAINT_Q = _Lazy(r"\bwhy\b|\bstill\b|\bagain\b|なぜ|なんで|まだ|また")
_WORD_RE = _Lazy(r"[a-z0-9']+|[^\x00-\x7f\s]{1,4}")


def _count(pattern: re.Pattern[str], t: str, weak_limit: int) -> int:
    """Matches; with ``weak_limit`` >= 0 only those starting before that offset count."""
    if weak_limit < 0:
        return len(pattern.findall(t))
    return sum(1 for m in pattern.finditer(t) if m.start() < weak_limit)


def feedback_polarity(text: str) -> int:
    """+1 if the text praises the previous answer, -1 if it says it failed, else 0.

    Mixed feedback ("thanks, but it still fails") counts as negative: a remaining problem
    matters more for learning than politeness. A question is neutral ("is it broken?")
    unless it is a complaint ("why is it still failing?").
    """
    if not text or not text.strip():
        return 0
    # Feedback opens a prompt ("thanks, now ..."); scanning only the start keeps a long
    # prompt cheap.
    text = text.strip()[:_FEEDBACK_SCAN]
    t = text.lower().replace("\u2019", "'")
    pos = len(_POS_OVERRIDE.findall(t))
    if pos:
        t = _POS_OVERRIDE.sub(" ", t)
    # weak words count everywhere in a short reply, else only among its first two words
    words = list(_WORD_RE.finditer(t))
    if has_japanese(t):
        limit = len(t) if len(t) <= 8 else 6
    elif len(words) <= _WEAK_SHORT_WORDS:
        limit = len(t)
    else:
        limit = words[1].end()
    neg = len(_NEG_STRONG.findall(t))
    t_no_neg = _NEG_STRONG.sub(" ", t) if neg else t
    neg += _count(_NEG_WEAK, t_no_neg, limit)
    pos += len(_POS_STRONG.findall(t_no_neg))
    pos += _count(_POS_WEAK, _NEG_WEAK.sub(" ", t_no_neg), limit)
    if is_question(text):
        return -1 if neg and _COMPLAINT_Q.search(t) else 0
    if neg and pos:
        return -1 if _CONTRAST.search(t) or neg >= pos else 1
    if neg:
        return -1
    if pos:
        return 1
    return 0


_STILL_BROKEN = re.compile(
    r"\bstill\s+(?:fail\w*|broken|not\s+work\w*|doesn'?t\s+work|does\s+not\s+work|erroring|crash\w*|the same)"
    r"|\b(?:tests?|build|it)\s+(?:still\s+)?(?:fails?|failing|is failing|are failing)\b"
    r"|\bdoesn'?t\s+(?:seem\s+to\s+)?work\b|\bnot\s+working\b|\bsame\s+error\b"
    r"|まだ(?:失敗|動かない|エラー|直って)|動きません|直っていません", re.I)
_WRONG = re.compile(r"\b(?:that's|that is|it's|it is|this is)\s+(?:wrong|incorrect|not right|broken)\b"
                    r"|間違って|違います", re.I)
_PRAISE = re.compile(r"\b(?:this|that|it)(?:'s| is| was)\s+(?:really\s+|very\s+|so\s+)?(?:helpful|useful|great|perfect)\b"
                     r"|\bworks?\s+(?:great|well|perfectly|now)\b", re.I)
_PASTED_LOG_LINE = re.compile(
    r"^\s*(?:[❯$>#]\s+\S|Traceback \(most recent call last\)|error(?:\[\w+\])?:|ERROR\b|FAILED\b|fatal:|"
    r"npm ERR!|E\s{2,}\w|\w+Error:|panic:|Exception)", re.M)
# a correction of the previous answer: the user judges it stale, implausible or off
_CORRECTION = re.compile(
    r"\b(?:feels?|looks?|seems?|sounds?)\s*(?:\.{2,}|…)?\s*(?:like\s+)?(?:implausible|wrong|off|odd|weird|strange|"
    r"outdated|ancient|out of date|broken|incorrect|not right|unnecessary|overkill)\b"
    r"|\b(?:that's|that is|this is|it's|it is)\s+(?:an?\s+)?(?:ancient|outdated|out of date|deprecated|stale)\b"
    r"|\bthat's not what I\b|\bnot what I (?:asked|wanted|meant)\b|\byou (?:misunderstood|forgot|missed|ignored)\b"
    r"|\byou (?:didn't|did not|haven't|have not) (?:commit|push|run|test|fix|finish|update|add|save)\w*\b"
    r"|\bI (?:still )?see (?:\w+ )?(?:uncommitted|unstaged|untracked|failing|leftover)\b|\b(?:wasn't|isn't|not) (?:committed|pushed)\b"
    r"|違う|そうじゃな", re.I)
_PRAISE_OPENER = re.compile(r"^\W*(?:great|perfect|thanks|thank you|awesome|excellent|nice|wonderful|amazing|"
                            r"brilliant|lovely|looks good|works)\s*[!.,]", re.I)
_RETRY = re.compile(r"\b(?:try|do it|run it|start)\s+(?:it\s+)?again\b|\bretry\b|もう一度|再試行", re.I)
_PICTOGRAPH = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF]")


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
    if _pasted_failure(text) or _STILL_BROKEN.search(text[:600]) or _CORRECTION.search(text[:400]):
        return NEGATIVE
    if _PRAISE_OPENER.match(text):
        return POSITIVE
    words = re.findall(r"\w+", text)
    scan = text if len(words) <= 4 else _PICTOGRAPH.sub(" ", text)
    scan = _RETRY.sub(" ", scan)   # asking for a retry is not a complaint
    polarity = feedback_polarity(scan)
    if polarity < 0:
        return NEGATIVE
    if polarity > 0 or _PRAISE.search(text[:300]):
        return POSITIVE
    return NONE


def shows_failure(text: str) -> bool:
    """The prompt reports that something still fails (a pasted failing log, "still failing")."""
    return bool(text) and (_pasted_failure(text) or bool(_STILL_BROKEN.search(text[:600]))
                           or bool(_WRONG.search(text[:300])))


def says_still_broken(text: str) -> bool:
    """The prompt says, in words, that the result is wrong or still fails."""
    return bool(text) and bool(_STILL_BROKEN.search(text[:600]) or _WRONG.search(text[:300]))
