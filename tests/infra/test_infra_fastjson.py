"""kioku.infra.fastjson gives exactly what json gives, without importing the json package."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.infra import fastjson

DOCUMENTS = [
    '{"a": 1}', ' \t\r\n[1, 2.5, -0.0, 1e400, "x\\u00e9\\ud83d\\ude00", null, true, false, {"b": []}]\n',
    '"text"', "3", "-12.5e-3", "NaN", "-Infinity", "{}", "[]", '{"k":"v","k":"w"}',
    '{"session_id": "abc", "prompt": "日本語の\\n改行"}', '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
]
BROKEN = ["", " ", "{", "{} x", "[1,]", "tru", '{"a":1}}', '"\x01"', "{'a': 1}", "[1 2]", '"\\x"', "01",
          "\ufeff{}", "[", '{"a"', "nul", "1 2"]


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randint(-10**20, 10**20)
    if kind == 3:
        return rng.choice([0.1, -2.5, 1e-300, 3.14159, float("inf"), 1e22, -0.0])
    if kind == 4:
        return "".join(rng.choice("ab \"\\\n\t\u00e9\u2028日\U0001f600\x00/") for _ in range(rng.randrange(8)))
    if kind in (5, 6):
        return {str(_random_value(rng, 4)): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_loads_matches_json(text):
    assert repr(fastjson.loads(text)) == repr(json.loads(text))


@pytest.mark.parametrize("text", BROKEN)
def test_broken_documents_raise_jsons_own_error(text):
    with pytest.raises(json.JSONDecodeError) as ours:
        fastjson.loads(text)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    assert str(ours.value) == str(theirs.value)


def test_random_values_round_trip_like_json():
    rng = random.Random(11)
    for _ in range(3000):
        value = _random_value(rng)
        for ensure_ascii in (True, False):
            for sort_keys in (True, False):
                expected = json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
                assert fastjson.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys) == expected
                assert repr(fastjson.loads(expected)) == repr(json.loads(expected))


def test_dumps_refuses_what_json_refuses():
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        fastjson.dumps({"a": object()})
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        fastjson.dumps(loop)


def test_neither_json_nor_re_is_imported():
    code = ("import sys; from kioku.infra import fastjson; "
            "fastjson.loads(fastjson.dumps({'a': [1, 2.5, 'é', None]}, ensure_ascii=False, sort_keys=True)); "
            "print(sorted({'json', 're'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_document_cut_off_raises_jsons_error_in_a_process_without_json():
    """In a fresh process (json not imported, as in a hook) the C scanner cannot raise json's
    error for a document cut off inside a value; loads must still raise it, not SystemError."""
    code = ("import sys; from kioku.infra import fastjson\n"
            "for text in ['{', '{\"a\"', '{\"a\": 1,', '{\"a\": \"b', '[1, {\"x\": [']:\n"
            "    try:\n"
            "        fastjson.loads(text)\n"
            "    except ValueError as exc:\n"
            "        print(type(exc).__name__)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["JSONDecodeError"] * 5
