"""The everyday memory-system commands: remember, recall, search, organize, forget.

    kioku remember TEXT... [--type user|project|feedback|reference] [--topic NAME] [--json]
    kioku recall [--budget 10000] [--query WORDS] [--verbose] [--json]
    kioku search QUERY... [--limit 10] [--archive] [--lexical] [--json]
    kioku organize [--apply] [--repair] [--older-than DAYS] [--json]
    kioku forget [QUERY...] [--id ID] [--scope user|project] [--json]

``remember`` prints ``Saved to memory: <summary>`` (exit 0), ``Already in memory: …`` for a
near-duplicate (exit 0); refusals (secrets, transcripts, long code) exit non-zero via
KiokuError. Warnings (index near or at its limit, repaired files) go to stderr. ``search``
prints ``path:line: text`` per hit. Library imports happen inside the functions so that
registering these commands costs nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from kioku.cli.args import add_json, positive_int, print_json

TYPES = ("user", "project", "feedback", "reference")


def _oserrors_as_kioku_errors(func):
    """A permission problem or a full disk becomes one clear line, not a traceback."""

    def wrapper(args: argparse.Namespace) -> int:
        from kioku.infra.errors import KiokuError

        try:
            return func(args)
        except BrokenPipeError:
            raise  # the reader went away: the CLI stops quietly
        except KiokuError:
            raise  # already one line (a full disk says what was kept)
        except OSError as exc:
            where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
            raise KiokuError(f"{exc.strerror or exc}{where}; the command did not complete") from None

    wrapper.__name__ = func.__name__
    return wrapper


def setup_remember(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", nargs="+", help="what to remember ('-' reads standard input)")
    p.add_argument("--type", choices=TYPES,
                   help="memory type (default: guessed from the wording); user memories go to the user-wide folder")
    p.add_argument("--topic", help="topic file name, e.g. release-process (default: chosen by type)")
    add_json(p)
    p.set_defaults(func=cmd_remember)


def setup_recall(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=int, default=10000, help="maximum characters (default 10000)")
    p.add_argument("--query", help="rank entries related to these words first")
    p.add_argument("--verbose", action="store_true",
                   help="also show each memory's search enrichment (used by search only, never recalled)")
    add_json(p, "the memory")
    p.set_defaults(func=cmd_recall)


def setup_search(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", nargs="+")
    p.add_argument("--limit", type=positive_int, default=10)
    p.add_argument("--archive", action="store_true",
                   help="also search history: memory/archive/ and superseded entries (marked)")
    p.add_argument("--lexical", action="store_true", help="keyword ranking only (no embedding model)")
    add_json(p, "the hits")
    p.set_defaults(func=cmd_search)


def setup_organize(p: argparse.ArgumentParser) -> None:
    p.add_argument("--apply", action="store_true", help="carry out the proposals (moves entries to archive/)")
    p.add_argument("--repair", action="store_true", help="rebuild MEMORY.md from the topic files, fix damaged files")
    p.add_argument("--older-than", type=int, metavar="DAYS", help="also propose archiving entries older than DAYS")
    add_json(p, "the report")
    p.set_defaults(func=cmd_organize)


def setup_forget(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", nargs="*", help="words identifying exactly one memory")
    p.add_argument("--id", help="the memory id (shown by `kioku search` and in topic files)")
    p.add_argument("--scope", choices=["user", "project"], help="look only in this memory folder")
    add_json(p)
    p.set_defaults(func=cmd_forget)


def _show(path: str) -> str:
    """Path relative to the working directory when inside it, else with ~ for the home."""
    p = Path(path)
    try:
        return os.path.relpath(p) if p.resolve().is_relative_to(Path.cwd().resolve()) else _home(p)
    except (OSError, ValueError):
        return path


def _home(p: Path) -> str:
    from kioku.infra.paths import user_home

    try:
        return "~/" + str(p.relative_to(user_home()))
    except ValueError:
        return str(p)


def _warn(lines: list[str]) -> None:
    for line in lines:
        print(f"kioku: warning: {line}", file=sys.stderr)


def _without_request_words(text: str) -> str:
    """The note without the words asking to keep it, when the whole text is one such request
    ("remember that we use pnpm", "覚えておいて: pnpmを使う", "pnpmを使うことを覚えておいて"), as
    the prompt hook saves it; any other text is kept exactly as given."""
    from kioku.memory.triggers import detect_remember

    request = detect_remember(text)
    if request is None:
        return text
    at = text.find(request.content)
    if at < 0:
        return text  # cleaned in a way that is not a plain cut: keep the user's words
    head = text[:at].rstrip(" :：,、-—\t\n")
    tail = text[at + len(request.content):].strip(" .!。！\t\n")
    rest = f"{head} {tail}".strip()
    if any(mark in rest for mark in ".!?。！？\n") or len(rest) > 40 or len(rest.split()) > 6:
        return text  # more than the request words ("We use pnpm. Remember that ..."): keep it all
    return request.content


@_oserrors_as_kioku_errors
def cmd_remember(args: argparse.Namespace) -> int:
    from kioku.memory.api import remember

    text = sys.stdin.read() if args.text == ["-"] else " ".join(args.text)
    result = remember(_without_request_words(text), type=args.type, topic=args.topic)
    if result.status != "duplicate":
        from kioku.enrich.wake import wake_worker

        wake_worker()  # the new memory's search enrichment, where a model may write it
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
        _warn(result.warnings)
        return 0
    where = _show(result.topic_file)
    if result.status == "duplicate":
        print(f"Already in memory: {result.summary} ({where})")
    else:
        print(f"Saved to memory: {result.summary} ([{result.type}] {where})")
        for old in result.superseded:
            print(f"Superseded: {old}")
    _warn(result.warnings)
    return 0


@_oserrors_as_kioku_errors
def cmd_recall(args: argparse.Namespace) -> int:
    from kioku.memory.recall import build_recall, notices

    text = build_recall(budget=args.budget, query=args.query)
    if args.json:
        print_json({"text": text})
    elif text:
        print(text)
    if args.verbose:
        from kioku.enrich.show import enrichment_report
        from kioku.text.defang import defang

        print(defang(enrichment_report()))
    for note in notices:  # what recall had to repair on the fly
        print(f"kioku: note: {note}", file=sys.stderr)
    return 0


@_oserrors_as_kioku_errors
def cmd_search(args: argparse.Namespace) -> int:
    from kioku.memory.search import search_or_nearest

    query = " ".join(args.query)
    if not query.strip():
        from kioku.infra.errors import UsageError

        raise UsageError("search needs words to look for, for example: kioku search package manager")
    shown = repr(query if len(query) <= 80 else query[:79] + "…")
    hits, nearest = search_or_nearest(query, limit=args.limit, archive=args.archive,
                                      dense=False if args.lexical else "auto", nearest=0 if args.json else 3)
    if args.json:
        from kioku.text.defang import defang_json

        print(defang_json(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2)))
        return 0
    from kioku.text.defang import defang

    if not hits and not nearest:
        print(f"No memories match {shown}.")
        return 0
    if not hits:
        print(f"No close match for {shown}. Nearest memories, below the relevance cut-off "
              "(probably not what was asked):")
    elif all(h.semantic for h in hits):
        print("No memory shares the query's words; close in meaning:")
    for hit in hits or nearest:
        print(f"{_show(hit.file)}:{hit.line}: {defang(hit.text)}")
        if hit.context and hits:
            print(f"    index {_show(hit.context_file)}:{hit.context_line}: {defang(hit.context)}")
        if hit.enrichment:
            print(f"    found through its search enrichment (model-written): {defang(hit.enrichment)}")
    return 0


@_oserrors_as_kioku_errors
def cmd_organize(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kioku.memory.index import MAX_LINES, WARN_LINES
    from kioku.memory.organize import organize

    report = organize(apply=args.apply, repair=args.repair, older_than_days=args.older_than)
    if args.json:
        print(json.dumps(asdict(report), ensure_ascii=False, indent=2))
        return 0
    for folder in report.folders:
        if folder.status == "empty":
            print(f"{folder.scope} memory: none yet ({_show(folder.path)})")
            continue
        if folder.status == "unreadable":
            print(f"{folder.scope} memory ({_show(folder.path)}): MEMORY.md is unreadable (see note below)")
            continue
        if folder.status == "missing":
            print(f"{folder.scope} memory ({_show(folder.path)}): MEMORY.md is missing; "
                  "`kioku organize --repair` (or the next save) rebuilds it from the topic files")
            for name, count in folder.topics.items():
                print(f"  {name}: {count} active")
            continue
        print(f"{folder.scope} memory ({_show(folder.path)}): MEMORY.md {folder.index_lines}/{MAX_LINES} lines, "
              f"{folder.indexed} indexed entries" + (f", {folder.unindexed} not in the index" if folder.unindexed else "")
              + (f", {folder.hand_written} written by hand" if folder.hand_written else ""))
        if folder.out_of_date:
            one = folder.out_of_date == 1
            print(f"  {folder.out_of_date} line{'' if one else 's'} of MEMORY.md point{'s' if one else ''} to no "
                  f"memory in {'its' if one else 'their'} topic file (an entry edited or removed by hand, or a line "
                  f"written by hand); `kioku organize --repair` removes {'it' if one else 'them'} (keeping a copy of "
                  "MEMORY.md) and indexes the entries as they are now")
        if folder.hand_written and folder.index_lines >= WARN_LINES:
            print(f"  hand-written lines fill much of the index: when it would pass {MAX_LINES} lines, Kioku moves "
                  "them to MEMORY.md.hand-written-<time> beside it")
        if folder.status == "full":
            print("  index is full: a new memory takes the line of the oldest entry of the lowest-ranked type "
                  "(feedback ranks highest, then user, project, reference); the entries left out stay in "
                  "their topic files and are found by `kioku search`. To make room: `kioku forget` what is no "
                  "longer true, or `kioku organize --older-than DAYS` to propose archiving old entries")
        elif folder.status == "unindexed":
            print(f"  {folder.unindexed} entr{'y is' if folder.unindexed == 1 else 'ies are'} missing from "
                  "MEMORY.md although it has room; run `kioku organize --repair` to add them back")
        elif folder.status == "warn":
            print(f"  index is past {WARN_LINES} lines: consider merging or archiving")
        for name, count in folder.topics.items():
            print(f"  {name}: {count} active")
    for notice in report.notices:
        print(f"note: {notice}")
    if report.applied:
        print("Done:")
        for line in report.applied:
            print(f"  {line}")
    elif report.proposals:
        print("Proposals (nothing changes until you run `kioku organize --apply`):")
        for prop in report.proposals:
            names = " + ".join(f"{i} ({s[:60]})" for i, s in zip(prop.ids, prop.summaries))
            print(f"  {prop.kind} [{prop.scope}/{prop.topic}] {names}: {prop.reason}")
    elif any(f.status in ("missing", "unreadable", "unindexed") or f.skipped for f in report.folders):
        print("No merges or archiving to propose; see above.")
    else:
        print("Nothing to organize.")
    return 0


@_oserrors_as_kioku_errors
def cmd_forget(args: argparse.Namespace) -> int:
    from kioku.memory.forget import forget

    result = forget(query=" ".join(args.query) or None, id=args.id, scope=args.scope)
    if args.json:
        from dataclasses import asdict

        print_json(asdict(result))
        return 0
    print(f"Forgot: {result.summary} (moved to {_show(result.archive_file)})")
    return 0
