"""``kioku evaluate`` (self-evaluate a transcript) and ``kioku worker`` (drain hook jobs).

``kioku evaluate --agent NAME --transcript PATH [--per-turn] [--json] [--no-store]`` judges
every turn (one per real prompt) with the code the worker runs for the Stop and SubagentStop
hooks, and prints ``{"turns": [...], "kind", "session_id", "warning", "stored"}`` with
``--json``. Unless ``--no-store`` each turn is stored as its own evaluation record; nothing is
learned from it (lessons and their credit come from the hooks' own turns). ``--no-store``
writes nothing. ``--per-turn`` is the only mode and is accepted for scripts that name it.
``kioku worker`` drains the job queue if no other worker runs (hooks start it detached);
``--wait``/``--drain`` block for the worker lock and process everything synchronously;
``--retry-failed`` re-queues jobs from ``jobs/failed/`` first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kioku.infra.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    ev = sub.add_parser("evaluate", help="self-evaluate a task from a Claude Code transcript")
    ev.add_argument("--agent", required=True, help="agent name (the main session is 'main')")
    ev.add_argument("--transcript", required=True, help="path to the transcript .jsonl")
    ev.add_argument("--session-id", default="", help="override the session id read from the transcript")
    ev.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    ev.add_argument("--no-store", action="store_true", help="evaluate only; store nothing")
    ev.add_argument("--per-turn", action="store_true",
                    help="one verdict per real prompt (turn); the only mode, accepted for scripts that name it")
    ev.set_defaults(func=cmd_evaluate)

    wk = sub.add_parser("worker", help="process queued hook jobs (run detached by hooks)")
    wk.add_argument("--wait", action="store_true", help="wait for a running worker, then drain synchronously")
    wk.add_argument("--drain", action="store_true", help="same as --wait")
    wk.add_argument("--retry-failed", action="store_true", help="re-queue failed jobs first")
    wk.add_argument("--json", action="store_true", help="print a JSON report")
    wk.set_defaults(func=cmd_worker)


def cmd_evaluate(args: argparse.Namespace) -> int:
    path = Path(args.transcript).expanduser()
    if not path.exists():
        raise UsageError(f"transcript not found: {args.transcript}")
    return _evaluate_per_turn(args, path)


TURN_KEYS = ("prompt_uuid", "prompt_index", "prompt_id", "outcome", "reason", "feedback_on_previous", "task",
             "agent_errors", "user_rejections", "hook_blocks", "cascade_errors", "recovered_errors", "retries",
             "tool_calls", "interrupted", "tokens", "active_s", "wall_s", "started_at")


def _evaluate_per_turn(args: argparse.Namespace, path: Path) -> int:
    from kioku.infra import paths
    from kioku.evaluation import transcript as tr
    from kioku.evaluation import per_turn, records
    from kioku.evaluation.criteria import load_criteria

    try:
        result = per_turn.evaluate_path(path)
    except tr.TranscriptRefused as exc:
        raise UsageError(str(exc)) from exc
    session_id = args.session_id or result.session_id or "unknown"
    next_feedback = {v.prompt_uuid: (result.verdicts[i + 1].feedback_on_previous
                                     if i + 1 < len(result.verdicts) else "none")
                     for i, v in enumerate(result.verdicts)}
    stored: list[str] = []
    if not args.no_store and result.verdicts:
        root = paths.find_project_root()
        for verdict in result.verdicts:
            verdict.session_id = session_id
        stored = records.store_turns(args.agent, result.verdicts, source=result.agent_id or path.name,
                                     kind=result.kind, criteria=load_criteria(args.agent, root),
                                     next_feedback=next_feedback, transcript_epoch=result.last_ts,
                                     project_root=root)
    turns = []
    for verdict in result.verdicts:
        data = verdict.to_json()
        item = {key: data[key] for key in TURN_KEYS}
        item["tokens"]["non_cache"] = verdict.tokens.non_cache
        item["tokens"]["weighted"] = records.weighted_tokens(verdict)
        turns.append(item)
    if args.json:
        from kioku.text.defang import defang_json

        print(defang_json(json.dumps({"turns": turns, "kind": result.kind, "session_id": session_id,
                                      "warning": result.warning, "stored": len(stored)},
                                     ensure_ascii=False, indent=2)))
    else:
        from kioku.text.defang import defang

        if result.warning:
            print(f"warning: {result.warning}")
        if result.kind == "compaction":
            print("compaction side-run: no turns to evaluate")
        elif not turns:
            print("no real prompt in this transcript: nothing to evaluate")
        else:
            print(_turn_counts(turns))
        for item in turns:
            print(f"#{item['prompt_index']} {item['outcome']:<11} {defang(item['task'])}")
            print(f"    {defang(item['reason'])}; errors agent={item['agent_errors']} rejected={item['user_rejections']} "
                  f"hook={item['hook_blocks']} cascade={item['cascade_errors']}; feedback on previous: "
                  f"{item['feedback_on_previous']}; active {item['active_s']:.0f}s")
        if stored:
            print(f"stored {len(stored)} turn record(s)")
        elif args.no_store and turns:
            print("not stored (--no-store)")
    return 0


def _turn_counts(turns: list[dict]) -> str:
    """``3 turn(s): 2 done, 1 not done, 0 interrupted`` (done: success or no_task)."""
    outcomes = [t["outcome"] for t in turns]
    done = sum(o in ("success", "no_task") for o in outcomes)
    interrupted = outcomes.count("interrupted")
    return (f"{len(turns)} turn(s): {done} done, {len(turns) - done - interrupted} not done, "
            f"{interrupted} interrupted")


def cmd_worker(args: argparse.Namespace) -> int:
    from kioku.infra import jobs
    from kioku.worker import drain as worker

    requeued = jobs.retry_failed() if args.retry_failed else 0
    report = worker.drain(wait=args.wait or args.drain)
    if report is None:
        report = {"processed": 0, "failed": 0, "results": [], "errors": [], "busy": True}
    report["requeued"] = requeued
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    elif args.wait or args.drain or args.retry_failed:
        print(f"processed {report['processed']} job(s), {report['failed']} failed"
              + (" (another worker is running)" if report.get("busy") else ""))
        for error in report.get("errors", []):
            print(f"  failed {error}")
    if report.get("stopped"):  # a full disk or a store that did not answer: the job stays queued
        print(f"kioku: error: {report['stopped']} (the job stays queued)", file=sys.stderr)
        return 1
    return 1 if report["failed"] else 0
