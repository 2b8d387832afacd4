"""No source module is longer than 500 lines: small modules, one job each."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "kioku"
LIMIT = 500


def test_no_source_module_is_longer_than_500_lines() -> None:
    long = {str(p.relative_to(SRC)): n for p in sorted(SRC.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert not long, f"modules over {LIMIT} lines: {long}"


def test_the_size_check_sees_every_module() -> None:
    assert len(list(SRC.rglob("*.py"))) > 100  # the path is right: the package is there
