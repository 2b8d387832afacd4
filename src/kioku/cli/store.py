"""``kioku store``: the agent-memory store's upkeep.

    kioku store sync [--verify] [--json]
    kioku store rebuild [--scope all|global|project] [--from-store | --force] [--json]

``sync`` applies the journal entries written while ChromaDB was busy or unavailable; with
``--verify`` it also indexes again the records vector search no longer reaches (exit 1 if some
stay out of reach). ``rebuild`` replays the write-ahead journal into new collections, or with
``--from-store`` writes the journal anew from the store; it refuses (exit 1) when the rebuild
would lose records, unless ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kioku.cli.args import Verb, add_json, add_verbs, print_json


def _root() -> Path:
    from kioku.infra.paths import find_project_root

    return find_project_root()


def cmd_sync(args: argparse.Namespace) -> int:
    from kioku.lessons.store import reachability
    from kioku.lessons import scopes as sc

    total = 0
    for scope in sc.existing_scopes(_root()):
        total += sc.open_scope(scope, _root()).sync()
    report: dict = {"applied": total}
    _say(args, f"applied {total} pending journal entr{'y' if total == 1 else 'ies'}")
    if not args.verify:
        return _report(args, report, 0)
    still = 0
    report["verified"] = verified = {}
    for scope in sc.existing_scopes(_root()):
        store = sc.open_scope(scope, _root())
        if store.server:
            verified[scope] = {"server": True}
            _say(args, f"{scope}: the store is a Chroma server, which keeps its own index; not checked")
            continue
        checked, mended, lost = reachability.totals(store.reindex_unreachable())
        still += lost
        verified[scope] = {"checked": checked, "indexed_again": mended, "not_reached": lost}
        _say(args, f"{scope}: {checked} record(s) checked; vector search reached "
             + ("all of them" if not (mended or lost) else
                f"{checked - mended - lost}; indexed again: {mended}"
                + (f"; still not reached: {lost} (run `kioku store rebuild --scope {scope}`)" if lost else "")))
    return _report(args, report, 1 if still else 0)


def cmd_rebuild(args: argparse.Namespace) -> int:
    from kioku.infra.errors import KiokuError

    root = _root()
    report: dict = {"scopes": {}}
    for scope in ["global", "project"] if args.scope == "all" else [args.scope]:
        try:
            report["scopes"][scope] = _rebuild_scope(args, scope, root)
        except KiokuError as exc:
            if not args.json:
                raise
            # the scopes done before the refusal stay in the report, beside the error
            print(f"kioku: error: {exc}", file=sys.stderr)
            return _report(args, {**report, "error": str(exc), "exit_code": exc.exit_code}, exc.exit_code)
    return _report(args, report, 0)


def _rebuild_scope(args: argparse.Namespace, scope: str, root: Path) -> dict:
    """Rebuild one scope's store (or its journal, ``--from-store``); what was done, also said in text."""
    from kioku.infra.errors import KiokuError
    from kioku.lessons import scopes as sc

    if not sc.scope_exists(scope, root):
        _say(args, f"{scope}: no agent-memory store here; nothing to rebuild")
        return {"done": "nothing", "why": "no store"}
    store = sc.open_scope(scope, root)
    if store.server:
        _say(args, f"{scope}: the store is a Chroma server; rebuild it on the server side")
        return {"done": "nothing", "why": "chroma server"}
    if args.from_store:
        written = store.journal_from_store()
        _say(args, f"{scope}: wrote the journal anew from the store ({written} records); "
             f"what it replaced is kept in the newest replaced-* folder of {store.journal.dir}")
        return {"done": "journal written from the store", "records": written, "replaced_in": str(store.journal.dir)}
    if not store.journal.has_history() and not store.journal.pending_count():
        _say(args, f"{scope}: the journal is empty; nothing to rebuild")
        return {"done": "nothing", "why": "empty journal"}
    damage = _journal_damage(store)
    if damage and not args.force:
        raise KiokuError(f"{scope}: not rebuilt: {damage}; a rebuild from the journal would lose them. Run "
                         f"`kioku store rebuild --scope {scope} --from-store` to write the journal anew from the "
                         "store (or --force to rebuild anyway)")
    replayed, aside = store.recover()
    _say(args, f"{scope}: rebuilt the agent-memory store from its journal ({replayed} entries replayed)"
         + (f"; the old files were moved to {aside}" if aside else ""))
    return {"done": "rebuilt from the journal", "replayed": replayed, "moved_aside": str(aside) if aside else None}


def _say(args: argparse.Namespace, line: str) -> None:
    """A line of the text report, printed as the work goes (nothing with ``--json``)."""
    if not args.json:
        print(line)


def _report(args: argparse.Namespace, report: dict, exit_code: int) -> int:
    if args.json:
        print_json(report)
    return exit_code


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


def _sync_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verify", action="store_true",
                   help="then query every record with its own vector and index again those vector search misses")
    add_json(p, "the report")


def _rebuild_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", default="all", choices=["all", "global", "project"])
    how = p.add_mutually_exclusive_group()
    how.add_argument("--from-store", action="store_true",
                     help="the other way round: write the journal anew from what the store holds (after the "
                          "journal was damaged or deleted)")
    how.add_argument("--force", action="store_true",
                     help="rebuild even when the store holds records the journal lacks (they are lost)")
    add_json(p, "the report")


VERBS = {
    "sync": Verb("apply pending journal entries to ChromaDB", _sync_arguments, cmd_sync),
    "rebuild": Verb("rebuild the agent-memory store from its journal", _rebuild_arguments, cmd_rebuild),
}


def setup(parser: argparse.ArgumentParser) -> None:
    add_verbs(parser, VERBS)
