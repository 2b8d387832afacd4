"""The hooks' SHA-256 gives hashlib's digests without loading hashlib."""

import hashlib
import subprocess
import sys

import pytest

from kioku.infra.sha import sha256, sha256_hex


@pytest.mark.parametrize("text", ["", "refactor the parser", "覚えておいて: bun を使う", "x" * 100_000])
def test_digests_match_hashlib(text):
    data = text.encode("utf-8")
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha256_hex(text) == hashlib.sha256(data).hexdigest()
    assert sha256(data).digest() == hashlib.sha256(data).digest()


def test_incremental_update_matches():
    h = sha256(b"a")
    h.update(b"bc")
    assert h.hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_hashing_does_not_import_hashlib():
    code = ("import sys\nfrom kioku.infra.sha import sha256_hex\nsha256_hex('x')\n"
            "print('hashlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
