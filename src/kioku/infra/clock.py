"""The one clock: UTC ISO-8601 stamps at second (or millisecond) precision (standard library only).

- ``iso_z`` / ``iso_offset``: an epoch (now by default) as ``…T06:17:09Z`` or ``…T06:17:09+00:00``;
  both spellings are in stored records, so each writer keeps the one its readers expect.
- ``utc_day`` / ``utc_minute``: ``2026-12-07`` and ``2026-12-07 06:17``, for days counted and times shown.
- ``compact_z``: ``20261207T061709Z``, for names of files set aside.
- ``stamp``: one instant as (``iso_offset`` text, epoch seconds).
- ``now_iso`` / ``today`` / ``current_date``: the memory files' clock; ``KIOKU_NOW`` (ISO-8601) pins it
  for reproducible demos and for tests of date-dependent behaviour (archiving old entries).
Only ``os`` and ``time`` are imported up front: ``datetime`` and ``typing`` cost the hooks milliseconds.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs the hooks' fast path an import
    from datetime import date, datetime


def _gmtime(epoch: float | None) -> time.struct_time:
    return time.gmtime(time.time() if epoch is None else epoch)


def iso_z(epoch: float | None = None) -> str:
    """``2026-12-07T06:17:09Z`` for ``epoch`` (now when None)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", _gmtime(epoch))


def iso_offset(epoch: float | None = None) -> str:
    """``2026-12-07T06:17:09+00:00`` for ``epoch`` (now when None), as ``datetime.isoformat`` writes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", _gmtime(epoch))


def utc_day(epoch: float | None = None) -> str:
    """``2026-12-07``: the UTC date of ``epoch`` (now when None)."""
    return time.strftime("%Y-%m-%d", _gmtime(epoch))


def utc_minute(epoch: float | None = None) -> str:
    """``2026-12-07 06:17``: the UTC minute of ``epoch`` (now when None), for people to read."""
    return time.strftime("%Y-%m-%d %H:%M", _gmtime(epoch))


def compact_z(epoch: float | None = None) -> str:
    """``20261207T061709Z`` for ``epoch`` (now when None): a stamp fit for a file name."""
    return time.strftime("%Y%m%dT%H%M%SZ", _gmtime(epoch))


def stamp() -> tuple[str, float]:
    """(``iso_offset`` text, epoch seconds) of one instant."""
    epoch = time.time()
    return iso_offset(epoch), epoch


def epoch_day(epoch: float | None = None) -> int:
    """Whole days since 1970-01-01 UTC."""
    return int((time.time() if epoch is None else epoch) // 86400)


def pinned_now() -> datetime:
    """Now (aware, UTC), or the instant ``KIOKU_NOW`` names when it is set and readable."""
    import datetime as _dt

    pinned = os.environ.get("KIOKU_NOW")
    if pinned:
        try:
            value = _dt.datetime.fromisoformat(pinned.replace("Z", "+00:00"))
            value = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
            return value.astimezone(_dt.timezone.utc)
        except ValueError:
            pass
    return _dt.datetime.now(_dt.timezone.utc)


def now_iso(millis: bool = False) -> str:
    """Now as ``…T06:17:09Z`` (``…T06:17:09.123Z`` with ``millis``), honouring ``KIOKU_NOW``."""
    if os.environ.get("KIOKU_NOW"):
        now = pinned_now()
        if millis:
            return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
        return now.strftime("%Y-%m-%dT%H:%M:%SZ")
    epoch = time.time()
    if not millis:
        return iso_z(epoch)
    seconds = int(epoch)
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds)) + f"{int((epoch - seconds) * 1000):03d}Z"


def today() -> str:
    """Today's UTC date as ``2026-12-07``, honouring ``KIOKU_NOW``."""
    if os.environ.get("KIOKU_NOW"):
        return pinned_now().strftime("%Y-%m-%d")
    return time.strftime("%Y-%m-%d", time.gmtime())


def current_date() -> date:
    """Today's UTC date as a ``datetime.date``, honouring ``KIOKU_NOW``."""
    return pinned_now().date()
