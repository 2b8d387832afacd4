"""Dates named in queries and the closeness of unit dates to them."""

from __future__ import annotations

import datetime as dt

import pytest

from kioku.retrieval.dates import DateSpec, closeness, parse_date, parse_query_dates
from kioku.retrieval.hybrid import HybridIndex, Unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What movie did Joanna watch on 1 May, 2022?", [DateSpec(2022, 5, 1)]),
        ("Who did Maria have dinner with on May 3, 2023?", [DateSpec(2023, 5, 3)]),
        ("on 8th December, 2023", [DateSpec(2023, 12, 8)]),
        ("shared on December 1,2023", [DateSpec(2023, 12, 1)]),
        ("What happened in December 2023?", [DateSpec(2023, 12, None)]),
        ("Which spot did Joanna visit in May?", [DateSpec(None, 5, None)]),
        ("What charity event in 2024?", [DateSpec(2024, None, None)]),
        ("What may happen next?", []),
        ("Meet at 2023-05-08 please", [DateSpec(2023, 5, 8)]),
        ("on 31 February, 2023", [DateSpec(2023, 2, None)]),  # impossible day: month and year are kept
    ],
)
def test_parse_query_dates(text: str, expected: list[DateSpec]) -> None:
    assert parse_query_dates(text) == expected


def test_parse_date_of_session_timestamps() -> None:
    assert parse_date("1:56 pm on 8 May, 2023") == dt.date(2023, 5, 8)
    assert parse_date("10:37 am on 27 June, 2023") == dt.date(2023, 6, 27)
    assert parse_date("2024-01-02T10:00:00Z") == dt.date(2024, 1, 2)
    assert parse_date("sometime in May") is None and parse_date("") is None


def test_closeness_scales() -> None:
    day = dt.date(2023, 5, 8)
    assert closeness([DateSpec(2023, 5, 8)], day) == 1.0
    week = closeness([DateSpec(2023, 5, 15)], day)
    assert 0.4 < week < 0.6
    assert closeness([DateSpec(2023, 5, None)], day) == 1.0
    assert closeness([DateSpec(2023, 6, None)], day) == 0.5
    assert closeness([DateSpec(2023, 9, None)], day) == 0.0
    assert closeness([DateSpec(None, 5, None)], dt.date(2021, 5, 30)) == 1.0
    assert closeness([DateSpec(2024, None, None)], day) == 0.0
    assert closeness([DateSpec(2024, None, None), DateSpec(2023, 5, 8)], day) == 1.0
    assert closeness([], day) == 0.0 and closeness([DateSpec(2023, 5, 8)], None) == 0.0


def test_hybrid_prefers_units_from_the_named_date() -> None:
    units = [
        Unit("D1:1", "I watched a great movie yesterday.", date="1:00 pm on 1 May, 2022"),
        Unit("D2:1", "I watched a great movie last night.", date="2022-06-09"),
    ]
    index = HybridIndex(units, dense=False)
    assert [i for i, _ in index.search("What movie did Jo watch on 1 May, 2022?", 2)][0] == "D1:1"
    assert [i for i, _ in index.search("What movie did Jo watch on June 9, 2022?", 2)][0] == "D2:1"
    no_date = index.components("What movie did Jo watch?")
    assert no_date.date_match is None
