"""The credit ledger: one row per (agent, lesson, session, turn) (stdlib SQLite).

``<state_dir>/learning/evidence.sqlite3``, table ``credits``: ``arm`` is ``given`` or
``held_back``, ``success`` 0/1. The primary key makes writing a turn's credit idempotent: a
retried job writes the same rows again and counts nothing twice. ``corrections`` holds the
user's later verdict on a turn (feedback in the next prompt); it wins over the evaluated
outcome whenever that turn's rows are written, before or after the correction arrived.
Every write is one SQLite transaction (atomic; SQLite's own file locking serialises writers).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from kioku.core import fsutil, paths

_SCHEMA = """
CREATE TABLE IF NOT EXISTS credits (
    agent TEXT NOT NULL, lesson TEXT NOT NULL, scope TEXT NOT NULL, session TEXT NOT NULL,
    turn TEXT NOT NULL, arm TEXT NOT NULL CHECK (arm IN ('given', 'held_back')),
    success INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (agent, lesson, session, turn)
);
CREATE INDEX IF NOT EXISTS credits_turn ON credits (agent, session, turn);
CREATE TABLE IF NOT EXISTS corrections (
    agent TEXT NOT NULL, session TEXT NOT NULL, turn TEXT NOT NULL, success INTEGER NOT NULL,
    PRIMARY KEY (agent, session, turn)
);
"""


def db_path() -> Path:
    return paths.state_dir() / "learning" / "evidence.sqlite3"


def _connect() -> sqlite3.Connection:
    path = db_path()
    fsutil.ensure_private_dir(path.parent)
    if not path.exists():
        import os

        os.close(os.open(path, os.O_CREAT | os.O_RDWR, fsutil.FILE_MODE))
    conn = sqlite3.connect(str(path), timeout=60.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 60000")
    conn.executescript(_SCHEMA)
    return conn


def correction(agent: str, session: str, turn: str) -> bool | None:
    with closing(_connect()) as conn:
        row = conn.execute("SELECT success FROM corrections WHERE agent=? AND session=? AND turn=?",
                           (agent, session, turn)).fetchone()
    return None if row is None else bool(row[0])


def write_turn(agent: str, session: str, turn: str, given: dict[str, str], held_back: dict[str, str],
               success: bool, at: float) -> None:
    """Record one turn's credit (a correction already stored for the turn overrides ``success``)."""
    with closing(_connect()) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT success FROM corrections WHERE agent=? AND session=? AND turn=?",
                               (agent, session, turn)).fetchone()
            value = int(row[0]) if row is not None else int(bool(success))
            rows = [(agent, i, s, session, turn, "given", value, at) for i, s in given.items()]
            rows += [(agent, i, s, session, turn, "held_back", value, at)
                     for i, s in held_back.items() if i not in given]
            conn.executemany("INSERT OR REPLACE INTO credits VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


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


def totals(agent: str, lessons: list[str]) -> dict[str, tuple[int, int, int, int]]:
    """lesson -> (turns_given, success_given, turns_held_back, success_held_back)."""
    out = {lesson: (0, 0, 0, 0) for lesson in lessons}
    if not lessons:
        return out
    with closing(_connect()) as conn:
        for i in range(0, len(lessons), 500):
            chunk = lessons[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for lesson, arm, n, s in conn.execute(
                    f"SELECT lesson, arm, COUNT(*), SUM(success) FROM credits WHERE agent=? AND lesson IN ({marks})"
                    " GROUP BY lesson, arm", (agent, *chunk)):
                ng, sg, nh, sh = out[lesson]
                if arm == "given":
                    out[lesson] = (int(n), int(s or 0), nh, sh)
                else:
                    out[lesson] = (ng, sg, int(n), int(s or 0))
    return out


def credited_turns(agent: str, session: str) -> set[str]:
    with closing(_connect()) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT turn FROM credits WHERE agent=? AND session=?",
                                           (agent, session))}
