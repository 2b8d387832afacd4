"""Search enrichment: what a model wrote about a memory or a lesson, kept beside it for search.

An :class:`Enrichment` holds the questions the item answers, its keywords with their synonyms
in English and in Japanese, and a short topic label. It is searchable data only: never shown as
the item's text, never recalled at SessionStart, never injected into a prompt.

Where it lives: a sidecar the index owns, ``<state_dir>/enrichment.sqlite3`` (0600 in a 0700
folder), not the topic file's frontmatter. A topic file holds many memories and is the user's
readable, committable record: a machine-written block per memory in it would fill every diff,
and the hooks parse frontmatter with a tiny line parser that nested lists would push onto
PyYAML. The sidecar is keyed by :func:`content_key`, a hash of the item's searched text, so an
edit makes the enrichment stale by construction: the new text has no row, search uses none, and
the row of the old text (found by the item's ``owner`` id) says that it was enriched before.
One row per (kind, key); writing a new row for an owner removes its older ones. A row with
``status = "failed"`` records that the model gave no usable answer (no data).

Concurrency: SQLite in WAL mode with a busy timeout; every write is one transaction. A
damaged file is moved aside (``.corrupt``) and started afresh: enrichment is derived data that
``kioku enrich`` can write again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from kioku.infra.fsutil import ensure_private_dir

KINDS = ("memory", "lesson")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS enrichment (kind TEXT NOT NULL, key TEXT NOT NULL, owner TEXT NOT NULL, "
    "agent TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, data TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', "
    "created REAL NOT NULL, PRIMARY KEY (kind, key))",
    "CREATE INDEX IF NOT EXISTS enrichment_owner ON enrichment (kind, owner)",
    "CREATE INDEX IF NOT EXISTS enrichment_agent ON enrichment (kind, agent)",
)
_CHUNK = 500


def content_key(kind: str, text: str) -> str:
    """The key of an item's enrichment: its kind and its searched text, whitespace collapsed."""
    body = f"{kind}\n{' '.join(text.split())}"
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Enrichment:
    questions: tuple[str, ...] = ()
    keywords_en: tuple[str, ...] = ()
    keywords_ja: tuple[str, ...] = ()
    topic: str = ""
    model: str = ""
    created: float = 0.0

    def lines(self) -> tuple[str, ...]:
        """What search indexes: each question, the topic with the English keywords as one line, and
        the Japanese keywords as one line (search embeds the lines without Japanese, one vector each)."""
        out = list(self.questions)
        english = ", ".join(([self.topic] if self.topic else []) + list(self.keywords_en))
        if english:
            out.append(english)
        if self.keywords_ja:
            out.append("、".join(self.keywords_ja))
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        return {"questions": list(self.questions), "keywords": {"en": list(self.keywords_en), "ja": list(self.keywords_ja)},
                "topic": self.topic, "model": self.model, "created": self.created}

    @classmethod
    def from_json(cls, data: dict[str, Any], model: str = "", created: float = 0.0) -> Enrichment:
        keywords = data.get("keywords") if isinstance(data.get("keywords"), dict) else {}
        strings = lambda v: tuple(str(x) for x in v if isinstance(x, str)) if isinstance(v, list) else ()  # noqa: E731
        return cls(strings(data.get("questions")), strings(keywords.get("en")), strings(keywords.get("ja")),
                   str(data.get("topic") or ""), str(data.get("model") or model),
                   float(data.get("created") or created or 0.0))


@dataclass(frozen=True)
class Row:
    kind: str
    key: str
    owner: str
    agent: str
    status: str            # "ok" | "failed"
    enrichment: Enrichment | None
    reason: str = ""       # why a failed row failed


