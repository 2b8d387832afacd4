"""The commands Kioku runs for itself, hidden from ``kioku --help``.

- ``kioku hook EVENT`` reads a hook payload on stdin and runs it through the same fail-open
  boundary as the installed hook launchers (kioku.hooks.dispatch.run): always exit 0, stdout
  empty or one JSON object. EVENT is the Claude Code name (``SessionStart``) or the module name
  (``session_start``).
- ``kioku worker`` drains the hook job queue if no other worker runs (hooks start it detached);
  ``--wait`` blocks for the worker lock and processes everything synchronously;
  ``--retry-failed`` re-queues the jobs of ``jobs/failed/`` first. ``--drain`` is ``--wait``
  under its old name and says so on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from kioku.cli.args import add_json, warn_flag
from kioku.infra.errors import UsageError


def setup_hook(p: argparse.ArgumentParser) -> None:
    p.add_argument("event", help="SessionStart | UserPromptSubmit | Stop | SubagentStart | SubagentStop | SessionEnd")
    p.set_defaults(func=cmd_hook)


def setup_worker(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", action="store_true", help="wait for a running worker, then drain synchronously")
    p.add_argument("--drain", action="store_true", help=argparse.SUPPRESS)  # the old name of --wait
    p.add_argument("--retry-failed", action="store_true", help="re-queue failed jobs first")
    add_json(p, "a report")
    p.set_defaults(func=cmd_worker)


def _event_name(value: str) -> str:
    from kioku.hooks.dispatch import EVENT_MODULES

    for event, module in EVENT_MODULES.items():
        if value in (event, module) or value.lower() == event.lower():
            return event
    raise UsageError(f"unknown hook event {value!r}; one of: {', '.join(EVENT_MODULES)}")


def cmd_hook(args: argparse.Namespace) -> int:
    from kioku.hooks.dispatch import run

    try:
        event = _event_name(args.event)
    except UsageError as exc:  # a hook never fails its caller: say why, do nothing, exit 0
        print(f"kioku: hook skipped: {exc}", file=sys.stderr)
        return 0
    return run(event)


def cmd_worker(args: argparse.Namespace) -> int:
    from kioku.infra import jobs
    from kioku.worker import drain as worker

    if args.drain:
        warn_flag("--drain", "is the old name of --wait; use --wait")
    wait = args.wait or args.drain
    requeued = jobs.retry_failed() if args.retry_failed else 0
    report = worker.drain(wait=wait)
    if report is None:
        report = {"processed": 0, "failed": 0, "results": [], "errors": [], "busy": True}
    report["requeued"] = requeued
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    elif wait or args.retry_failed:
        print(f"processed {report['processed']} job(s), {report['failed']} failed"
              + (" (another worker is running)" if report.get("busy") else ""))
        for error in report.get("errors", []):
            print(f"  failed {error}")
    if report.get("stopped"):  # a full disk or a store that did not answer: the job stays queued
        print(f"kioku: error: {report['stopped']} (the job stays queued)", file=sys.stderr)
        return 1
    return 1 if report["failed"] else 0
