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
