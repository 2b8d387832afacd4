"""SessionEnd: the session is over, so its last turn has all the hindsight it will get.

Queues one evaluation job with ``event: "SessionEnd"`` (kioku.infra.jobs.enqueue: a small JSON
file and a detached worker), so the worker judges the turns still waiting for a next prompt. It
prints nothing (Claude Code discards SessionEnd output) and takes milliseconds: the session's
exit waits for it within a 1.5-second budget.
"""

from __future__ import annotations

from kioku.hooks.dispatch import HookResult, project_root_of
from kioku.hooks.stop import build_job


def handle(payload: dict) -> HookResult | None:
    from kioku.hooks.common import main_agent

    job = build_job(payload, agent=main_agent(project_root_of(payload)), transcript=payload.get("transcript_path"),
                    event="SessionEnd")
    if job is not None:
        from kioku.infra.jobs import enqueue

        enqueue(job)
    return None
