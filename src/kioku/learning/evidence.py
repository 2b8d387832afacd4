"""The credit ledger: one row per (agent, lesson, session, turn) (stdlib SQLite).

``<state_dir>/learning/evidence.sqlite3``, table ``credits``: ``arm`` is ``given`` or
``held_back``, ``success`` 0/1. The primary key makes writing a turn's credit idempotent: a
retried job writes the same rows again and counts nothing twice. ``propensity`` is the chance
the lesson had of being given in that turn (``kioku.learning.select``; NULL in rows written
before it was recorded, which count with weight 1): rows with propensity 0 or 1 compare nothing
and get weight 0 in the uplift (they still count as turns given or not given). ``judge`` is the
family of the judge whose verdict the row holds (``kioku.evaluation.judge.calibration``; NULL:
exact). ``corrections`` holds the
user's later verdict on a turn (feedback in the next prompt); it wins over the evaluated
outcome whenever that turn's rows are written, before or after the correction arrived.
Writing a turn replaces its rows: a lesson no longer credited in it (the judge found it not
relevant when the turn was judged again, or the turn now credits nothing) loses its row.
``attributions`` holds what a model judge said of each lesson in play in a turn
(``kioku.learning.attribution``). Every write is one SQLite transaction (atomic; SQLite's own file locking serialises writers).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Iterator

from kioku.infra import fsutil, paths

_SCHEMA = """
CREATE TABLE IF NOT EXISTS credits (
    agent TEXT NOT NULL, lesson TEXT NOT NULL, scope TEXT NOT NULL, session TEXT NOT NULL,
    turn TEXT NOT NULL, arm TEXT NOT NULL CHECK (arm IN ('given', 'held_back')),
    success INTEGER NOT NULL, at REAL NOT NULL, propensity REAL, judge TEXT,
    PRIMARY KEY (agent, lesson, session, turn)
);
CREATE INDEX IF NOT EXISTS credits_turn ON credits (agent, session, turn);
CREATE TABLE IF NOT EXISTS corrections (
    agent TEXT NOT NULL, session TEXT NOT NULL, turn TEXT NOT NULL, success INTEGER NOT NULL,
    PRIMARY KEY (agent, session, turn)
);
CREATE TABLE IF NOT EXISTS attributions (
    agent TEXT NOT NULL, lesson TEXT NOT NULL, scope TEXT NOT NULL, session TEXT NOT NULL, turn TEXT NOT NULL,
    arm TEXT NOT NULL CHECK (arm IN ('given', 'held_back')), relevant INTEGER NOT NULL, followed INTEGER,
    effect TEXT NOT NULL CHECK (effect IN ('helped', 'hurt', 'none')), reason TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (agent, lesson, session, turn)
);
CREATE INDEX IF NOT EXISTS attributions_turn ON attributions (agent, session, turn);
"""


def db_path() -> Path:
    return paths.state_dir() / "learning" / "evidence.sqlite3"


def connect() -> sqlite3.Connection:
    """A connection to the credit ledger (schema made or brought up to date); close it after use."""
    return _connect()


def _connect() -> sqlite3.Connection:
    path = db_path()
    fsutil.ensure_private_dir(path.parent)
    if not path.exists():
        import os

        os.close(os.open(path, os.O_CREAT | os.O_RDWR, fsutil.FILE_MODE))
    conn = sqlite3.connect(str(path), timeout=60.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 60000")
    conn.executescript(_SCHEMA)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(credits)")}
    for name, kind in (("propensity", "REAL"), ("judge", "TEXT")):  # tables made before the column existed
        if name not in columns:
            conn.execute(f"ALTER TABLE credits ADD COLUMN {name} {kind}")
    return conn


def correction(agent: str, session: str, turn: str) -> bool | None:
    with closing(_connect()) as conn:
        row = conn.execute("SELECT success FROM corrections WHERE agent=? AND session=? AND turn=?",
                           (agent, session, turn)).fetchone()
    return None if row is None else bool(row[0])


def write_turn(agent: str, session: str, turn: str, given: dict[str, str], held_back: dict[str, str],
               success: bool, at: float, propensity: dict[str, float] | None = None,
               judge: str | None = None) -> dict[str, str]:
    """Record one turn's credit (a correction already stored for the turn overrides ``success``).

    ``propensity``: lesson -> its chance of being given in the turn (unknown lessons: NULL);
    ``judge``: the family of the judge of the verdict (``calibration.family``). The
    turn's rows of lessons in neither ``given`` nor ``held_back`` are removed (written by an
    earlier judgement of the turn); returns those lessons (id -> scope).
    """
    chance = propensity or {}
    with closing(_connect()) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT success FROM corrections WHERE agent=? AND session=? AND turn=?",
                               (agent, session, turn)).fetchone()
            value = int(row[0]) if row is not None else int(bool(success))
            rows = [(agent, i, s, session, turn, "given", value, at, _chance(chance, i), judge)
                    for i, s in given.items()]
            rows += [(agent, i, s, session, turn, "held_back", value, at, _chance(chance, i), judge)
                     for i, s in held_back.items() if i not in given]
            kept = {r[1] for r in rows}
            removed = {lesson: scope for lesson, scope in conn.execute(
                "SELECT lesson, scope FROM credits WHERE agent=? AND session=? AND turn=?", (agent, session, turn))
                if lesson not in kept}
            conn.executemany("DELETE FROM credits WHERE agent=? AND lesson=? AND session=? AND turn=?",
                             [(agent, lesson, session, turn) for lesson in removed])
            conn.executemany("INSERT OR REPLACE INTO credits (agent, lesson, scope, session, turn, arm, success,"
                             " at, propensity, judge) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return removed


def clear_turn(agent: str, session: str, turn: str) -> dict[str, str]:
    """Remove every credit row of a turn (judged again, it now credits nothing); returns the lessons."""
    return write_turn(agent, session, turn, {}, {}, False, 0.0)


def copy_lessons(pairs: list[tuple[str, str, str, str]]) -> int:
    """Copy the credit rows of lessons to new (agent, lesson) keys: ``(from_agent, from_lesson,
    to_agent, to_lesson)``. For a lesson whose id changed (its text was edited) and for a clone,
    which keep the evidence the lesson earned; rows the target already has are kept. The
    corrections of the turns go with them. Returns the rows copied."""
    copied = 0
    with closing(_connect()) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for from_agent, from_lesson, to_agent, to_lesson in pairs:
                before = conn.total_changes
                conn.execute("INSERT OR IGNORE INTO credits (agent, lesson, scope, session, turn, arm, success, at,"
                             " propensity, judge) SELECT ?, ?, scope, session, turn, arm, success, at, propensity,"
                             " judge FROM credits WHERE agent=? AND lesson=?", (to_agent, to_lesson, from_agent, from_lesson))
                copied += conn.total_changes - before
                if to_agent != from_agent:
                    conn.execute("INSERT OR IGNORE INTO corrections (agent, session, turn, success)"
                                 " SELECT ?, c.session, c.turn, c.success FROM corrections c WHERE c.agent=? AND"
                                 " EXISTS (SELECT 1 FROM credits r WHERE r.agent=? AND r.lesson=? AND"
                                 " r.session=c.session AND r.turn=c.turn)",
                                 (to_agent, from_agent, from_agent, from_lesson))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return copied


def _chance(chance: dict[str, float], lesson: str) -> float | None:
    value = chance.get(lesson)
    return min(1.0, max(0.0, float(value))) if isinstance(value, (int, float)) else None


def correct_turn(agent: str, session: str, turn: str, success: bool) -> dict[str, str]:
    """The user's verdict on a turn: stored, and applied to its rows. Returns the lessons touched."""
    with closing(_connect()) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT OR REPLACE INTO corrections VALUES (?, ?, ?, ?)",
                         (agent, session, turn, int(bool(success))))
            conn.execute("UPDATE credits SET success=? WHERE agent=? AND session=? AND turn=?",
                         (int(bool(success)), agent, session, turn))
            touched = dict(conn.execute("SELECT lesson, scope FROM credits WHERE agent=? AND session=? AND turn=?",
                                        (agent, session, turn)).fetchall())
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return touched


