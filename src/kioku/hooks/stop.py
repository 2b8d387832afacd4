"""Stop: queue the self-evaluation of the turn just finished; never delays or steers Claude.

Returns None always (no stdout: any Stop output would make Claude keep working). When
``stop_hook_active`` is set (Claude is continuing because of some Stop hook) the turn is
not finished yet, so nothing is queued. Otherwise one job is enqueued with
kioku.infra.jobs.enqueue (a small JSON file + a detached ``kioku worker``); the worker reads
the transcript incrementally later, because here it may lag and may be huge. The hook never
opens the transcript, so its cost does not depend on the transcript's size. The job holds
only the hash and length of ``last_assistant_message`` (jobs.enqueue), never its text.
"""

from __future__ import annotations

from kioku.hooks.dispatch import HookResult, project_root_of


def build_job(payload: dict, *, agent: str, transcript: object, event: str) -> dict | None:
    """The kioku.infra.jobs job for this event (jobs keeps only ids and flags on disk)."""
    if not isinstance(transcript, str) or not transcript:
        return None
    job: dict = {
        "kind": "evaluate", "event": event, "agent": agent, "transcript_path": transcript,
        "project_root": project_root_of(payload),
    }
    for key in ("session_id", "cwd", "prompt_id", "agent_id", "agent_type"):
        if isinstance(payload.get(key), str) and payload[key]:
            job[key] = payload[key]
    # jobs.enqueue replaces the message by its hash and length (the worker uses them to wait
    # for a lagging transcript); the text itself is never written to disk.
    if isinstance(payload.get("last_assistant_message"), str):
        job["last_assistant_message"] = payload["last_assistant_message"]
    return job


def handle(payload: dict) -> HookResult | None:
    if payload.get("stop_hook_active"):
        return None
    from kioku.hooks.common import main_agent

    job = build_job(payload, agent=main_agent(project_root_of(payload)), transcript=payload.get("transcript_path"),
                    event="Stop")
    if job is not None:
        from kioku.infra.jobs import enqueue

        enqueue(job)
    return None
