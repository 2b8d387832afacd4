"""Dates named in queries, and how close a unit's date is to them (stdlib only).

Contract::

    parse_query_dates(text) -> list[DateSpec]      # "on 1 May, 2022", "May 3, 2023", "in June", "in 2024"
    parse_date(text) -> datetime.date | None       # first full date, e.g. "1:56 pm on 8 May, 2023", "2023-05-08"
    closeness(specs, date) -> float in [0, 1]      # best match of any spec

Why: about one question in eight names when something was said ("What movie did Joanna watch
on 1 May, 2022?"); the unit's own words rarely contain that date, but its session date does.
Full dates score by distance in days (1 on the day, ~0.5 a week away), month-year specs 1
in that month and 0.5 in an adjacent one, month-only 1 in that month of any year, year-only
1 in that year. Specs that match every unit add a constant and so do not change a ranking.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass

MONTHS = {
    name: i
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s*{_YEAR})?\b", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!:)(?:,?\s*{_YEAR})?", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)
_MONTH_ONLY = re.compile(rf"\b(?:in|during|of|since|until|before|after|early|late|mid)\s+{_MONTH}\b", re.I)
_YEAR_ONLY = re.compile(rf"\b{_YEAR}\b")
_ISO = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)")
_SCALE_DAYS = 10.0


@dataclass(frozen=True)
class DateSpec:
    year: int | None = None
    month: int | None = None
    day: int | None = None


def _valid(year: int | None, month: int, day: int | None) -> bool:
    try:
        _dt.date(year or 2000, month, day or 1)
        return True
    except ValueError:
        return False


def parse_query_dates(text: str) -> list[DateSpec]:
    specs: list[DateSpec] = []
    spans: list[tuple[int, int]] = []

    def add(match: re.Match, year: str | None, month: str, day: str | None) -> None:
        y = int(year) if year else None
        m = MONTHS[month.lower()]
        d = int(day) if day else None
        if _valid(y, m, d):
            specs.append(DateSpec(y, m, d))
            spans.append(match.span())

    def free(match: re.Match) -> bool:
        return not any(s <= match.start() < e or s < match.end() <= e for s, e in spans)

    for m in _ISO.finditer(text):
        if _valid(int(m.group(1)), int(m.group(2)), int(m.group(3))):
            specs.append(DateSpec(int(m.group(1)), int(m.group(2)), int(m.group(3))))
            spans.append(m.span())
    for m in _DAY_MONTH.finditer(text):
        if free(m):
            add(m, m.group(3), m.group(2), m.group(1))
    for m in _MONTH_DAY.finditer(text):
        if free(m):
            add(m, m.group(3), m.group(1), m.group(2))
    for m in _MONTH_YEAR.finditer(text):
        if free(m):
            add(m, m.group(2), m.group(1), None)
    for m in _MONTH_ONLY.finditer(text):
        if free(m):
            add(m, None, m.group(1), None)
    for m in _YEAR_ONLY.finditer(text):
        if free(m):
            specs.append(DateSpec(int(m.group(1)), None, None))
            spans.append(m.span())
    return specs


def parse_date(text: str) -> _dt.date | None:
    """The first full date in ``text`` (unit / session timestamps), else None."""
    if not text:
        return None
    for spec in parse_query_dates(text):
        if spec.year and spec.month and spec.day:
            return _dt.date(spec.year, spec.month, spec.day)
    return None


def closeness(specs: list[DateSpec], date: _dt.date | None) -> float:
    if not specs or date is None:
        return 0.0
    best = 0.0
    for s in specs:
        if s.year and s.month and s.day:
            delta = abs((date - _dt.date(s.year, s.month, s.day)).days)
            value = math.exp(-delta / _SCALE_DAYS)
        elif s.month and s.day:  # "on May 3": nearest such day in the unit's year
            delta = abs((date - _dt.date(date.year, s.month, min(s.day, 28 if s.month == 2 else s.day))).days)
            value = math.exp(-delta / _SCALE_DAYS)
        elif s.year and s.month:
            months = abs((date.year * 12 + date.month) - (s.year * 12 + s.month))
            value = 1.0 if months == 0 else 0.5 if months == 1 else 0.0
        elif s.month:
            value = 1.0 if date.month == s.month else 0.0
        else:
            value = 1.0 if date.year == s.year else 0.0
        best = max(best, value)
    return best
