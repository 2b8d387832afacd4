"""Secrets in plain words (English and Japanese), lookalike characters, test card numbers and
hex keys, measured on a labelled set the project wrote (tests/text/secrets/data/plain_secrets*.json)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from kioku.text.secrets import contains_secret, redact, redact_lines

DATA: dict[str, list[str]] = {"secret": [], "ordinary": []}
for _name in ("plain_secrets.json", "plain_secrets_holdout.json", "plain_secrets_holdout_2.json"):  # tuning, holdouts
    _data = json.loads((Path(__file__).parent / "data" / _name).read_text(encoding="utf-8"))
    for _key in DATA:
        DATA[_key].extend(_data[_key])


def test_every_plain_language_secret_is_caught():
    missed = [text for text in DATA["secret"] if not contains_secret(text)]
    assert missed == []
    assert len(DATA["secret"]) >= 40


def test_ordinary_text_about_passwords_is_not_flagged():
    flagged = [text for text in DATA["ordinary"] if contains_secret(text)]
    assert flagged == []
    assert len(DATA["ordinary"]) >= 60


def test_every_plain_language_secret_is_redacted_among_other_lines():
    """Recall and ``doctor`` scan a file's lines joined (``redact_lines``): a value that must end
    its clause ("pass: …", "my pw is …") is still found where a line break, not the text, ends it."""
    ordinary = [text for text in DATA["ordinary"] if "\n" not in text]
    for n, secret in enumerate(text for text in DATA["secret"] if "\n" not in text):
        lines = [ordinary[n % len(ordinary)], secret, ordinary[(n + 1) % len(ordinary)]]
        assert redact_lines(lines) == [redact(line) for line in lines], secret
        assert redact_lines(lines)[1] != secret, secret


def test_the_value_is_refused_not_only_the_phrase():
    assert "swordfish" not in redact("my password is swordfish")
    assert "4821" not in redact("the door PIN is 4821")
    assert "hunter22" not in redact("パスワードは hunter22 です")
    passphrase = redact("パスフレーズは Correct Horse Battery Staple です")
    assert passphrase == "パスフレーズは [REDACTED:password] です"  # the whole phrase, not its first word


def test_full_width_key_is_caught_and_redacted_in_place():
    text = "key ｓｋ＿ｌｉｖｅ＿ａ１ｂ２ｃ３ｄ４ｅ５ｆ６ｇ７ｈ８ｉ９ｊ０ end"
    assert redact(text) == "key [REDACTED:stripe_key] end"


def test_random_hex_api_keys_are_always_caught():
    rng = random.Random(2026)
    missed = 0
    for _ in range(2000):
        key = "".join(rng.choice("0123456789abcdef") for _ in range(32))
        missed += not contains_secret(f"api_key={key}")
    assert missed == 0
