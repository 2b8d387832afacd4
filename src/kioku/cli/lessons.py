"""``kioku lessons``: an agent's learned lessons (the agent-memory store).

Usage (``--agent`` is ``main``, the main session's agent, unless given)::

    kioku lessons learn [--agent NAME] "LESSON" --category C --confidence X [--tags a,b]
                        [--scope auto|global|project|both] [--from manual|user_feedback|...] [--json]
    kioku lessons search [--agent NAME] "TASK" [--limit 5] [--json] [--session ID]
    kioku lessons restore [--agent NAME] ID [--json]
    kioku lessons rollback [--agent NAME] --to TIMESTAMP [--dry-run] [--json]
    kioku lessons clone [--agent A] --to B [--json]
    kioku lessons export [--agent NAME] [--format md|json] [--out PATH] [--json]
    kioku lessons import PATH [--agent NAME] [--json]
    kioku lessons consolidate [--agents a,b] [--dry-run] [--scope global|project] [--json]
    kioku lessons maintain [--agent NAME] (--daily | --weekly | --monthly [--older-than DAYS]) [--if-due] [--json]

Exit codes: 0 ok (also "nothing found"; also a lesson saved in the journal and applied at the next
sync), 1 error (a full disk: nothing was written), 2 usage error / refused by the store rules,
3 refused because the text looks like a secret. A retried ``learn`` finds its first attempt and
writes nothing again. Heavy imports happen inside the handlers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kioku.cli.args import Verb, add_agent, add_json, add_verbs, positive_int, print_json


def _root() -> Path:
    from kioku.infra.paths import find_project_root

    return find_project_root()


def cmd_learn(args: argparse.Namespace) -> int:
    from kioku.lessons import scopes as sc
    from kioku.lessons.improvements import learn
    from kioku.lessons.usage import read_lessons

    text = (args.lesson or "").strip()
    if text and len(text.split()) < 2 and (text.isascii() or len(text) < 4):
        # "x", "ok", "fix": nothing another task could act on ("No rebase", "pnpm only" and
        # 「テストを先に書く」 are lessons). Only what a person types is checked: lessons already
        # stored, imported or consolidated keep moving between agents whatever their length.
        from kioku.infra.errors import UsageError

        raise UsageError(f"the lesson {text[:40]!r} says too little; state what to do, and when")
    from kioku.lessons.improvements import last_learn_notes

    root = _root()
    ids = learn(args.agent, args.lesson, args.category, args.confidence, tags=args.tags or "",
                scope=args.scope, learned_from=args.learned_from, project_root=root)
    # the lesson is saved (at least in the journal) from here on: nothing below may fail the command
    for note in last_learn_notes:
        print(f"kioku: note: {note}", file=sys.stderr)
    # learning a lesson again never lifts a deprecation: say so instead of "learned"
    by_scope: dict[str, list[str]] = {}
    from kioku.text.defang import strip_controls

    # the text learn() stored (control characters removed), so the scopes are the ones it chose
    for scope, rec_id in zip(sc.scopes_for(args.category, args.scope, strip_controls(args.lesson).strip()), ids):
        by_scope.setdefault(scope, []).append(rec_id)
    try:
        stored = read_lessons(sc.validate_agent(args.agent), by_scope, root)
    except Exception:  # noqa: BLE001 - the store cannot be read now; whether it is deprecated waits
        stored = {}
    deprecated = {i: str(m.get("decision_reason") or m.get("deprecated_reason") or "")
                  for i, (_scope, _doc, m) in stored.items() if m.get("deprecated")}
    if args.json:
        print_json({"ids": ids, "deprecated": sorted(deprecated), "notes": list(last_learn_notes)})
        return 0
    from kioku.text.defang import defang

    fresh = [i for i in ids if i not in deprecated]
    if fresh:
        print(f"learned ({len(fresh)} record{'s' if len(fresh) != 1 else ''}): {', '.join(fresh)}")
    for rec_id, why in deprecated.items():
        print(defang(f"already known and deprecated: {rec_id}" + (f" ({why})" if why else "") +
                     f"; it stays deprecated and is not injected; bring it back with "
                     f"`kioku lessons restore --agent {args.agent} {rec_id}`"))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from kioku.lessons.lesson_retrieval import retrieve

    if not args.task.strip():
        from kioku.infra.errors import UsageError

        raise UsageError("lessons search needs the task, for example: kioku lessons search \"fix the flaky test\"")
    root = _root()
    hits = retrieve(args.agent, args.task, limit=args.limit, project_root=root)
    if args.session and hits:  # the lessons join the session's next turn, whose verdict credits them
        from kioku.learning.ledger import record_pending

        # a suspended lesson is shown as such, not given: its turns are the uplift test's, drawn by chance
        record_pending(args.session, args.agent, {h.id: h.scope for h in hits if not h.metadata.get("suspended")},
                       {}, str(root))
    if args.json:
        from kioku.lessons.stats import lesson_evidence

        print_json([{**h.to_dict(), **lesson_evidence(h.metadata)} for h in hits])
        return 0
    if not hits:
        print(f"no learned improvements for {args.agent} match this task")
        return 0
    from kioku.text.defang import defang, defang_line

    # Claude reads this output: remembered text is defanged like the injected blocks.
    print(f"Learned improvements for {defang(args.agent)} (most relevant first, by meaning and keywords together):")
    for n, h in enumerate(hits, 1):
        m = h.metadata
        rate = "untested" if not m.get("tested") else f"{float(m.get('success_rate', 0)):.0%} of {m.get('usage_count', 0)}"
        print(f"{n}. {defang_line(h.improvement)}")
        print(f"   [{defang(str(m.get('category', '')))}/{h.scope}] cosine {h.relevance:.2f}, confidence "
              f"{float(m.get('confidence', 0)):.2f}, success {rate}"
              + (", cross-validated" if m.get("cross_validated") else ""))
        print(f"   {_evidence_line(m)}")
        if _suspension_line(m):
            print(f"   {defang_line(_suspension_line(m))}")
    return 0


def _suspension_line(meta: dict) -> str:
    """One line on a suspension in force ("" when the lesson is not suspended)."""
    from kioku.lessons.stats import suspension_of

    held = suspension_of(meta)
    if held is None:
        return ""
    task = f' ("{held["task"]}")' if held["task"] else ""
    return (f"suspended {held['at']}: the judge says following it hurt in session {held['session']}, turn "
            f"{held['turn']}{task}: {held['reason']}; not given in the normal way until the uplift test decides "
            f"(given in {held['given_since']} turns since)")


def _evidence_line(meta: dict) -> str:
    from kioku.lessons.stats import lesson_evidence

    ev = lesson_evidence(meta)
    up = ("uplift n/a" if ev["uplift"] is None else
          f"uplift {ev['uplift']:+.2f} [{ev['uplift_low']:+.2f}, {ev['uplift_high']:+.2f}]")
    return (f"{ev['decision']}: given {ev['turns_given']} ({ev['success_given']} ok), held back "
            f"{ev['turns_held_back']} ({ev['success_held_back']} ok), {up}")


def cmd_maintain(args: argparse.Namespace) -> int:
    from kioku.lessons import maintenance

    root = _root()
    if args.daily:
        report = maintenance.run_if_due(args.agent, root) if args.if_due else maintenance.run_daily(args.agent, root)
        if report is None:
            if args.json:
                print_json({"agent": args.agent, "kind": "daily", "skipped": "not due"})
            else:
                print("daily maintenance not due")
            return 0
    elif args.weekly:
        report = maintenance.run_weekly(args.agent, root)
    else:
        report = maintenance.run_monthly(args.agent, root, older_than_days=args.older_than)
    if args.json:
        print_json(report)
        return 0
    kind = report["kind"]
    if kind == "daily":
        m = report["metrics"]
        if not m["evaluations"]:
            seen = f"no evaluations in the last {m.get('window_days', 30)} days (no snapshot stored)"
        else:
            success = (f"success {m['success_rate']:.0%} of {m['success_turns']} turns with a task"
                       if m["success_turns"] else "no turn with a task to judge success")
            seen = (f"{m['evaluations']} recent evaluations, {success}, quality {m['avg_quality']:.1f} "
                    f"(trend {m['quality_trend']:+.1f})")
        mended = sum(report.get("reindexed", {}).values())
        print(f"daily maintenance for {args.agent}: {seen}; {report['sessions_pruned']} old session ledgers pruned"
              + (f"; {mended} record(s) vector search missed were indexed again" if mended else ""))
    elif kind == "weekly":
        print(f"weekly review for {args.agent}: {report['improvements_last_7_days']} new improvements")
        from kioku.text.defang import defang_line

        for label in ("top_improvements", "bottom_improvements"):
            print(label.replace("_", " ") + " (by uplift against held-back turns):")
            if not report[label]:
                print("  (no lesson has both given and held-back turns yet)" if not report.get("measured") else
                      "  (none of the measured lessons)" if label == "bottom_improvements" else
                      "  (no measured lesson has helped so far)")
            for r in report[label]:
                print(f"  uplift {r['uplift']:+.2f} [{r['uplift_low']:+.2f}, {r['uplift_high']:+.2f}] over "
                      f"{r['turns_given']} given / {r['turns_held_back']} held back, {r['decision']}: "
                      f"{defang_line(r['improvement'])}")
        print("trends:")
        for key, t in report["trends"].items():
            print(f"  {key}: this week {_or_no_data(t['this_week'])}, last week {_or_no_data(t['last_week'])}")
    else:
        print(f"monthly maintenance for {args.agent}: archived {report['evaluations_archived']} "
              f"evaluations, pruned {report['improvements_pruned']} deprecated improvements")
        for path in report["archives"]:
            print(f"  archive: {path}")
    return 0


def _or_no_data(value: Any) -> str:
    """A figure for the text reports: a missing one is "no data", never "None" or 0."""
    return "no data" if value is None else str(value)


def cmd_consolidate(args: argparse.Namespace) -> int:
    from kioku.lessons.consolidate import consolidate

    agents = [a.strip() for a in args.agents.split(",") if a.strip()] if args.agents else None
    report = consolidate(agents, dry_run=args.dry_run, scope=args.scope, project_root=_root())
    if args.json:
        print_json(report)
        return 0
    from kioku.text.defang import defang, defang_line

    prefix = "(dry run) " if args.dry_run else ""
    print(f"{prefix}consolidated {len(report['agents'])} agents: {len(report['equivalent_groups'])} "
          f"shared lessons, {len(report['conflicts'])} conflicts, {len(report['transfers'])} transfers")
    for g in report["equivalent_groups"]:
        state = " (conflicted: neither marked nor transferred)" if g["conflicted"] else ""
        print(defang(f"  shared by {', '.join(g['agents'])}{state}: ") + defang_line(g['members'][0]['improvement']))
    for c in report["conflicts"]:
        print(defang(f"  CONFLICT ({c['kind']}) {c['a']['agent']}: ") + defang_line(c['a']['improvement'])
              + defang(f"  <->  {c['b']['agent']}: ") + defang_line(c['b']['improvement']))
    for t in report["transfers"]:
        print(defang(f"  -> {t['to']}: ") + defang_line(t['improvement']) + f" (confidence {t['confidence']:.2f})")
    return 0


def cmd_rollback(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.rollback import rollback

    report = rollback(args.agent, args.to, _root(), dry_run=args.dry_run)
    if args.json:
        print_json(report)
    else:
        print(f"{'(dry run) ' if args.dry_run else ''}rolled {args.agent} back to {report['to']}: removed "
              f"{len(report['removed'])} improvements, lifted {len(report['undeprecated'])} deprecations, "
              f"reverted {len(report['unpromoted'])} promotions, gave back {len(report['repromoted'])} "
              f"withdrawn promotions and reverted {len(report['uncross_validated'])} cross-validations")
        if report["unsuspended"]:
            print(f"  lifted {len(report['unsuspended'])} suspensions made since")
        if report["archive"]:
            print(f"  removed improvements archived in {report['archive']}")
    return 0


def cmd_clone(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.rollback import clone

    from kioku.learning.evidence import copy_lessons

    report = clone(args.agent, args.to, _root())
    copy_lessons(report["renamed"])  # the clone's lessons keep the evidence behind their figures
    if args.json:
        print_json({"from": report["from"], "to": report["to"], "copied": report["copied"]})
        return 0
    print(f"cloned {args.agent} to {args.to}: " +
          ", ".join(f"{k} {v}" for k, v in sorted(report["copied"].items())))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.exchange import export_agent

    form = args.format or ("json" if args.json else "md")
    if args.json and form != "json" and not args.out:
        from kioku.infra.errors import UsageError

        raise UsageError("--json prints the export as JSON; to print Markdown leave --json out")
    text, out = export_agent(args.agent, form, Path(args.out) if args.out else None, _root())
    if out is None:  # printed for whoever reads it, Claude included: inert like every other output
        from kioku.text.defang import defang, defang_json

        shown = defang_json(text) if form == "json" else defang(text)
        sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
    elif args.json:
        print_json({"agent": args.agent, "format": form, "out": str(out)})
    else:
        print(f"exported {args.agent} to {out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.importing import import_file

    from kioku.learning.evidence import copy_lessons

    report = import_file(Path(args.path), args.agent, _root())
    copy_lessons(report["renamed"])  # an edited lesson keeps the evidence it earned under its old text
    if args.json:
        print_json({key: report[key] for key in ("agent", "imported", "updated", "unchanged", "skipped")})
        return 0
    added = ", ".join(f"{k} {v}" for k, v in sorted(report["imported"].items()))
    print(f"imported into {report['agent']}: " + (f"new {added}" if added else "nothing new") +
          f"; existing lessons: {report['updated']} updated, {report['unchanged']} unchanged" +
          (f" ({report['skipped']} skipped: empty, below the confidence floor or repeated)"
           if report["skipped"] else ""))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from kioku.lessons.lesson_state import set_deprecated

    def reason(meta: dict) -> str:
        return f"restored by hand; was: {meta.get('decision_reason') or meta.get('deprecated_reason') or ''}"[:500]

    # the same change as the UI's Restore button; a missing or active lesson is a KiokuError,
    # printed by the CLI as "kioku: error: ..." with exit code 1
    _text, state = set_deprecated(args.agent, args.id, False, _root(), reason=reason, strict=True)
    if args.json:
        print_json({"id": args.id, "state": state})
        return 0
    print(f"restored {args.id}: {state} again; its evidence is kept and new turns decide anew")
    return 0


def _learn_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    p.add_argument("lesson", help="the lesson, one sentence: what to do, and when")
    p.add_argument("--category", required=True, help="e.g. search_strategy, error_handling, naming_conventions")
    p.add_argument("--confidence", type=float, required=True, help="0 to 1; store at 0.7 or more")
    p.add_argument("--tags", default="", help="comma-separated")
    p.add_argument("--scope", default="auto", choices=["auto", "global", "project", "both"],
                   help="where to store it (default auto: by category and wording)")
    p.add_argument("--from", dest="learned_from", default="manual",
                   choices=["manual", "user_feedback", "self_evaluation", "new_pattern"])
    add_json(p, "the stored ids")


def _search_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    p.add_argument("task", help="the task in plain words")
    p.add_argument("--limit", type=positive_int, default=5, help="at most this many lessons (default 5)")
    add_json(p, "the lessons and their evidence")
    p.add_argument("--session", help="record the returned ids as injected into this session")


def _restore_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    p.add_argument("id", help="the lesson's id (kioku dashboard --agent NAME --json lists them)")
    add_json(p)


def _rollback_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    p.add_argument("--to", required=True, help="ISO-8601 time (UTC if no zone) or epoch seconds")
    p.add_argument("--dry-run", action="store_true", help="show what would change")
    add_json(p, "the report")


def _clone_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p, "the agent to copy")
    p.add_argument("--to", required=True, help="the new agent's name (it must have no memory yet)")
    add_json(p, "the counts copied")


def _export_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    p.add_argument("--format", choices=["md", "json"], help="md (default) or json (the default with --json)")
    p.add_argument("--out", help="write to this file instead of standard output")
    add_json(p, "the export (or, with --out, where it went)")


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="a Markdown or JSON export, or a JSON Lines archive of maintenance or rollback")
    p.add_argument("--agent", metavar="NAME", help="import into this agent (default: the exported one)")
    add_json(p, "the counts")


def _consolidate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", help="comma-separated (default: every agent in the store)")
    p.add_argument("--dry-run", action="store_true", help="report only; change nothing")
    p.add_argument("--scope", default="global", choices=["global", "project"])
    add_json(p, "the report")


def _maintain_arguments(p: argparse.ArgumentParser) -> None:
    add_agent(p)
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--daily", action="store_true", help="performance snapshot, digest rebuild, pruning")
    when.add_argument("--weekly", action="store_true", help="top and bottom lessons by uplift, trends")
    when.add_argument("--monthly", action="store_true", help="archive old evaluations, prune old deprecated lessons")
    p.add_argument("--if-due", action="store_true", help="daily only: skip unless a day has passed")
    p.add_argument("--older-than", type=float, default=90.0, help="monthly: archive evaluations older than DAYS")
    add_json(p, "the report")


VERBS = {
    "learn": Verb("record a lesson for an agent", _learn_arguments, cmd_learn),
    "search": Verb("find an agent's lessons relevant to a task", _search_arguments, cmd_search),
    "restore": Verb("bring a deprecated lesson back to active", _restore_arguments, cmd_restore),
    "rollback": Verb("undo an agent's learning after a point in time", _rollback_arguments, cmd_rollback),
    "clone": Verb("copy an agent's memory to a new agent (A/B tests)", _clone_arguments, cmd_clone),
    "export": Verb("export an agent's memory for review (Markdown or JSON)", _export_arguments, cmd_export),
    "import": Verb("import an exported agent memory or an archive", _import_arguments, cmd_import),
    "consolidate": Verb("consolidate lessons across agents", _consolidate_arguments,
                        cmd_consolidate),
    "maintain": Verb("run an agent's daily, weekly or monthly maintenance", _maintain_arguments, cmd_maintain),
}


def setup(parser: argparse.ArgumentParser) -> None:
    add_verbs(parser, VERBS)
