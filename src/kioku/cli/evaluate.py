"""``kioku eval``: judge the turns of a Claude Code transcript.

``kioku eval transcript PATH [--agent NAME] [--json] [--no-store] [--session-id ID]`` judges
every turn (one per real prompt) with the code the worker runs for the Stop and SubagentStop
hooks, and prints ``{"turns": [...], "kind", "session_id", "warning", "stored"}`` with
``--json``. Unless ``--no-store`` each turn is stored as its own evaluation record; nothing is
learned from it (lessons and their credit come from the hooks' own turns). ``--no-store``
writes nothing. ``--transcript PATH`` and ``--per-turn`` (which changes nothing and says so on
stderr) are accepted for scripts written for ``kioku eval transcript``, until that name goes away.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kioku.cli.args import Verb, add_agent, add_json, add_verbs, warn_flag
from kioku.infra.errors import UsageError


def cmd_transcript(args: argparse.Namespace) -> int:
    if args.path and args.transcript_option:
        raise UsageError("give the transcript once: as PATH or with --transcript")
    given = args.path or args.transcript_option
    if not given:
        raise UsageError("eval transcript needs the transcript, for example: "
                         "kioku eval transcript ~/.claude/projects/PROJECT/SESSION.jsonl")
    if args.per_turn:
        warn_flag("--per-turn", "changes nothing (every evaluation is per turn); leave it out")
    path = Path(given).expanduser()
    if not path.exists():
        raise UsageError(f"transcript not found: {given}")
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


def _transcript_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", metavar="PATH", help="the transcript .jsonl")
    add_agent(p, "the agent whose criteria weigh the quality and whose records store the turns")
    p.add_argument("--session-id", default="", help="override the session id read from the transcript")
    add_json(p, "the evaluation")
    p.add_argument("--no-store", action="store_true", help="evaluate only; store nothing")
    # the spelling of `kioku eval transcript`, kept while that name works
    p.add_argument("--transcript", dest="transcript_option", metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--per-turn", action="store_true", help=argparse.SUPPRESS)


VERBS = {
    "transcript": Verb("judge every turn of a transcript, one verdict per prompt", _transcript_arguments,
                       cmd_transcript),
}


def setup(parser: argparse.ArgumentParser) -> None:
    add_verbs(parser, VERBS)
