"""Saving refuses invalid UTF-8, Windows device names and credentials as topic names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.infra.errors import SecretRejected, UsageError
from kioku.memory import api
from kioku.memory.guard import MemoryRejected

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_invalid_utf8_is_refused_at_save(project):
    with pytest.raises(MemoryRejected, match="not valid UTF-8"):
        api.remember("we use bun \udce2\udc86")
    with pytest.raises(MemoryRejected, match="not valid UTF-8"):
        api.remember("we use bun \ufffd")
    # From the command line: the bytes of "→" cut in the middle
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "kioku", "remember", b"we use bun \xe2\x86"],
                         env=env, capture_output=True)
    assert out.returncode != 0 and b"not valid UTF-8" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (project / ".agents" / "memory").exists() or not any((project / ".agents" / "memory").glob("*.md"))


@pytest.mark.parametrize("name", ["con", "NUL", "aux", "com1", "LPT1", "con.md", "Prn"])
def test_windows_reserved_topic_names_are_refused(project, name):
    with pytest.raises(UsageError, match="reserved device name"):
        api.remember("we use bun for installs", topic=name)


def test_credential_as_topic_name_is_refused(project):
    key = "AKIA" + "Q7RZ2M9PL4KT8WZ1"
    with pytest.raises(SecretRejected) as info:
        api.remember("we use bun for installs", topic=key)
    assert key not in str(info.value)
    assert not any(p.name.lower().startswith("akia") for p in project.rglob("*"))


def test_terminal_escapes_are_not_stored(project):
    api.remember("note \x1b[31mRED\x1b[0m \x1b]8;;http://evil.example/\x07click\x1b]8;;\x07 done", type="project")
    stored = "".join(p.read_text(encoding="utf-8") for p in (project / ".agents" / "memory").glob("*.md"))
    assert "\x1b" not in stored and "\x07" not in stored and "note RED click done" in stored
