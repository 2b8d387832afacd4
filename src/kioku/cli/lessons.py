"""Agent-memory commands: learn, improvements, dashboard, maintain, consolidate, rollback, clone,
export, import, sync.

Usage::

    kioku learn --agent NAME "LESSON" --category C --confidence X [--tags a,b]
                [--scope auto|global|project|both] [--from manual|user_feedback|...]
    kioku improvements --agent NAME "TASK" [--limit 5] [--json] [--session ID]
    kioku dashboard --agent NAME [--json | --html OUT]
    kioku maintain --agent NAME (--daily | --weekly | --monthly [--older-than DAYS]) [--if-due] [--json]
    kioku consolidate [--agents a,b] [--dry-run] [--scope global|project] [--json]
    kioku rollback --agent NAME --to TIMESTAMP [--dry-run] [--json]
    kioku clone --agent A --to B
    kioku export --agent NAME [--format md|json] [--out PATH]
    kioku import PATH [--agent NAME]
    kioku sync
    kioku rebuild [--scope all|global|project] [--from-store | --force]

Exit codes: 0 ok (also "nothing found"; also a lesson saved in the journal and applied at the next
sync), 1 error (a full disk: nothing was written), 2 usage error / refused by the store rules,
3 refused because the text looks like a secret. A retried ``learn`` finds its first attempt and
writes nothing again. Heavy imports happen inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kioku.cli.args import positive_int


def _print_json(data: Any) -> None:
    from kioku.text.defang import defang_json

    print(defang_json(json.dumps(data, ensure_ascii=False, indent=2, default=str)))


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
        _print_json({"ids": ids, "deprecated": sorted(deprecated), "notes": list(last_learn_notes)})
        return 0
    from kioku.text.defang import defang

    fresh = [i for i in ids if i not in deprecated]
    if fresh:
        print(f"learned ({len(fresh)} record{'s' if len(fresh) != 1 else ''}): {', '.join(fresh)}")
    for rec_id, why in deprecated.items():
        print(defang(f"already known and deprecated: {rec_id}" + (f" ({why})" if why else "") +
                     f"; it stays deprecated and is not injected; bring it back with "
                     f"`kioku restore --agent {args.agent} {rec_id}`"))
    return 0


def cmd_improvements(args: argparse.Namespace) -> int:
    from kioku.lessons.improvements import retrieve

    if not args.task.strip():
        from kioku.infra.errors import UsageError

        raise UsageError("improvements needs the task, for example: kioku improvements --agent main \"fix the flaky test\"")
    root = _root()
    hits = retrieve(args.agent, args.task, limit=args.limit, project_root=root)
    if args.session and hits:  # the lessons join the session's next turn, whose verdict credits them
        from kioku.learning.ledger import record_pending

        record_pending(args.session, args.agent, {h.id: h.scope for h in hits}, {}, str(root))
    if args.json:
        from kioku.lessons.stats import lesson_evidence

        _print_json([{**h.to_dict(), **lesson_evidence(h.metadata)} for h in hits])
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
    return 0


def _evidence_line(meta: dict) -> str:
    from kioku.lessons.stats import lesson_evidence

    ev = lesson_evidence(meta)
    up = ("uplift n/a" if ev["uplift"] is None else
          f"uplift {ev['uplift']:+.2f} [{ev['uplift_low']:+.2f}, {ev['uplift_high']:+.2f}]")
    seed = ev["seed_rule"]
    rate = "untested" if seed["success_rate"] < 0 else f"{seed['success_rate']:.0%}"  # as the dashboard says
    return (f"{ev['decision']}: given {ev['turns_given']} ({ev['success_given']} ok), held back "
            f"{ev['turns_held_back']} ({ev['success_held_back']} ok), {up}; seed rule {seed['decision']} "
            f"({rate} of {seed['usage_count']})")


def cmd_dashboard(args: argparse.Namespace) -> int:
    from kioku.lessons.dashboard import build_dashboard, format_dashboard

    if args.html:
        from kioku.ui.report import write_report

        print(f"wrote {write_report(args.agent, Path(args.html), _root())}")
        if not _has_memory(args.agent):
            _hint_known_agents(args.agent)
        return 0
    data = build_dashboard(args.agent, _root())
    if args.json:
        _print_json(data)
    else:
        from kioku.text.defang import defang

        print(defang(format_dashboard(data)))  # lessons and evaluation reasons, read by Claude
        if not data["total_improvements"] and not data["total_evaluations"]:
            _hint_known_agents(args.agent)
    return 0


def _has_memory(agent: str) -> bool:
    """Whether any scope holds lessons or evaluations of ``agent``."""
    from kioku.lessons import scopes as sc

    return any(agent in sc.open_scope(scope, _root()).agents() for scope in sc.existing_scopes(_root()))


def _hint_known_agents(agent: str) -> None:
    """On stderr, for a name with no memory at all (a typo?): the agents that have some."""
    from kioku.lessons import scopes as sc
    from kioku.text.defang import defang

    known: set[str] = set()
    for scope in sc.existing_scopes(_root()):
        known.update(sc.open_scope(scope, _root()).agents())
    known.discard(agent)
    listed = ", ".join(sorted(known)[:10]) if known else "none yet"
    print(defang(f"kioku: note: agent {agent!r} has no lessons or evaluations here; agents with memory: {listed}"),
          file=sys.stderr)


def cmd_maintain(args: argparse.Namespace) -> int:
    from kioku.lessons import maintenance

    root = _root()
    if args.daily:
        report = maintenance.run_if_due(args.agent, root) if args.if_due else maintenance.run_daily(args.agent, root)
        if report is None:
            if args.json:
                _print_json({"agent": args.agent, "kind": "daily", "skipped": "not due"})
            else:
                print("daily maintenance not due")
            return 0
    elif args.weekly:
        report = maintenance.run_weekly(args.agent, root)
    else:
        report = maintenance.run_monthly(args.agent, root, older_than_days=args.older_than)
    if args.json:
        _print_json(report)
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
        _print_json(report)
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
        _print_json(report)
    else:
        print(f"{'(dry run) ' if args.dry_run else ''}rolled {args.agent} back to {report['to']}: removed "
              f"{len(report['removed'])} improvements, lifted {len(report['undeprecated'])} deprecations, "
              f"reverted {len(report['unpromoted'])} promotions, gave back {len(report['repromoted'])} "
              f"withdrawn promotions and reverted {len(report['uncross_validated'])} cross-validations")
        if report["archive"]:
            print(f"  removed improvements archived in {report['archive']}")
    return 0


def cmd_clone(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.rollback import clone

    from kioku.learning.evidence import copy_lessons

    report = clone(args.agent, args.to, _root())
    copy_lessons(report["renamed"])  # the clone's lessons keep the evidence behind their figures
    print(f"cloned {args.agent} to {args.to}: " +
          ", ".join(f"{k} {v}" for k, v in sorted(report["copied"].items())))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.exchange import export_agent

    text, out = export_agent(args.agent, args.format, Path(args.out) if args.out else None, _root())
    if out is None:  # printed for whoever reads it, Claude included: inert like every other output
        from kioku.text.defang import defang, defang_json

        shown = defang_json(text) if args.format == "json" else defang(text)
        sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
    else:
        print(f"exported {args.agent} to {out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from kioku.lessons.transfer.exchange import import_file

    from kioku.learning.evidence import copy_lessons

    report = import_file(Path(args.path), args.agent, _root())
    copy_lessons(report["renamed"])  # an edited lesson keeps the evidence it earned under its old text
    added = ", ".join(f"{k} {v}" for k, v in sorted(report["imported"].items()))
    print(f"imported into {report['agent']}: " + (f"new {added}" if added else "nothing new") +
          f"; existing lessons: {report['updated']} updated, {report['unchanged']} unchanged" +
          (f" ({report['skipped']} skipped: empty, below the confidence floor or repeated)"
           if report["skipped"] else ""))
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    from kioku.lessons.store import reachability
    from kioku.lessons import scopes as sc

    total = 0
    for scope in sc.existing_scopes(_root()):
        total += sc.open_scope(scope, _root()).sync()
    print(f"applied {total} pending journal entr{'y' if total == 1 else 'ies'}")
    if not args.verify:
        return 0
    still = 0
    for scope in sc.existing_scopes(_root()):
        store = sc.open_scope(scope, _root())
        if store.server:
            print(f"{scope}: the store is a Chroma server, which keeps its own index; not checked")
            continue
        checked, mended, lost = reachability.totals(store.reindex_unreachable())
        still += lost
        print(f"{scope}: {checked} record(s) checked; vector search reached "
              + ("all of them" if not (mended or lost) else
                 f"{checked - mended - lost}; indexed again: {mended}"
                 + (f"; still not reached: {lost} (run `kioku rebuild --scope {scope}`)" if lost else "")))
    return 1 if still else 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    from kioku.lessons import scopes as sc
    from kioku.infra.errors import KiokuError

    root = _root()
    wanted = ["global", "project"] if args.scope == "all" else [args.scope]
    for scope in wanted:
        if not sc.scope_exists(scope, root):
            print(f"{scope}: no agent-memory store here; nothing to rebuild")
            continue
        store = sc.open_scope(scope, root)
        if store.server:
            print(f"{scope}: the store is a Chroma server; rebuild it on the server side")
            continue
        if args.from_store:
            written = store.journal_from_store()
            print(f"{scope}: wrote the journal anew from the store ({written} records); "
                  f"what it replaced is kept in the newest replaced-* folder of {store.journal.dir}")
            continue
        if not store.journal.has_history() and not store.journal.pending_count():
            print(f"{scope}: the journal is empty; nothing to rebuild")
            continue
        damage = _journal_damage(store)
        if damage and not args.force:
            raise KiokuError(f"{scope}: not rebuilt: {damage}; a rebuild from the journal would lose them. Run "
                             f"`kioku rebuild --scope {scope} --from-store` to write the journal anew from the "
                             "store (or --force to rebuild anyway)")
        replayed, aside = store.recover()
        print(f"{scope}: rebuilt the agent-memory store from its journal ({replayed} entries replayed)"
              + (f"; the old files were moved to {aside}" if aside else ""))
    return 0


def _journal_damage(store) -> str:
    """What a rebuild from ``store``'s journal would lose, "" when nothing."""
    parts = []
    bad = store.journal.unreadable_lines()
    if bad:
        parts.append(f"{len(bad)} line(s) of {store.journal.path} cannot be read (line {bad[0]}"
                     + (" …" if len(bad) > 1 else "") + ")")
    try:
        beyond = store.records_beyond_journal()
    except Exception:  # noqa: BLE001 - a store that cannot be read is what rebuild is for
        beyond = {}
    if beyond:
        parts.append(f"the store holds {sum(beyond.values())} record(s) its journal lacks")
    return "; ".join(parts)


