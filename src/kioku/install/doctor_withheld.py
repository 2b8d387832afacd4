"""``kioku doctor``'s check of project memories withheld from the agent (``kioku.memory.screen``).

A project memory Kioku did not write on this machine that asks the agent to act is kept out of
every session until the user trusts it with ``kioku trust``. The check lists each one (id, file,
provenance and what it asks for, never its text: doctor's output may reach the agent) as a
warning, and otherwise says how many memories from elsewhere are shown with their provenance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

MAX_LISTED = 10


def check_withheld(root: Path, add: Callable[..., None]) -> None:
    from kioku.memory.screen import ProjectScreen

    screen = ProjectScreen(root)
    if screen.exempt:
        return
    try:
        withheld = screen.withheld()
        foreign = sum(1 for v in screen.everything() if v.foreign and not v.withheld and not v.archived)
    except Exception as exc:  # noqa: BLE001 - doctor reports, it does not stop
        add("memory trust", False, f"could not screen the project memory: {type(exc).__name__}: {exc}")
        return
    screen.save()
    if not withheld:
        add("memory trust", True, "no project memory is withheld from the agent"
            + (f"; {foreign} not written by Kioku here {'is' if foreign == 1 else 'are'} shown with "
               "their provenance" if foreign else ""))
        return
    listed = []
    for verdict in withheld[:MAX_LISTED]:
        origin = f"from git: {verdict.origin.describe()}" if verdict.origin else "not from git"
        listed.append(f"{verdict.ref} ({verdict.file}:{verdict.line}, {origin}) {verdict.why()}")
    more = f"; and {len(withheld) - MAX_LISTED} more" if len(withheld) > MAX_LISTED else ""
    one = len(withheld) == 1
    add("memory trust", True, f"{len(withheld)} project memor{'y is' if one else 'ies are'} withheld from the agent "
        f"(not written by Kioku on this machine, asking it to act): {'; '.join(listed)}{more}. Read "
        f"{'it' if one else 'them'} with `kioku trust` in your own terminal (or in `kioku ui`), allow with "
        "`kioku trust ID` (or --file NAME, --commit SHA, --all)", warn=True)
