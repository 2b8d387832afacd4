"""Tokenizer: English words (stopwords, light stemming) and Japanese (character bigrams)."""

from __future__ import annotations

from kioku.retrieval.text import stem, tokenize, word_tokens


def test_english_lowercase_stopwords_and_stems() -> None:
    assert tokenize("The Dogs were RUNNING to the parks!") == ["dog", "run", "park"]
    assert tokenize("Caroline's painting") == ["caroline", "paint"]
    assert tokenize("What did she say?") == ["say"]


def test_stemmer_is_light_and_consistent() -> None:
    assert stem("stories") == "story"
    assert stem("stopped") == "stop"
    assert stem("classes") == "class"
    assert stem("is") == "is" and stem("bus") == "bus"
    # inflections of one word meet on the same token, so BM25 matches them
    assert stem("painted") == stem("painting") == stem("paints") == "paint"


def test_japanese_bigrams_and_single_characters() -> None:
    assert tokenize("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert tokenize("猫") == ["猫"]
    tokens = tokenize("東京タワーに行きました")
    assert "東京" in tokens and "タワ" in tokens
    assert "まし" not in tokens  # inflection glue dropped like a stopword


def test_mixed_scripts_and_full_width_normalisation() -> None:
    assert tokenize("ＰＹＴＥＳＴを使う") == ["pytest", "を使", "使う"]
    assert tokenize("Run pytest、テストを書く") == ["run", "pytest", "テス", "スト", "トを", "を書", "書く"]


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("?!… ---") == []


def test_baseline_word_tokens_do_not_stem() -> None:
    assert word_tokens("The dogs' painting, 2023!") == ["dogs", "painting", "2023"]


def test_ascii_words_match_the_word_pattern():
    """The regex-free ASCII split finds exactly the words the pattern finds (the pattern still
    serves non-ASCII text)."""
    import random
    import re

    from kioku.retrieval.text import _ascii_words

    pattern = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
    rng = random.Random(4)
    alphabet = "ab9Z '_-.\"\t\n\x1c\x7f'@"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        assert _ascii_words(text) == pattern.findall(text), repr(text)


def test_names_without_regular_expressions_match_the_patterns():
    import random
    import re
    import unicodedata

    from kioku.infra.names import normalise_lesson, safe_name

    rng = random.Random(6)
    alphabet = "aZ09._-/ \t\n\u3000\u00a0é日\x1c\x85!。！"
    for _ in range(20000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randrange(14)))
        assert safe_name(name) == (re.sub(r"[^A-Za-z0-9._-]+", "_", name).replace("..", "_").strip("._")[:120]
                                   or "_")
        folded = unicodedata.normalize("NFKC", name).casefold()
        assert normalise_lesson(name) == re.sub(r"\s+", " ", folded).strip().rstrip(" .!。！")
