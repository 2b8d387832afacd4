"""Helpers for agent-memory tests: real ChromaDB stores under the per-test temp home/project."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kioku.lessons import scopes as sc


@pytest.fixture
def store_of(project: Path):
    """store_of(scope) -> the real AgentStore of that scope for the test project."""
    def _open(scope: str = "global"):
        return sc.open_scope(scope, project)
    return _open


def add_evaluation(store, agent: str, eval_id: str, *, success: bool, quality: float,
                   age_days: float = 0.0, duration_s: float = 60.0, tokens: int = 1000,
                   insights: int = 0, now: float | None = None) -> None:
    """Write an evaluation record with the metadata keys kioku.evaluation's record_evaluation writes."""
    from datetime import datetime, timezone

    from kioku.lessons.store.client import Record

    epoch = (now or time.time()) - age_days * 86400
    iso = datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds")
    meta = {"agent_name": agent, "session_id": f"s-{eval_id}", "task_id": eval_id, "success": success,
            "quality": float(quality), "duration_s": float(duration_s), "tokens": int(tokens),
            "tool_errors": 0, "retries": 0, "feedback": 0, "strengths": "", "weaknesses": "",
            "insights_count": insights, "timestamp": iso, "timestamp_epoch": epoch}
    store.upsert(agent, "evaluations", [Record(id=eval_id, document=f"task {eval_id} summary", metadata=meta)])


@pytest.fixture
def evaluation_writer():
    return add_evaluation
