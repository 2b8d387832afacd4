"""The phrases that say how the previous turn went, in English and Japanese: the one table.

:func:`kioku.evaluation.feedback.feedback_polarity` reads every one of them, and
:func:`kioku.evaluation.feedback.classify`, ``shows_failure`` and ``says_still_broken`` read them
through it or directly; no other module keeps its own list of praise, complaint or retry words.

- ``POS_OVERRIDE``: positive phrases holding a negative word ("not bad", "doesn't fail anymore"),
  matched and blanked first;
- ``POS_STRONG`` / ``NEG_STRONG``: feedback wherever they stand in the first 600 characters;
- ``POS_WEAK`` / ``NEG_WEAK``: single words that tasks use too ("fix the failing test"), counted
  only in a short reply or among its first two words;
- ``STILL_BROKEN`` and ``CORRECTION``: the result still fails, or the user corrects it ("you forgot
  to commit", "feels implausible?"): negative whatever else the prompt says, also as a question;
- ``WRONG``: "that's wrong / incorrect / not right", part of ``NEG_STRONG``; ``PRAISE`` ("this is
  helpful", "works well") and ``PRAISE_OPENER`` (a prompt opening with "Great!", "Works."), positive;
- ``RETRY``: asking for another attempt ("try again", "retry", もう一度) is neither praise nor a
  complaint, and is blanked before the rest is read;
- ``PICTOGRAPH``: emoji count as feedback only in a prompt of at most four words ("add 🎉 emojis
  to the README" is a request).
"""

from __future__ import annotations

import re

from kioku.infra import lazyre
from kioku.infra.lazyre import LazyPattern as _Lazy


def _trie(words: list[str]) -> str:
    """A regex alternation nested by common prefix. Every branch starts with a literal, so
    CPython's matcher rejects non-matching branches with one character compare; a flat
    case-insensitive alternation of 80 phrases was ~10x slower."""
    tree: dict = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in node.items() if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return emit(tree)


def _phrases(en: str, ja: str) -> _Lazy:
    """English phrases (lower case, word-bounded) and Japanese/emoji substrings, | separated, as
    one pattern (matched against lower-cased text)."""
    return _Lazy(lambda: r"\b(?:" + _trie(en.split("|")) + r")\b|" + _trie(ja.split("|")))


# Phrases that contain a negative word but mean something positive are matched (and blanked)
# first: "not bad", "no problem", "doesn't fail anymore", "間違いない".
POS_OVERRIDE_PHRASES = (
    "not bad|not wrong|not an issue|not a problem|no problem|no problems|no worries|no issues"
    "|no errors|no error|no more errors|doesn't fail|doesnt fail|does not fail|doesn't crash"
    "|does not crash|no longer fails|no longer failing|no longer crashes|no longer broken"
    "|not failing anymore|not failing any more|not broken anymore|works now|work now"
    "|working now|fixed it|that fixed it|it's fixed|its fixed|is fixed now|passes now"
    "|passing now|tests pass|all green|can't complain",
    "間違いない|間違いありません|問題ない|問題ありません|問題なし|悪くない|ダメじゃない|だめじゃない"
    "|エラーが出なく|エラーが消え|直った|直りました|動くようになった|文句なし",
)
POS_OVERRIDE = _phrases(*POS_OVERRIDE_PHRASES)
# Strong phrases are feedback wherever they appear. Weak single words ("great", "failing",
# "wrong") are also how tasks are described ("fix the failing test", "correct the typo"), so
# they count only in a reply of at most three words or as one of its first two words
# (Japanese: a reply of at most 8 characters, or within its first 6).
POS_STRONG_PHRASES = (
    "thanks|thank you|thx|great job|great work|good job|good work|nice work|nice job"
    "|well done|lgtm|looks good|looks great|nailed it|that worked|that works|it works"
    "|it worked|works great|works perfectly|spot on|love it|good catch|that's right|that's it"
    "|much better|yes exactly|that did it|that did the trick|that's correct|that is correct",
    "ありがと|サンキュー|完璧|うまくいった|うまくいきました|うまく行った|うまく動いた|上手くいった"
    "|上手く行った|動いた|動きました|助かった|助かりました|素晴らしい|すばらしい|ばっちり"
    "|バッチリ|さすが|解決した|解決しました|できました|その通り|いい感じ|良い感じ|よくできました"
    "|👍|🎉|🙏",
)
POS_STRONG = _phrases(*POS_STRONG_PHRASES)
POS_WEAK_PHRASES = (
    "perfect|great|nice|awesome|excellent|brilliant|fantastic|amazing|exactly|solved"
    "|superb|wonderful|cheers|ty|cool|sweet|good|lovely",
    "最高|いいね|良いね|いいですね|良いですね|正解|オッケー|おけ|✅",
)
POS_WEAK = _phrases(*POS_WEAK_PHRASES)
# "that's wrong", "it is not right", "this is broken": the result judged in so many words (also
# what the judge reads as a report that it still fails, ``WRONG``)
_SAYS_WRONG = "|".join(f"{subject} {verdict}" for subject in ("that's", "that is", "it's", "it is", "this is")
                       for verdict in ("wrong", "incorrect", "not right", "broken"))
