"""The ``evaluate`` job: judge a session's finished turns, store them, learn from them.

1. resolve the project (``project_root`` or the git root above ``cwd``);
2. read the whole transcript (``transcript.read_all``: regular files only, a FIFO, device or
   directory fails the job at once with a one-line reason; chunked to the last byte, a warning in
   the log and the result when it cannot be read whole). Claude Code may not have flushed the
   final message when Stop fires, so when the job carries ``last_assistant_sha256`` the read is
   retried every 100 ms for up to :data:`LAG_WAIT_S` until that message is in the file;
3. the rules judge every turn (``per_turn.evaluate_entries``, pure; compaction side-runs are
   skipped): counts, tokens and times, and the outcome when no model judges;
4. where a model may be called, each turn with hindsight is judged once by it
   (``kioku.worker.judging``); turns without hindsight wait, and a transient model failure
   leaves the job queued (``status: deferred``) until :data:`DEFER_LIMIT` tries or
   :data:`DEFER_MAX_AGE_S`, after which the rules decide those turns;
5. the turns that are new or whose verdict changed are stored, one record each
   (``records.store_turns``); per-turn fingerprints and the judge's decisions are kept in the
   cursor ``agent:session:source``;
6. then, as one separate call, the learning step (``kioku.learning.learn``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from kioku.evaluation import per_turn, records
from kioku.evaluation import transcript as tr
from kioku.evaluation.criteria import load_criteria
from kioku.evaluation.verdict import TurnVerdict
from kioku.infra import clock, fsutil, jobs, paths
from kioku.learning.learn import JudgedTurn, learn_from_turns
from kioku.worker import judging

LAG_WAIT_S = 3.0
DEFER_LIMIT = 8
DEFER_MAX_AGE_S = 12 * 3600.0


def _project_root(job: dict[str, Any]) -> Path:
    if job.get("project_root"):
        return Path(job["project_root"])
    cwd = job.get("cwd")
    if cwd and Path(cwd).is_dir():
        return paths.find_project_root(Path(cwd))
    return paths.find_project_root()


def _has_message(transcript: tr.Transcript, sha: str) -> bool:
    """Whether the hook's ``last_assistant_message`` (by hash) is in the transcript yet."""
    for msg in reversed(transcript.messages):
        if any(jobs.text_sha256(text) == sha for text in (msg.text, *msg.texts) if text):
            return True
    return False


def _read_settled(path: str, sha: str | None, lag_wait: float) -> tr.FullRead:
    """Read the whole transcript; when the hook told us its last message, wait (up to
    ``lag_wait``) until Claude Code has flushed it."""
    deadline = time.monotonic() + lag_wait
    while True:
        read = tr.read_all(path)
        if not sha or time.monotonic() >= deadline:
            return read
        tail = read.entries[-200:]
        if _has_message(tr.parse(tail), sha):
            return read
        time.sleep(0.1)


def _fingerprint(verdict: TurnVerdict, next_feedback: str) -> str:
    """What the learning step reads of a verdict: a turn whose fingerprint changed is credited again."""
    uses = ";".join(sorted(f"{u.get('lesson_id')}:{u.get('relevant')}:{u.get('followed')}:{u.get('effect')}"
                           for u in verdict.lesson_uses if isinstance(u, dict)))
    return (f"{verdict.outcome}|{verdict.feedback_on_previous}|{next_feedback}|{verdict.tool_calls}|"
            f"{verdict.agent_errors}|{verdict.judged_by}" + (f"|{uses}" if uses else ""))


def _deferral_expired(cursor: dict[str, Any], now: float) -> str:
    """Why the rules must now decide the turns a model kept failing to judge ("" while not)."""
    tries = int(cursor.get("deferrals", 0) or 0)
    since = float(cursor.get("deferred_since", 0) or 0)
    if tries >= DEFER_LIMIT:
        return f"the model was unreachable {tries} times"
    if since and now - since >= DEFER_MAX_AGE_S:
        return f"the model was unreachable for {int((now - since) // 3600)} hours"
    return ""


