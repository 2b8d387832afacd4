"""kioku.infra.clock: the one source of UTC stamps, and no module keeps a clock of its own."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from kioku.infra import clock

SRC = Path(__file__).resolve().parents[2] / "src" / "kioku"
EPOCH = 1796625429.75  # 2026-12-07T06:37:09.75Z


def test_iso_z_and_iso_offset_spell_an_epoch_as_datetime_does() -> None:
    as_datetime = datetime.fromtimestamp(EPOCH, timezone.utc).isoformat(timespec="seconds")
    assert clock.iso_offset(EPOCH) == as_datetime == "2026-12-07T06:37:09+00:00"
    assert clock.iso_z(EPOCH) == as_datetime.replace("+00:00", "Z")


def test_stamp_text_and_epoch_are_one_instant() -> None:
    text, epoch = clock.stamp()
    assert text == clock.iso_offset(epoch)


def test_days_minutes_and_file_stamps_are_utc() -> None:
    assert (clock.utc_day(EPOCH), clock.utc_minute(EPOCH), clock.compact_z(EPOCH)) == \
        ("2026-12-07", "2026-12-07 06:37", "20261207T063709Z")


def test_epoch_day_counts_whole_days() -> None:
    assert clock.epoch_day(86400 * 3 - 1) == 2
    assert clock.epoch_day(86400 * 3) == 3


def test_kioku_now_pins_the_memory_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NOW", "2026-01-02T03:04:05.678Z")
    assert clock.now_iso() == "2026-01-02T03:04:05Z"
    assert clock.now_iso(millis=True) == "2026-01-02T03:04:05.678Z"
    assert clock.today() == "2026-01-02"
    assert str(clock.current_date()) == "2026-01-02"


def test_an_unreadable_kioku_now_falls_back_to_the_real_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NOW", "not a time")
    assert clock.today() == datetime.now(timezone.utc).strftime("%Y-%m-%d")


def test_without_a_pin_now_iso_is_the_current_second(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KIOKU_NOW", raising=False)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", clock.now_iso(millis=True))
    before = datetime.now(timezone.utc).replace(microsecond=0)
    stamp = datetime.fromisoformat(clock.now_iso().replace("Z", "+00:00"))
    assert 0 <= (stamp - before).total_seconds() <= 2


def test_no_module_formats_an_iso_stamp_of_its_own() -> None:
    pattern = re.compile(r"""strftime\(["']%Y|isoformat\(timespec=|datetime\.utcnow\(""")
    offenders = [f"{path.relative_to(SRC)}:{n}" for path in SRC.rglob("*.py") if path.name != "clock.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if pattern.search(line)]
    assert offenders == []