WRONG_PHRASES = (_SAYS_WRONG, "間違って|違います")
WRONG = _phrases(*WRONG_PHRASES)
NEG_STRONG_PHRASES = (
    _SAYS_WRONG + "|doesn't work|doesnt work|does not work"
    "|didn't work|didnt work|did not work|not working|isn't working|still fails|still failing"
    "|still failed|still broken|still wrong|still not|still doesn't|still crashes|still crashing"
    "|still errors|still erroring|still getting|you broke|not what i asked|not what i wanted"
    "|not what i meant|not what i said|that's not it|that's not right|that's not what"
    "|same error|useless|revert it|revert that|revert this|undo it|undo that|undo this"
    "|stop doing|error persists|not quite|doesn't compile|does not compile|won't compile"
    "|it's broken|it is broken|you broke it|this broke|that broke|it broke|made it worse"
    "|that's not correct|is not correct|isn't correct|nope",
    "違う|違います|ちがう|動かない|動きません|間違って|間違えて|だめ|ダメ|駄目|まだエラー"
    "|まだ失敗|まだ動かない|まだ直って|直ってない|直っていない|うまくいかない|うまくいきません"
    "|うまく動かない|上手くいかない|そうじゃない|そうではない|やり直し|👎|❌",
)
NEG_STRONG = _phrases(*NEG_STRONG_PHRASES)
NEG_WEAK_PHRASES = (
    "wrong|incorrect|broken|fail|fails|failed|failing|bad|terrible|worse|nope|crash|crashes"
    "|crashed|regression",
    "失敗|エラー|壊れ|おかしい|できない|できてない|できていない|間違い",
)
NEG_WEAK = _phrases(*NEG_WEAK_PHRASES)

# The result still fails, in words (also phrased as a question: "still failing?").
STILL_BROKEN = _Lazy(
    r"\bstill\s+(?:fail\w*|broken|not\s+work\w*|doesn'?t\s+work|does\s+not\s+work|erroring|crash\w*|the same)"
    r"|\b(?:tests?|build|it)\s+(?:still\s+)?(?:fails?|failing|is failing|are failing)\b"
    r"|\bdoesn'?t\s+(?:seem\s+to\s+)?work\b|\bnot\s+working\b|\bsame\s+error\b"
    r"|まだ(?:失敗|動かない|エラー|直って)|動きません|直っていません", lazyre.IGNORECASE)
# A correction of the previous answer: the user judges it stale, implausible or off, or names what it missed.
CORRECTION = _Lazy(
    r"\b(?:feels?|looks?|seems?|sounds?)\s*(?:\.{2,}|…)?\s*(?:like\s+)?(?:implausible|wrong|off|odd|weird|strange|"
    r"outdated|ancient|out of date|broken|incorrect|not right|unnecessary|overkill)\b"
    r"|\b(?:that's|that is|this is|it's|it is)\s+(?:an?\s+)?(?:ancient|outdated|out of date|deprecated|stale)\b"
    r"|\bthat's not what I\b|\bnot what I (?:asked|wanted|meant)\b|\byou (?:misunderstood|forgot|missed|ignored)\b"
    r"|\byou (?:didn't|did not|haven't|have not) (?:commit|push|run|test|fix|finish|update|add|save)\w*\b"
    r"|\bI (?:still )?see (?:\w+ )?(?:uncommitted|unstaged|untracked|failing|leftover)\b"
    r"|\b(?:wasn't|isn't|not) (?:committed|pushed)\b"
    r"|違う|そうじゃな", lazyre.IGNORECASE)
PRAISE = _Lazy(r"\b(?:this|that|it)(?:'s| is| was)\s+(?:really\s+|very\s+|so\s+)?(?:helpful|useful|great|perfect)\b"
               r"|\bworks?\s+(?:great|well|perfectly|now)\b", lazyre.IGNORECASE)
PRAISE_OPENER = _Lazy(r"^\W*(?:great|perfect|thanks|thank you|awesome|excellent|nice|wonderful|amazing|"
                      r"brilliant|lovely|looks good|works)\s*[!.,]", lazyre.IGNORECASE)
RETRY_PHRASES = ("try again|try it again|do it again|run it again|start again|start it again|retry", "もう一度|再試行")
RETRY = _phrases(*RETRY_PHRASES)
PICTOGRAPH = _Lazy("[\U0001F300-\U0001FAFF\u2600-\u27BF]")