def cmd_restore(args: argparse.Namespace) -> int:
    from kioku.lessons.lesson_state import set_deprecated

    def reason(meta: dict) -> str:
        return f"restored by hand; was: {meta.get('decision_reason') or meta.get('deprecated_reason') or ''}"[:500]

    # the same change as the UI's Restore button; a missing or active lesson is a KiokuError,
    # printed by the CLI as "kioku: error: ..." with exit code 1
    _text, state = set_deprecated(args.agent, args.id, False, _root(), reason=reason, strict=True)
    print(f"restored {args.id}: {state} again; its evidence is kept and new turns decide anew")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rebuild", help="rebuild the agent-memory store from its journal")
    p.add_argument("--scope", default="all", choices=["all", "global", "project"])
    how = p.add_mutually_exclusive_group()
    how.add_argument("--from-store", action="store_true",
                     help="the other way round: write the journal anew from what the store holds (after the "
                          "journal was damaged or deleted)")
    how.add_argument("--force", action="store_true",
                     help="rebuild even when the store holds records the journal lacks (they are lost)")
    p.set_defaults(func=cmd_rebuild)

    p = sub.add_parser("learn", help="record a learned improvement for an agent")
    p.add_argument("--agent", required=True)
    p.add_argument("lesson")
    p.add_argument("--category", required=True)
    p.add_argument("--confidence", type=float, required=True)
    p.add_argument("--tags", default="", help="comma-separated")
    p.add_argument("--scope", default="auto", choices=["auto", "global", "project", "both"])
    p.add_argument("--from", dest="learned_from", default="manual",
                   choices=["manual", "user_feedback", "self_evaluation", "new_pattern"])
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_learn)

    p = sub.add_parser("improvements", help="retrieve an agent's improvements relevant to a task")
    p.add_argument("--agent", required=True)
    p.add_argument("task")
    p.add_argument("--limit", type=positive_int, default=5)
    p.add_argument("--json", action="store_true")
    p.add_argument("--session", help="record the returned ids as injected into this session")
    p.set_defaults(func=cmd_improvements)

    p = sub.add_parser("dashboard", help="show an agent's learning dashboard")
    p.add_argument("--agent", required=True)
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true")
    form.add_argument("--html", metavar="OUT", help="write a self-contained HTML report to OUT")
    p.set_defaults(func=cmd_dashboard)

    p = sub.add_parser("maintain", help="run daily/weekly/monthly maintenance")
    p.add_argument("--agent", required=True)
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--daily", action="store_true")
    when.add_argument("--weekly", action="store_true")
    when.add_argument("--monthly", action="store_true")
    p.add_argument("--if-due", action="store_true", help="daily only: skip unless a day has passed")
    p.add_argument("--older-than", type=float, default=90.0, help="monthly: archive evaluations older than DAYS")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_maintain)

    p = sub.add_parser("consolidate", help="consolidate lessons across agents")
    p.add_argument("--agents", help="comma-separated (default: every agent in the store)")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--scope", default="global", choices=["global", "project"])
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_consolidate)

    p = sub.add_parser("rollback", help="roll an agent's improvements back to a timestamp")
    p.add_argument("--agent", required=True)
    p.add_argument("--to", required=True, help="ISO-8601 time (UTC if no zone) or epoch seconds")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rollback)

    p = sub.add_parser("restore", help="bring a deprecated lesson back to active")
    p.add_argument("--agent", required=True)
    p.add_argument("id", help="the lesson's id (kioku dashboard --agent NAME --json lists them)")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("clone", help="copy an agent's collections (A/B testing)")
    p.add_argument("--agent", required=True)
    p.add_argument("--to", required=True)
    p.set_defaults(func=cmd_clone)

    p = sub.add_parser("export", help="export an agent's memory for review (Markdown/JSON)")
    p.add_argument("--agent", required=True)
    p.add_argument("--format", default="md", choices=["md", "json"])
    p.add_argument("--out")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="import an exported agent memory")
    p.add_argument("path")
    p.add_argument("--agent", help="import into this agent (default: the exported one)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("sync", help="apply pending journal entries to ChromaDB")
    p.add_argument("--verify", action="store_true",
                   help="then query every record with its own vector and index again those vector search misses")
    p.set_defaults(func=cmd_sync)
