"""kioku.infra.lazyre: patterns compiled on first use, and re imported only then."""

from __future__ import annotations

import re
import subprocess
import sys

from kioku.infra import lazyre


def test_flag_values_are_res():
    assert (lazyre.IGNORECASE, lazyre.VERBOSE) == (int(re.IGNORECASE), int(re.VERBOSE))


def test_a_pattern_behaves_like_the_compiled_one():
    lazy = lazyre.LazyPattern(r"(?P<w>ab+) c  # comment", lazyre.IGNORECASE | lazyre.VERBOSE)
    assert lazy.search("xx ABBc").group("w") == "ABB"
    assert lazy.compiled() is lazy.compiled()


def test_nothing_is_compiled_before_use():
    code = ("import sys; from kioku.text import secrets; secrets.ensure_storable('main'); "
            "print('re' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
