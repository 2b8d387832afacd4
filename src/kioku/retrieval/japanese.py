"""Which queries and texts are Japanese, and which (query, text) pairs take the Japanese cut-off.

MiniLM, the offline embedding model, reads English only: two Japanese texts get a cosine around
0.5 whatever they say, so relevance between them is held to a higher bar (``min_relevance_cjk``).
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3041-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def is_cjk_query(query: str) -> bool:
    """True when most characters of ``query`` are Japanese (or Chinese) script."""
    return len(_CJK.findall(query)) * 2 > len(query.strip())


def has_cjk(text: str) -> bool:
    """True when ``text`` holds any Japanese (or Chinese) character."""
    return _CJK.search(text) is not None


def needs_cjk_bar(query_is_cjk: bool, query_has_cjk: bool, text_has_cjk: bool, shares_english_word: bool) -> bool:
    """Whether a (query, text) pair is held to the Japanese cut-off: the query is mostly Japanese,
    or both hold Japanese and the text holds none of the query's English words. A short mixed
    question ("CIは？", "Lokiの使い方") and any Japanese text get a cosine of 0.3-0.6 whatever
    they say, so there the cosine cannot tell; the English word the question names can
    ("ログはLokiに送る"). Its cosine to an English text is the usual one."""
    return query_is_cjk or (query_has_cjk and text_has_cjk and not shares_english_word)
