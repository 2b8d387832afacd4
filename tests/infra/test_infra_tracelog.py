"""kioku.infra.tracelog: a traceback kept in a private log, under a UTC header; a full log rotates."""

from __future__ import annotations

import re
import stat

from kioku.infra import paths
from kioku.infra.tracelog import UNWRITABLE, append_traceback


def _raise() -> ValueError:
    try:
        raise ValueError("boom in the store")
    except ValueError as exc:
        return exc


def test_the_traceback_is_appended_under_a_utc_header_in_a_private_file() -> None:
    where = append_traceback("cli.log", "kioku search", _raise())
    log = paths.logs_dir() / "cli.log"
    assert where == str(log)
    text = log.read_text(encoding="utf-8")
    assert re.match(r"--- \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ kioku search\nTraceback", text)
    assert "ValueError: boom in the store" in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_a_log_past_its_size_is_moved_aside_first() -> None:
    append_traceback("hooks.log", "Stop", _raise())
    append_traceback("hooks.log", "Stop", _raise(), rotate_bytes=10)
    folder = paths.logs_dir()
    assert (folder / "hooks.log.1").read_text(encoding="utf-8").count("--- ") == 1
    assert (folder / "hooks.log").read_text(encoding="utf-8").count("--- ") == 1


def test_an_unwritable_log_folder_is_said_not_raised() -> None:
    logs = paths.logs_dir()
    logs.parent.mkdir(parents=True, exist_ok=True)
    logs.write_text("a file where the folder should be", encoding="utf-8")
    assert append_traceback("cli.log", "kioku recall", _raise()) == UNWRITABLE