def run_evaluate(job: dict[str, Any], *, lag_wait: float = LAG_WAIT_S) -> dict[str, Any]:
    agent = str(job.get("agent") or "")
    path = job.get("transcript_path")
    if not agent or not path:
        raise ValueError("evaluate job needs 'agent' and 'transcript_path'")
    path = str(Path(str(path)).expanduser())
    if not Path(path).exists():
        # Sessions run without saving a transcript (``--no-session-persistence``), or a file
        # deleted since: nothing to judge, and nothing wrong with the job.
        return {"status": "skipped", "reason": "transcript not found"}
    root = _project_root(job)
    read = _read_settled(path, job.get("last_assistant_sha256"), lag_wait)
    result = per_turn.evaluate_entries(read.entries, Path(path).name)
    if read.warning:
        log_line(f"{Path(path).name}: {read.warning}")
    if result.kind == "compaction":
        return {"status": "skipped", "reason": "compaction side-run"}
    if not result.verdicts:
        return {"status": "nothing new"}
    source = str(job.get("agent_id") or result.agent_id or "") or Path(path).name
    session_id = str(job.get("session_id") or result.session_id or "unknown")
    for verdict in result.verdicts:
        verdict.session_id = session_id
    key = f"{agent}:{session_id}:{source}"
    cursor = tr.load_cursor(key)
    now = time.time()
    ended = str(job.get("event") or "") in judging.ENDING_EVENTS or result.kind == "subagent"
    judgement = judging.judge_session(agent, session_id, result, root, session_ended=ended,
                                      judged=cursor.get("judged") if isinstance(cursor.get("judged"), dict) else {},
                                      force_rules_reason=_deferral_expired(cursor, now))
    final = [v for v in result.verdicts if v.prompt_uuid in judgement.decisions or not judgement.model_active]
    for verdict in final:
        if verdict.prompt_uuid in judgement.decisions:
            judging.apply(verdict, judgement.decisions[verdict.prompt_uuid])
    position = {v.prompt_uuid: i for i, v in enumerate(result.verdicts)}
    next_feedback = {v.prompt_uuid: (result.verdicts[position[v.prompt_uuid] + 1].feedback_on_previous
                                     if position[v.prompt_uuid] + 1 < len(result.verdicts) else "none")
                     for v in final}
    seen = cursor.get("turns", {})
    seen = seen if isinstance(seen, dict) else {}
    fresh = {v.prompt_uuid: _fingerprint(v, next_feedback[v.prompt_uuid]) for v in final}
    changed = [v for v in final if seen.get(v.prompt_uuid) != fresh[v.prompt_uuid]]
    deferred = bool(judgement.deferred)
    state = {"judged": judgement.judged, "awaiting": bool(judgement.waiting or judgement.deferred),
             "job": {k: job[k] for k in ("agent", "session_id", "transcript_path", "agent_id", "cwd", "project_root")
                     if isinstance(job.get(k), str) and job[k]},
             "deferrals": int(cursor.get("deferrals", 0) or 0) + 1 if deferred else 0,
             "deferred_since": (float(cursor.get("deferred_since", 0) or 0) or now) if deferred else 0}
    ids: list[str] = []
    learned = 0
    if changed:
        criteria = load_criteria(agent, root)
        ids = records.store_turns(agent, changed, source=source, kind=result.kind, criteria=criteria,
                                  next_feedback=next_feedback, transcript_epoch=result.last_ts, project_root=root)
        by_uuid = {t.prompt_uuid: t for t in result.turns}
        items = [JudgedTurn(v, by_uuid[v.prompt_uuid], next_feedback[v.prompt_uuid], v.prompt_uuid not in seen)
                 for v in changed]
        learned = learn_from_turns(agent, session_id, items, root)
    _save_cursor(key, path, {**seen, **fresh}, state)
    last = result.verdicts[-1]
    report = {"status": "deferred" if deferred else ("evaluated" if changed else "nothing new"),
              "ids": ids, "turns": len(result.verdicts), "stored": len(ids), "outcome": last.outcome,
              "success": last.succeeded, "learned": learned, "warning": read.warning,
              "judge_calls": judgement.calls, "waiting": len(judgement.waiting), "deferred": len(judgement.deferred)}
    if judgement.fallback:
        report["judge_fallback"] = judgement.fallback
    return report


def _save_cursor(key: str, path: str, fingerprints: dict[str, str], state: dict[str, Any]) -> None:
    target = tr.cursor_path(key)
    with fsutil.exclusive_lock(target.with_suffix(".lock"), timeout=10):
        data = tr.load_cursor(key)
        data.update(path=path, turns=fingerprints, **state)
        fsutil.atomic_write_text(target, json.dumps(data, ensure_ascii=False))


def queue_idle_sessions(now: float | None = None) -> int:
    """Queue a last ``idle`` evaluation for each session whose last turn still waits for its
    hindsight and whose transcript has not changed for :data:`kioku.worker.judging.IDLE_S`
    (a session that ended without a SessionEnd hook). Returns how many were queued."""
    now = time.time() if now is None else now
    folder = paths.state_dir() / "transcripts"
    queued = 0
    try:
        cursors = sorted(folder.glob("*.json"))
    except OSError:
        return 0
    for cursor_file in cursors:
        try:
            data = json.loads(cursor_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        job = data.get("job") if isinstance(data, dict) else None
        if not data.get("awaiting") or not isinstance(job, dict) or not job.get("transcript_path"):
            continue
        try:
            idle = now - Path(job["transcript_path"]).stat().st_mtime
        except OSError:
            continue
        if idle < judging.IDLE_S or now - float(data.get("idle_queued_at", 0) or 0) < judging.IDLE_S:
            continue
        jobs.enqueue({**job, "kind": "evaluate", "event": "idle"}, spawn=False)
        data["idle_queued_at"] = now
        try:
            fsutil.atomic_write_text(cursor_file, json.dumps(data, ensure_ascii=False))
        except OSError:
            continue
        queued += 1
    return queued


def log_line(message: str) -> None:
    """One line in ``<logs>/worker.log`` (job names, agents, counts and errors; never prompt text)."""
    try:
        line = json.dumps({"t": clock.iso_z(), "msg": message})
        fsutil.append_line_durable(paths.logs_dir() / "worker.log", line)
    except OSError:
        pass
