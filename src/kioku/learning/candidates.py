"""Lessons seen once, waiting in a ledger for a second session or the user's confirmation.

``CandidateLedger(agent)`` (``<state_dir>/lesson_candidates.json``, atomic and locked): a lesson
seen once is an inactive candidate kept there, never stored or injected; ``observe`` returns it
once the same lesson recurs in another session, or when the user confirmed the turn (positive
feedback on it). Candidates unseen for :data:`CANDIDATE_MAX_AGE_S` are dropped.
"""

from __future__ import annotations

import json
import time

from kioku.evaluation.lessons import Lesson
from kioku.infra import fsutil, paths
from kioku.text.secrets import redact_derived

CANDIDATE_MAX_AGE_S = 60 * 86400
MAX_CANDIDATES = 500


class CandidateLedger:
    """Lessons seen once, waiting for a second session or the user's confirmation."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.path = paths.state_dir() / "lesson_candidates.json"

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def observe(self, lessons: list[Lesson], session_id: str, *, confirmed: bool = False) -> list[Lesson]:
        """Record ``lessons`` from ``session_id``; return those now worth learning."""
        if not lessons:
            return []
        ready: list[Lesson] = []
        now = time.time()
        with fsutil.exclusive_lock(self.path.with_suffix(".lock"), timeout=10):
            data = self._load()
            bucket = data.setdefault(self.agent, {})
            for lesson in lessons:
                key = redact_derived(lesson.key)  # a command's target can hold a token
                entry = bucket.get(key) or {"text": redact_derived(lesson.text), "sessions": [], "first_seen": now}
                if session_id not in entry["sessions"]:
                    entry["sessions"] = (entry["sessions"] + [session_id])[-5:]
                entry["last_seen"] = now
                if confirmed or len(entry["sessions"]) >= 2:
                    ready.append(lesson)
                    bucket.pop(key, None)
                else:
                    bucket[key] = entry
            fresh = {k: v for k, v in bucket.items() if now - float(v.get("last_seen", 0)) < CANDIDATE_MAX_AGE_S}
            data[self.agent] = dict(sorted(fresh.items(), key=lambda kv: -float(kv[1].get("last_seen", 0)))
                                    [:MAX_CANDIDATES])
            fsutil.atomic_write_text(self.path, json.dumps(data, ensure_ascii=False))
        return ready

    def candidates(self) -> dict[str, dict]:
        return dict(self._load().get(self.agent, {}))