def last_given(agent: str, lessons: list[str]) -> dict[str, float]:
    """lesson -> the time of the latest credited turn it was given in (absent when never)."""
    if not lessons:
        return {}
    with closing(_connect()) as conn:
        out: dict[str, float] = {}
        for start in range(0, len(lessons), 500):
            chunk = lessons[start:start + 500]
            marks = ",".join("?" * len(chunk))
            out.update({lesson: float(at) for lesson, at in conn.execute(
                f"SELECT lesson, MAX(at) FROM credits WHERE agent=? AND arm='given' AND lesson IN ({marks})"
                " GROUP BY lesson", (agent, *chunk)) if at})
    return out


COMPARABLE = "(propensity IS NULL OR (propensity > 0 AND propensity < 1))"
# a row's inverse-probability weight: 1/p given, 1/(1-p) held back, 1 where p is unknown
WEIGHT = "CASE WHEN propensity IS NULL THEN 1.0 WHEN arm='given' THEN 1.0/propensity ELSE 1.0/(1.0-propensity) END"


def totals(agent: str, lessons: list[str]) -> dict[str, tuple[int, int, int, int]]:
    """lesson -> (turns_given, success_given, turns_held_back, success_held_back): every credited turn."""
    out = {lesson: (0, 0, 0, 0) for lesson in lessons}
    for lesson, arms in weighted_totals(agent, lessons).items():
        out[lesson] = (arms[0][0], arms[0][1], arms[1][0], arms[1][1])
    return out


