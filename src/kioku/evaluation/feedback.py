"""What a prompt says about the previous turn's result: ``positive``, ``negative`` or ``none``.

Built on :func:`kioku.memory.triggers.feedback_polarity` (English and Japanese phrases), with what a
reviewer reading the next prompt also sees:
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

from kioku.memory.triggers import feedback_polarity

POSITIVE, NEGATIVE, NONE = "positive", "negative", "none"

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