@dataclass
class EnrichmentStore:
    path: Path
    _conn: sqlite3.Connection | None = field(default=None, repr=False)
    _lock: Any = field(default_factory=threading.RLock, repr=False)

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            ensure_private_dir(self.path.parent)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600))
            conn = sqlite3.connect(str(self.path), timeout=10.0, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA busy_timeout = 10000")
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                except sqlite3.OperationalError:
                    pass  # no shared memory on this file system: the rollback journal still works
                for statement in _SCHEMA:
                    conn.execute(statement)
            except sqlite3.DatabaseError:
                conn.close()
                self._set_aside()
                raise
            self._conn = conn
        return self._conn

    def _set_aside(self) -> None:
        for suffix in ("-wal", "-shm"):
            try:
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            except OSError:
                pass
        try:
            if self.path.exists():
                self.path.replace(self.path.with_name(self.path.name + ".corrupt"))
        except OSError:
            pass

    def _run(self, work):
        """``work(conn)``, once more on a fresh file when the old one is not a database."""
        with self._lock:
            for attempt in (1, 2):
                try:
                    return work(self._connect())
                except sqlite3.DatabaseError as exc:
                    if isinstance(exc, sqlite3.OperationalError) or attempt == 2:
                        raise
                    self.close()
                    self._set_aside()
        return None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writes ---------------------------------------------------------------------------
    def put(self, kind: str, key: str, owner: str, enrichment: Enrichment, agent: str = "") -> None:
        """Store ``enrichment`` for the text ``key`` of ``owner``, replacing the owner's older rows."""
        data = json.dumps(enrichment.to_json(), ensure_ascii=False)
        self._write(kind, key, owner, agent, "ok", data, enrichment.model)

    def put_failed(self, kind: str, key: str, owner: str, reason: str, agent: str = "") -> None:
        """Record that no usable answer came for this text (a good row is never replaced by it)."""
        def work(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                row = conn.execute("SELECT status FROM enrichment WHERE kind = ? AND key = ?", (kind, key)).fetchone()
                if row and row[0] == "ok":
                    return
                conn.execute("INSERT OR REPLACE INTO enrichment (kind, key, owner, agent, status, data, model, created) "
                             "VALUES (?, ?, ?, ?, 'failed', ?, '', ?)",
                             (kind, key, owner, agent, json.dumps({"reason": reason[:300]}), time.time()))

        self._run(work)

    def _write(self, kind: str, key: str, owner: str, agent: str, status: str, data: str, model: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM enrichment WHERE kind = ? AND owner = ? AND key != ?", (kind, owner, key))
                conn.execute("INSERT OR REPLACE INTO enrichment (kind, key, owner, agent, status, data, model, created) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (kind, key, owner, agent, status, data, model, time.time()))

        self._run(work)

    # -- reads ----------------------------------------------------------------------------
    def _select(self, where: str, column: str, values: Sequence[str], kind: str) -> list[Row]:
        values = list(dict.fromkeys(values))

        def work(conn: sqlite3.Connection) -> list[Row]:
            rows: list[Row] = []
            for start in range(0, len(values), _CHUNK):
                part = values[start:start + _CHUNK]
                marks = ",".join("?" * len(part))
                query = (f"SELECT kind, key, owner, agent, status, data, model, created FROM enrichment "
                         f"WHERE kind = ? AND {column} IN ({marks}){where} ORDER BY created DESC")
                rows.extend(_row(r) for r in conn.execute(query, [kind, *part]).fetchall())
            return rows

        if not values or not self.path.exists():
            return []
        return self._run(work) or []

    def get(self, kind: str, keys: Iterable[str]) -> dict[str, Enrichment]:
        """The usable enrichment of each of ``keys`` that has one."""
        return {r.key: r.enrichment for r in self._select(" AND status = 'ok'", "key", list(keys), kind)
                if r.enrichment is not None}

    def rows(self, kind: str, keys: Iterable[str]) -> dict[str, Row]:
        """Every row (usable or failed) of ``keys``."""
        return {r.key: r for r in self._select("", "key", list(keys), kind)}

    def by_owner(self, kind: str, owners: Iterable[str]) -> dict[str, Row]:
        """The newest row of each owner (whatever text it was written for)."""
        out: dict[str, Row] = {}
        for row in self._select("", "owner", list(owners), kind):
            out.setdefault(row.owner, row)
        return out

    def of_agent(self, kind: str, agent: str) -> list[Row]:
        """Every usable row written for ``agent``'s lessons."""
        return self._select(" AND status = 'ok'", "agent", [agent], kind)

    def counts(self) -> dict[str, dict[str, int]]:
        def work(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
            out: dict[str, dict[str, int]] = {}
            for kind, status, n in conn.execute("SELECT kind, status, COUNT(*) FROM enrichment GROUP BY kind, status"):
                out.setdefault(kind, {})[status] = int(n)
            return out

        return (self._run(work) or {}) if self.path.exists() else {}

    def signature(self) -> tuple[int, int] | None:
        """Changes whenever the file (or its write-ahead log) does: search caches by it."""
        sig = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.path) + suffix)
                sig.append((st.st_mtime_ns, st.st_size))
            except OSError:
                sig.append((0, 0))
        return tuple(sig) if sig[0] != (0, 0) else None  # type: ignore[return-value]


def _row(r: tuple) -> Row:
    kind, key, owner, agent, status, data, model, created = r
    try:
        payload = json.loads(data)
    except ValueError:
        payload = {}
    payload = payload if isinstance(payload, dict) else {}
    if status == "ok":
        return Row(kind, key, owner, agent, status, Enrichment.from_json(payload, model, created))
    return Row(kind, key, owner, agent, status, None, str(payload.get("reason") or ""))


_default: EnrichmentStore | None = None
_default_lock = threading.Lock()


def default_path() -> Path:
    from kioku.infra import paths

    return paths.state_dir() / "enrichment.sqlite3"


def default_store() -> EnrichmentStore:
    """The process's store at :func:`default_path` (re-opened when KIOKU_HOME changes)."""
    global _default
    path = default_path()
    with _default_lock:
        if _default is None or _default.path != path:
            if _default is not None:
                _default.close()
            _default = EnrichmentStore(path)
        return _default


def lookup(kind: str, keys: Iterable[str]) -> dict[str, Enrichment]:
    """The usable enrichment of ``keys`` in the default store; {} when it cannot be read."""
    keys = list(keys)
    if not keys or not default_path().exists():
        return {}
    try:
        return default_store().get(kind, keys)
    except sqlite3.Error:
        return {}  # derived data: search works as it always did without it