def _sums(agent: str, lessons: list[str]) -> Iterator[tuple]:
    """(lesson, arm, judge family, turns, successes, Σw, Σw², Σw·success) per lesson, arm and judge;
    the weights only over comparable rows (``WEIGHT``, ``COMPARABLE``)."""
    with closing(_connect()) as conn:
        for i in range(0, len(lessons), 500):
            chunk = lessons[i:i + 500]
            marks = ",".join("?" * len(chunk))
            yield from conn.execute(
                f"SELECT lesson, arm, judge, COUNT(*), SUM(success), SUM(w), SUM(w*w), SUM(w*success) FROM"
                f" (SELECT lesson, arm, COALESCE(judge, 'exact') AS judge, success,"
                f" CASE WHEN {COMPARABLE} THEN {WEIGHT} ELSE 0.0 END AS w"
                f" FROM credits WHERE agent=? AND lesson IN ({marks})) GROUP BY lesson, arm, judge", (agent, *chunk))


def weighted_totals(agent: str, lessons: list[str]) -> dict[str, tuple[tuple, tuple]]:
    """lesson -> ((turns, successes, Σw, Σw², Σw·success) given, the same held back).

    Turns and successes count every credited turn; the sums only the comparable ones. The weight
    of a turn is the inverse of the chance of the arm it fell in: 1/p when given, 1/(1-p) when not
    (1 where the propensity is unknown), the inverse-probability weights of
    ``kioku.learning.uplift.weighted_uplift``.
    """
    empty = (0, 0, 0.0, 0.0, 0.0)
    out: dict[str, tuple[tuple, tuple]] = {lesson: (empty, empty) for lesson in lessons}
    for lesson, arm, _judge, n, s, sw, sw2, swy in _sums(agent, lessons):
        given, held = out[lesson]
        old = given if arm == "given" else held
        row = (old[0] + int(n), old[1] + int(s or 0), old[2] + float(sw or 0.0), old[3] + float(sw2 or 0.0),
               old[4] + float(swy or 0.0))
        out[lesson] = (row, held) if arm == "given" else (given, row)
    return out


def judges(agent: str, lessons: list[str]) -> dict[str, dict[str, float]]:
    """lesson -> judge family -> the summed weight of its comparable rows (both arms), the mix of
    judges behind the lesson's uplift (``kioku.evaluation.judge.calibration.mixed``)."""
    out: dict[str, dict[str, float]] = {lesson: {} for lesson in lessons}
    for lesson, _arm, judge, _n, _s, sw, _sw2, _swy in _sums(agent, lessons):
        if sw:
            out[lesson][str(judge)] = out[lesson].get(str(judge), 0.0) + float(sw)
    return out


def credited_turns(agent: str, session: str) -> set[str]:
    with closing(_connect()) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT turn FROM credits WHERE agent=? AND session=?",
                                           (agent, session))}
