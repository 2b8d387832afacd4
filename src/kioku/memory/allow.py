"""Trusting withheld project memories (``kioku trust`` and the web UI's Trust button).

``allow(project_root, refs=(), file=None, commit=None, everything=False, digests=())`` trusts the
memories withheld now that match (an id or ``n-`` note reference, a prefix of at least four
characters; every withheld memory of a file; of a commit; all of them; or exact digests) and
returns them. Each trust is bound to the memory's content digest (``kioku.memory.trusted``).
``revoke(project_root, refs)`` takes trusts back. Both raise ``KiokuError`` with one line when
nothing matches, and change nothing then.
"""

from __future__ import annotations

from pathlib import Path

from kioku.infra.errors import KiokuError, UsageError
from kioku.memory.screen import ProjectScreen, Verdict
from kioku.memory.trusted import revoke as _revoke
from kioku.memory.trusted import trust
from kioku.infra import clock

MIN_PREFIX = 4


def _by_ref(found: list[Verdict], ref: str, what: str) -> list[Verdict]:
    ref = ref.strip()
    if len(ref) < MIN_PREFIX:
        raise UsageError(f"{ref!r} is too short to name a memory: give at least {MIN_PREFIX} characters of its id")
    exact = [v for v in found if v.ref == ref]
    matched = exact or [v for v in found if v.ref.startswith(ref)]
    if not matched:
        raise KiokuError(f"no {what} memory has id {ref!r}; `kioku trust` lists them; nothing was changed")
    if len({v.ref for v in matched}) > 1:
        listed = ", ".join(sorted({v.ref for v in matched})[:6])
        raise KiokuError(f"{ref!r} names several {what} memories ({listed}); give more of the id; nothing was changed")
    return matched


def _file_name(name: str) -> str:
    name = name.strip().removeprefix(".agents/memory/")
    return name if name.endswith(".md") else name + ".md"


def allow(project_root: Path | str, refs: tuple[str, ...] | list[str] = (), file: str | None = None,
          commit: str | None = None, everything: bool = False, digests: tuple[str, ...] | list[str] = ()
          ) -> list[Verdict]:
    screen = ProjectScreen(project_root)
    withheld = screen.withheld()
    if not withheld:
        raise KiokuError("no project memory is withheld from the agent here; nothing was changed")
    chosen: list[Verdict] = []
    for ref in refs:
        chosen += _by_ref(withheld, ref, "withheld")
    if file:
        name = _file_name(file)
        picked = [v for v in withheld if v.file == name]
        if not picked:
            raise KiokuError(f"no withheld memory is in {name}; nothing was changed")
        chosen += picked
    if commit:
        sha = commit.strip().lower()
        if len(sha) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in sha):
            raise UsageError(f"{commit!r} is not a commit: give at least {MIN_PREFIX} hex digits of it")
        picked = [v for v in withheld if v.origin and v.origin.commit.startswith(sha)]
        if not picked:
            raise KiokuError(f"no withheld memory was last changed in commit {sha}; nothing was changed")
        chosen += picked
    if digests:
        picked = [v for v in withheld if v.digest in set(digests)]
        if not picked:
            raise KiokuError("that memory is no longer withheld as it was (changed or trusted since); nothing "
                             "was changed")
        chosen += picked
    if everything:
        chosen += withheld
    if not chosen:
        raise UsageError("say which memory to trust: an id, --file NAME, --commit SHA or --all")
    unique = list({v.digest: v for v in chosen}.values())
    at = clock.iso_z()
    trust(screen.root, {v.digest: {"id": v.ref, "file": v.file, "at": at,
                                   "commit": v.origin.commit if v.origin else ""} for v in unique})
    return unique


def revoke(project_root: Path | str, refs: tuple[str, ...] | list[str]) -> list[Verdict]:
    screen = ProjectScreen(project_root)
    trusted = screen.trusted_now()
    chosen: list[Verdict] = []
    for ref in refs:
        chosen += _by_ref(trusted, ref, "trusted")
    if not chosen:
        raise UsageError("say which trusted memory to take the trust back from: its id")
    _revoke(screen.root, {v.digest for v in chosen})
    return chosen
