"""kioku.evaluation.feedback: what the next prompt says about a turn (polarity and classification),
read from the one phrase table (kioku.evaluation.feedback_phrases)."""

from __future__ import annotations

import pytest
from timing import growth

from kioku.evaluation.feedback import NEGATIVE, NONE, POSITIVE, classify, feedback_polarity

POLARITY: list[tuple[str, int]] = [
    ("thanks, that worked", 1),
    ("perfect", 1),
    ("Great job!", 1),
    ("LGTM", 1),
    ("looks good to me, ship it", 1),
    ("not bad", 1),
    ("no problem, carry on", 1),
    ("it doesn't fail anymore, nice", 1),
    ("works now 👍", 1),
    ("ありがとう", 1),
    ("完璧です", 1),
    ("うまくいった！", 1),
    ("助かった", 1),
    ("問題ないです", 1),
    ("間違いない、それで行こう", 1),
    ("that's wrong", -1),
    ("this doesn't work", -1),
    ("still failing", -1),
    ("no, that's not what I asked", -1),
    ("Nope.", -1),
    ("thanks, but it still fails", -1),
    ("you broke the build", -1),
    ("same error as before", -1),
    ("違う", -1),
    ("動かない", -1),
    ("間違っている", -1),
    ("だめ", -1),
    ("まだエラーが出る", -1),
    ("ありがとう、でもまだ動かない", -1),
    ("うまくいかない", -1),
    ("now add a README section", 0),
    ("run the tests again", 0),
    ("what does this function do?", 0),
    ("次はREADMEを書いて", 0),
    ("", 0),
    ("ok", 0),
    ("now fix the failing test", 0),
    ("correct the typo in README", 0),
    ("add error handling for failed requests", 0),
    ("the login is broken when the password is empty, please fix it", 0),
    ("great, now add a README section", 1),
    ("Thanks! Now make the button blue", 1),
    ("that's correct", 1),
    ("Perfect, thanks!", 1),
    ("wrong file, I meant src/app.py", -1),
    ("still broken", -1),
    ("why is it still failing?", -1),
    ("is it broken?", 0),
    ("does this work?", 0),
    ("yes", 0),
    ("no", 0),
    ("うまくいきました、ありがとうございます", 1),
    ("いいね！次はテストを書いて", 1),
    ("まだ動かないです", -1),
    ("全然だめ", -1),
    ("エラーが出なくなった、ありがとう", 1),
]


@pytest.mark.parametrize("text,expected", POLARITY)
def test_feedback_polarity(text: str, expected: int) -> None:
    assert feedback_polarity(text) == expected




def test_polarity_case_count() -> None:
    assert len(POLARITY) >= 30


@pytest.mark.parametrize("text,expected", POLARITY)
def test_feedback_polarity(text: str, expected: int) -> None:
    assert feedback_polarity(text) == expected


@pytest.mark.parametrize("unit", ["remember ", "thanks ", "still failing ", "ありがとう", "動かない", "not bad ",
                                  "```", "why? "])
def test_hostile_repetition_stays_linear(unit: str) -> None:
    """Polarity reads the first 600 characters only, and classification a bounded head: a 50 KB
    prompt costs what a short one does."""
    for run in (feedback_polarity, classify):
        ratio = growth(run, lambda size: unit * (size // len(unit)), 12_500)
        assert ratio < 10, ratio


def _table(phrases: tuple[str, str]) -> list[str]:
    return [p for half in phrases for p in half.split("|") if p]


# A phrase alone that reads as a question ("is fixed now" could be "is (it) fixed now"), so neutral.
_READS_AS_A_QUESTION = {"is fixed now"}


@pytest.mark.parametrize("table,expected", [("POS_OVERRIDE_PHRASES", 1), ("POS_STRONG_PHRASES", 1),
                                            ("POS_WEAK_PHRASES", 1), ("NEG_STRONG_PHRASES", -1),
                                            ("NEG_WEAK_PHRASES", -1), ("WRONG_PHRASES", -1)])
def test_every_phrase_of_the_table_means_the_same_to_polarity_and_classification(table: str, expected: int) -> None:
    """The one table: a phrase alone is the feedback its table says, for both readers."""
    from kioku.evaluation import feedback_phrases as ph

    label = {1: POSITIVE, -1: NEGATIVE}[expected]
    wrong = [(p, feedback_polarity(p), classify(p)) for p in _table(getattr(ph, table))
             if p not in _READS_AS_A_QUESTION and (feedback_polarity(p) != expected or classify(p) != label)]
    assert wrong == []


@pytest.mark.parametrize("text", ["try again", "Try it again", "retry", "ok, do it again", "もう一度", "再試行して"])
def test_a_retry_request_is_neither_praise_nor_a_complaint(text: str) -> None:
    """"try again" was a strong complaint to the polarity and no feedback to the classification;
    both now read it as a retry."""
    assert feedback_polarity(text) == 0 and classify(text) == NONE


@pytest.mark.parametrize("text,expected", [
    ("nope, try again", NEGATIVE),
    ("this is really helpful! can you add one more test?", POSITIVE),
    ("works!", POSITIVE),
    ("lovely, thanks", POSITIVE),
    ("add 🎉 emojis to the release notes", NONE),
    ("🎉", POSITIVE),
    ("feels implausible?", NEGATIVE),
    ("you forgot to commit", NEGATIVE),
    ("does not work", NEGATIVE),
    ("can't complain", POSITIVE),
    ("it is not right", NEGATIVE),
])
def test_phrases_classification_knew_and_polarity_did_not_now_agree(text: str, expected: str) -> None:
    assert classify(text) == expected
    assert feedback_polarity(text) == {POSITIVE: 1, NEGATIVE: -1, NONE: 0}[expected]


def test_a_pasted_failing_log_is_negative_to_classification() -> None:
    log = "$ pytest -q\nE   AssertionError: expected 3\nFAILED tests/test_x.py::test_y - AssertionError"
    assert classify(log) == NEGATIVE
