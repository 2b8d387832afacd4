"""Public API of the memory-system (Markdown memory). Standard library only on import.

    remember(text, type=None, topic=None, project_root=None) -> SaveResult
    build_recall(project_root=None, budget=10000, query=None, withheld=None) -> str
    search(query, project_root=None, limit=10, archive=False, dense="auto") -> list[SearchHit]
    search_or_nearest(query, ..., nearest=3) -> (hits, nearest below the cut-off when no hit)
    forget(query=None, id=None, project_root=None) -> ForgetResult
    organize(project_root=None, apply=False, repair=False, older_than_days=None) -> OrganizeReport

Where memories go: type ``user`` (about the person) → the user-wide folder
``paths.user_memory_dir()``, followed across projects; every other type → the project's
``.agents/memory``. Both are recalled and searched (``kioku.memory.folders``, which the
modules behind this facade use directly: none of them imports the facade).

Project memory Kioku did not write on this machine reaches the agent only through
``kioku.memory.screen`` (recall, search and the save confirmations use it): with its git
provenance, or withheld until ``kioku trust`` when it asks the agent to act.

``remember`` (implemented in ``kioku.memory.save``, imported on first use so that recall
does not pay for it) is the UserPromptSubmit hook's save path, so it imports only the standard
library and Kioku's own stdlib modules (no yaml/frontmatter unless a hand-edited topic file
has nested YAML frontmatter). Rules applied on save, in order: refuse what must not be
stored (``guard``), classify, pick the topic, then under the folder lock: a memory that
contradicts older ones supersedes them (struck through in their topic file, removed from
the index, named in the new entry); a near-duplicate (same normalised text or token
Jaccard ≥ 0.8, Japanese via character bigrams) is not added again. At the index limit
(200 lines) the lines are kept by type priority (feedback first, the newest within a type): the
new memory takes the line of the oldest entry of the lowest-ranked type, or, ranking lowest
itself, is saved in its topic file without one; a warning points to ``kioku organize``, and no
memory is dropped from its topic file.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs the hook ~3 ms of start-up
    from pathlib import Path

    from kioku.memory.forget import ForgetResult
    from kioku.memory.organize import OrganizeReport
    from kioku.memory.save import SaveResult
    from kioku.memory.search import SearchHit
    from kioku.memory.store import MemoryDir

# The save machinery lives in kioku.memory.save and is imported on first use, so recall
# (SessionStart) imports only what reading needs; these names stay available here.
_FROM_SAVE = ("SaveResult", "DUPLICATE_JACCARD", "is_duplicate", "_unrelated_file")


def __getattr__(name: str):
    if name in _FROM_SAVE:
        from kioku.memory import save

        return getattr(save, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def memory_dirs(project_root: Path | None = None) -> list[MemoryDir]:
    """[user, project] folders (one if the project *is* the home folder); see kioku.memory.folders."""
    from kioku.memory.folders import memory_dirs as _memory_dirs

    return _memory_dirs(project_root)


def target_dir(type_: str, project_root: Path | None = None) -> MemoryDir:
    from kioku.memory.folders import target_dir as _target_dir

    return _target_dir(type_, project_root)


def remember(text: str, type: str | None = None, topic: str | None = None,
             project_root: Path | None = None) -> SaveResult:
    """Save one memory; raises SecretRejected, MemoryRejected, UsageError or KiokuError."""
    from kioku.memory.save import remember as _remember

    return _remember(text, type=type, topic=topic, project_root=project_root)


def build_recall(project_root: Path | None = None, budget: int = 10000, query: str | None = None,
                 withheld: list | None = None) -> str:
    from kioku.memory.recall import build_recall as _build

    return _build(project_root=project_root, budget=budget, query=query, withheld=withheld)


def search(query: str, project_root: Path | None = None, limit: int = 10, archive: bool = False,
           dense: bool | str = "auto") -> list[SearchHit]:
    from kioku.memory.search import search as _search

    return _search(query, project_root=project_root, limit=limit, archive=archive, dense=dense)


def search_or_nearest(query: str, project_root: Path | None = None, limit: int = 10, archive: bool = False,
                      dense: bool | str = "auto", nearest: int = 3) -> tuple[list[SearchHit], list[SearchHit]]:
    """(hits, nearest): with no hit, the best-ranked memories below the relevance cut-off."""
    from kioku.memory.search import search_or_nearest as _search_or_nearest

    return _search_or_nearest(query, project_root=project_root, limit=limit, archive=archive, dense=dense,
                              nearest=nearest)


def forget(query: str | None = None, id: str | None = None, project_root: Path | None = None,
           scope: str | None = None) -> ForgetResult:
    from kioku.memory.forget import forget as _forget

    return _forget(query=query, id=id, project_root=project_root, scope=scope)


def organize(project_root: Path | None = None, apply: bool = False, repair: bool = False,
             older_than_days: int | None = None) -> OrganizeReport:
    from kioku.memory.organize import organize as _organize

    return _organize(project_root=project_root, apply=apply, repair=repair, older_than_days=older_than_days)
