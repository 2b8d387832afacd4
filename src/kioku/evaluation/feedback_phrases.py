"""The phrases that say how the previous turn went, in English and Japanese (one table for every reader).

:func:`kioku.evaluation.feedback.feedback_polarity` and :func:`kioku.evaluation.feedback.classify`
read these; nothing else keeps its own list of praise or complaint words.
"""

from __future__ import annotations

import re

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
    """English phrases (lower case, word-bounded) and Japanese/emoji substrings, | separated."""
    return _Lazy(lambda: r"\b(?:" + _trie(en.split("|")) + r")\b|" + _trie(ja.split("|")))


# Phrases that contain a negative word but mean something positive are matched (and blanked)
# first: "not bad", "no problem", "doesn't fail anymore", "間違いない".
_POS_OVERRIDE = _phrases(
    "not bad|not wrong|not an issue|not a problem|no problem|no problems|no worries|no issues"
    "|no errors|no error|no more errors|doesn't fail|doesnt fail|does not fail|doesn't crash"
    "|does not crash|no longer fails|no longer failing|no longer crashes|no longer broken"
    "|not failing anymore|not failing any more|not broken anymore|works now|work now"
    "|working now|fixed it|that fixed it|it's fixed|its fixed|is fixed now|passes now"
    "|passing now|tests pass|all green|can't complain",
    "間違いない|間違いありません|問題ない|問題ありません|問題なし|悪くない|ダメじゃない|だめじゃない"
    "|エラーが出なく|エラーが消え|直った|直りました|動くようになった|文句なし",
)
# Strong phrases are feedback wherever they appear. Weak single words ("great", "failing",
# "wrong") are also how tasks are described ("fix the failing test", "correct the typo"), so
# they count only in a reply of at most three words or as one of its first two words
# (Japanese: a reply of at most 8 characters, or within its first 6).
_POS_STRONG = _phrases(
    "thanks|thank you|thx|great job|great work|good job|good work|nice work|nice job"
    "|well done|lgtm|looks good|looks great|nailed it|that worked|that works|it works"
    "|it worked|works great|works perfectly|spot on|love it|good catch|that's right|that's it"
    "|much better|yes exactly|that did it|that did the trick|that's correct|that is correct",
    "ありがと|サンキュー|完璧|うまくいった|うまくいきました|うまく行った|うまく動いた|上手くいった"
    "|上手く行った|動いた|動きました|助かった|助かりました|素晴らしい|すばらしい|ばっちり"
    "|バッチリ|さすが|解決した|解決しました|できました|その通り|いい感じ|良い感じ|よくできました"
    "|👍|🎉|🙏",
)
_POS_WEAK = _phrases(
    "perfect|great|nice|awesome|excellent|brilliant|fantastic|amazing|exactly|solved"
    "|superb|wonderful|cheers|ty|cool|sweet|good",
    "最高|いいね|良いね|正解|オッケー|おけ|✅",
)
_NEG_STRONG = _phrases(
    "that's wrong|that is wrong|this is wrong|it's wrong|doesn't work|doesnt work|does not work"
    "|didn't work|didnt work|did not work|not working|isn't working|still fails|still failing"
    "|still failed|still broken|still wrong|still not|still doesn't|still crashes|still crashing"
    "|still errors|still erroring|still getting|you broke|not what i asked|not what i wanted"
    "|not what i meant|not what i said|that's not it|that's not right|that's not what"
    "|same error|useless|revert it|revert that|revert this|undo it|undo that|undo this"
    "|stop doing|error persists|not quite|doesn't compile|does not compile|won't compile"
    "|it's broken|it is broken|you broke it|this broke|that broke|it broke|made it worse"
    "|that's not correct|is not correct|isn't correct|try again|nope",
    "違う|違います|ちがう|動かない|動きません|間違って|間違えて|だめ|ダメ|駄目|まだエラー"
    "|まだ失敗|まだ動かない|まだ直って|直ってない|直っていない|うまくいかない|うまくいきません"
    "|うまく動かない|上手くいかない|そうじゃない|そうではない|やり直し|👎|❌",
)
_NEG_WEAK = _phrases(
    "wrong|incorrect|broken|fail|fails|failed|failing|bad|terrible|worse|nope|crash|crashes"
    "|crashed|regression",
    "失敗|エラー|壊れ|おかしい|できない|できてない|できていない|間違い",
)
