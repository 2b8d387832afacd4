"""``kioku eval``: judge the turns of a Claude Code transcript.

``kioku eval transcript PATH [--agent NAME] [--json] [--no-store] [--session-id ID]`` judges
every turn (one per real prompt) with the rules the worker runs for the Stop and SubagentStop
hooks, and prints ``{"turns": [...], "kind", "session_id", "warning", "stored"}`` with
``--json``. ``--export-judge-prompts DIR`` writes, for one or more transcripts taken as finished
sessions, exactly the requests the model judge would send (``kioku.worker.judge_files``), and
``--import-verdicts DIR`` judges them with the answers written beside those files, printing what
``--json`` prints (a list of such documents for several transcripts); neither stores anything. Unless ``--no-store`` each turn is stored as its own evaluation record; nothing is
learned from it (lessons and their credit come from the hooks' own turns). ``--no-store``
writes nothing. ``--transcript PATH`` and ``--per-turn`` (which changes nothing and says so on
stderr) are accepted for scripts written for ``kioku eval transcript``, until that name goes away.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kioku.cli.args import Verb, add_agent, add_json, add_verbs, print_json, warn_flag
from kioku.infra.errors import UsageError


def cmd_transcript(args: argparse.Namespace) -> int:
    if args.path and args.transcript_option:
        raise UsageError("give the transcript once: as PATH or with --transcript")
    given = args.path or args.transcript_option or []
    if not given:
        raise UsageError("eval transcript needs the transcript, for example: "
                         "kioku eval transcript ~/.claude/projects/PROJECT/SESSION.jsonl")
    if args.per_turn:
        warn_flag("--per-turn", "changes nothing (every evaluation is per turn); leave it out")
    transcripts = [Path(t).expanduser() for t in given]
    for path in transcripts:
        if not path.exists():
            raise UsageError(f"transcript not found: {path}")
    if args.export_judge_prompts and args.import_verdicts:
        raise UsageError("--export-judge-prompts and --import-verdicts do not go together")
    if args.export_judge_prompts:
        return _export(args, transcripts)
    if args.import_verdicts:
        return _import(args, transcripts)
    if len(transcripts) > 1:
        raise UsageError("give one transcript (several go with --export-judge-prompts or --import-verdicts)")
    return _evaluate_per_turn(args, transcripts[0])


def _export(args: argparse.Namespace, transcripts: list[Path]) -> int:
    from kioku.worker.judge_files import export_requests

    index = export_requests(transcripts, args.export_judge_prompts, agent=args.agent)
    calls = index["calls"]
    turns = sum(len(c["turns"]) for c in calls)
    chars = sum(c["chars"] for c in calls)
    if args.json:
        print_json({"folder": str(args.export_judge_prompts), "calls": len(calls), "turns": turns, "chars": chars})
    else:
        print(f"wrote {len(calls)} request(s) covering {turns} turn(s) to {args.export_judge_prompts} "
              f"({chars / max(1, turns):,.0f} characters per turn); answer each F in F.answer")
    return 0


def _import(args: argparse.Namespace, transcripts: list[Path]) -> int:
    from kioku.worker.judge_files import import_answers

    try:
        results = import_answers(transcripts, args.import_verdicts, agent=args.agent)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    documents = [{"transcript": str(path), "turns": [_turn_json(v) for v in result.verdicts], "kind": result.kind,
                  "session_id": result.session_id or "unknown", "warning": result.warning, "stored": 0}
                 for path, result in results]
    print_json(documents[0] if len(documents) == 1 else documents)
    return 0


TURN_KEYS = ("prompt_uuid", "prompt_index", "prompt_id", "outcome", "reason", "feedback_on_previous", "task",
             "agent_errors", "user_rejections", "hook_blocks", "cascade_errors", "recovered_errors", "retries",
             "tool_calls", "interrupted", "tokens", "active_s", "wall_s", "started_at", "judged_by", "confidence",
             "scores", "lesson", "lesson_uses")


def _turn_json(verdict) -> dict:
    from kioku.evaluation import records

    data = verdict.to_json()
    item = {key: data[key] for key in TURN_KEYS}
    item["tokens"]["non_cache"] = verdict.tokens.non_cache
    item["tokens"]["weighted"] = records.weighted_tokens(verdict)
    return item


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
    turns = [_turn_json(verdict) for verdict in result.verdicts]
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
    p.add_argument("path", nargs="*", metavar="PATH", help="the transcript .jsonl (several with the two options below)")
    add_agent(p, "the agent whose criteria weigh the quality and whose records store the turns")
    p.add_argument("--session-id", default="", help="override the session id read from the transcript")
    add_json(p, "the evaluation")
    p.add_argument("--no-store", action="store_true", help="evaluate only; store nothing")
    p.add_argument("--export-judge-prompts", metavar="DIR", type=Path,
                   help="write the model judge's requests for the transcripts to DIR (one file per call); "
                        "store nothing")
    p.add_argument("--import-verdicts", metavar="DIR", type=Path,
                   help="judge the transcripts with the answers in DIR (F.answer beside each exported F); "
                        "store nothing; prints what --json prints")
    # the spelling of `kioku eval transcript`, kept while that name works
    p.add_argument("--transcript", dest="transcript_option", metavar="PATH", nargs="+", help=argparse.SUPPRESS)
    p.add_argument("--per-turn", action="store_true", help=argparse.SUPPRESS)


VERBS = {
    "transcript": Verb("judge every turn of a transcript, one verdict per prompt", _transcript_arguments,
                       cmd_transcript),
}


def setup(parser: argparse.ArgumentParser) -> None:
    add_verbs(parser, VERBS)
