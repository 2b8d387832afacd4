"""``kioku trust``: review and allow project memories withheld from the agent (in the spirit of
``direnv allow``).

    kioku trust                      list what is withheld (and what was trusted)
    kioku trust ID [ID...]           trust these memories (an id, or n-... for a note)
    kioku trust --file NAME          trust every withheld memory of a topic file (or MEMORY.md)
    kioku trust --commit SHA         trust every withheld memory last changed in that commit
    kioku trust --all                trust everything withheld now
    kioku trust --revoke ID [ID...]  take a trust back
    kioku trust --json               the list as JSON

A project memory that Kioku did not write on this machine and that asks the agent to run
commands, fetch or pipe URLs, read credentials or ignore its instructions is withheld from every
session until it is trusted; a trust holds for its exact content (an edit withholds it again).

The memories' text is shown only to a person: when standard output is a terminal and the command
does not run inside Claude Code (``CLAUDECODE`` set: the agent's Bash tool, or ``!`` commands,
whose output reaches the model). For the same reason trusting refuses to run inside Claude Code:
the agent must not allow what was kept from it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from kioku.cli.args import add_json


def setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", metavar="ID", help="memory ids to trust (as `kioku trust` lists them)")
    p.add_argument("--file", metavar="NAME", help="trust every withheld memory of this topic file or MEMORY.md")
    p.add_argument("--commit", metavar="SHA", help="trust every withheld memory last changed in this commit")
    p.add_argument("--all", action="store_true", help="trust every memory withheld now")
    p.add_argument("--revoke", action="store_true", help="take the trust of the ids back instead")
    add_json(p, "the list")
    p.set_defaults(func=cmd_trust)


def _inside_claude_code() -> bool:
    return bool(os.environ.get("CLAUDECODE"))


def _for_a_person() -> bool:
    """Whether what is printed is read by a person only (a terminal outside Claude Code)."""
    try:
        return sys.stdout.isatty() and not _inside_claude_code()
    except (AttributeError, ValueError):
        return False


def _where(verdict) -> str:
    return f"{verdict.file}:{verdict.line}"


def _source(verdict) -> str:
    return f"from git: {verdict.origin.describe()}" if verdict.origin else "not from git (no commit knows it)"


def _text(verdict) -> str:
    from kioku.text.defang import defang_line
    from kioku.text.secrets import redact

    body = verdict.summary if not verdict.text or verdict.text == verdict.summary else f"{verdict.summary} — {verdict.text}"
    shown = defang_line(redact(body))
    return shown if len(shown) <= 400 else shown[:399] + "…"


def _matched(verdict) -> str:
    """The words the rule set found (folded to lower case), for the person deciding."""
    from kioku.text.defang import defang_line

    return defang_line(verdict.phrase)


def cmd_trust(args: argparse.Namespace) -> int:
    from kioku.infra.errors import UsageError
    from kioku.infra.paths import find_project_root

    root = find_project_root()
    acting = bool(args.ids or args.file or args.commit or args.all)
    if args.revoke and not args.ids:
        raise UsageError("--revoke takes the ids of trusted memories: `kioku trust --revoke ID`")
    if acting or args.revoke:
        if _inside_claude_code():
            raise UsageError("kioku trust changes what the agent is shown, so it does not run inside Claude Code "
                             "(the agent could allow what was kept from it); run it in your own terminal")
        return _revoke(root, args.ids) if args.revoke else _allow(root, args)
    return _list(root, args.json)


def _allow(root, args: argparse.Namespace) -> int:
    from kioku.memory.allow import allow

    done = allow(root, refs=args.ids, file=args.file, commit=args.commit, everything=args.all)
    for verdict in done:
        print(f"Trusted {verdict.ref} ({_where(verdict)}, {_source(verdict)}): it reaches the agent from the next "
              "session on, until its text changes")
    return 0


def _revoke(root, ids: list[str]) -> int:
    from kioku.memory.allow import revoke

    for verdict in revoke(root, ids):
        print(f"Took back the trust of {verdict.ref} ({_where(verdict)}): it is withheld from the agent again")
    return 0


def _list(root, as_json: bool) -> int:
    from kioku.memory.screen import ProjectScreen

    screen = ProjectScreen(root)
    withheld = screen.withheld()
    trusted = screen.trusted_now()
    screen.save()
    person = _for_a_person()
    if as_json:
        from kioku.text.defang import defang_json

        rows = [{"id": v.ref, "file": v.file, "line": v.line, "asks": list(v.kinds), "why": v.why(),
                 "archived": v.archived, "trusted": v.trusted,
                 "origin": None if not v.origin else {"commit": v.origin.commit, "author": v.origin.author,
                                                      "email": v.origin.email, "date": v.origin.date,
                                                      "changed_since": v.origin.changed},
                 **({"text": _text(v), "matched": _matched(v)} if person else {})} for v in withheld + trusted]
        print(defang_json(json.dumps(rows, ensure_ascii=False, indent=2)))
        return 0
    if not withheld:
        print("Nothing is withheld from the agent in this project.")
    else:
        one = len(withheld) == 1
        print(f"Withheld from the agent ({len(withheld)}): project memor{'y' if one else 'ies'} not written by Kioku "
              f"on this machine that ask{'s' if one else ''} it to act.")
        for verdict in withheld:
            print(f"  {verdict.ref}  {_where(verdict)}{'  (archived)' if verdict.archived else ''}  {_source(verdict)}")
            print(f"      {verdict.why()}")
            if person:
                print(f"      {_text(verdict)}")
                print(f"      matched: {_matched(verdict)}")
        if not person:
            print("Their text is shown only when `kioku trust` runs in your own terminal (or in `kioku ui`), never "
                  "where the agent could read it.")
        print("Allow one: kioku trust ID · a file: kioku trust --file NAME · a commit: kioku trust --commit SHA · "
              "all: kioku trust --all (run it yourself, in your own terminal)")
    if trusted:
        print(f"Trusted ({len(trusted)}): " + ", ".join(f"{v.ref} ({_where(v)})" for v in trusted)
              + "; `kioku trust --revoke ID` takes a trust back")
    return 0
