"""Global vs project scope for agent improvements, and how to open each scope's store.

- global: ``${CLAUDE_CONFIG_DIR:-~/.claude}/chroma_data`` (lessons that travel between projects);
- project: ``<project>/.claude/chroma_data`` with collections named after the project's stable
  identity (git remote or root path; see ``kioku.infra.paths.project_identity``).

Scope by category (``--scope`` overrides): :data:`GLOBAL_CATEGORIES` → global,
:data:`PROJECT_CATEGORIES` → project, anything else → both; a lesson that names something of one
machine (a URL, an absolute path, a login at a host; ``kioku.text.placeholders.names_machine``)
stays in the project whatever its category, and so does one that names a file of the project by
its relative path (``names_project_file``). Retrieval reads project first.

Ids are deterministic: ``imp_`` + sha256(agent, scope, normalised lesson)[:20], so learning the
same lesson twice (case, spacing, trailing punctuation aside) updates one record.

This module is stdlib-only at import time; chromadb is reached through
``kioku.lessons.store.client`` inside functions.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from kioku.infra import paths
from kioku.infra.names import normalise_lesson, safe_name  # noqa: F401 - re-exported
from kioku.infra.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from kioku.lessons.store.client import AgentStore

SCOPES = ("project", "global")  # retrieval order: project first
GLOBAL_CATEGORIES = frozenset(
    {"search_strategy", "error_handling", "code_quality", "testing_patterns", "documentation_style"}
)
PROJECT_CATEGORIES = frozenset(
    {"naming_conventions", "architecture_patterns", "api_usage", "domain_terminology"}
)
_CATEGORY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def normalise_category(category: str) -> str:
    from kioku.text.secrets import ensure_storable

    ensure_storable(category or "", what="the category")  # before it is echoed in any message
    cat = re.sub(r"[\s\-]+", "_", (category or "").strip().lower())
    if not _CATEGORY_RE.match(cat):
        raise UsageError(f"invalid category {category!r}: use letters, digits and underscores")
    return cat


def scopes_for(category: str, scope: str = "auto", lesson: str = "") -> list[str]:
    """The scopes a lesson of ``category`` is stored in (``scope`` auto|global|project|both).

    With ``auto``, a ``lesson`` that names something of this machine (an absolute or home path,
    a URL, a host, a login at a host) or a file of this project by its relative path
    ("src/app/container.py") stays in the project scope whatever its category: it would mean
    nothing (or leak details) in another project."""
    scope = (scope or "auto").lower()
    if scope == "both":
        return ["global", "project"]
    if scope in ("global", "project"):
        return [scope]
    if scope != "auto":
        raise UsageError(f"invalid scope {scope!r}: use global, project, both or auto")
    cat = normalise_category(category)
    if lesson:
        from kioku.text.placeholders import names_machine, names_project_file

        if names_machine(lesson) or names_project_file(lesson):
            return ["project"]
    if cat in GLOBAL_CATEGORIES:
        return ["global"]
    if cat in PROJECT_CATEGORIES:
        return ["project"]
    return ["global", "project"]




def improvement_id(agent: str, scope: str, lesson: str) -> str:
    key = "\x1f".join((agent, scope, normalise_lesson(lesson)))
    return "imp_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def request_key(agent: str, scope: str, lesson: str, *fields: object) -> str:
    """The idempotency key of one learn request: the target record and everything the request
    asks (so a retry of it matches and a request that asks something else does not)."""
    import json

    body = json.dumps([agent, scope, normalise_lesson(lesson), *fields], sort_keys=True, default=str)
    return "learn-" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:24]


def validate_agent(agent: str) -> str:
    from kioku.text.secrets import ensure_storable

    agent = (agent or "").strip()
    # An agent name becomes a collection name, a digest file name and journal entries.
    ensure_storable(agent, what="the agent name")
    if not agent or len(agent) > 64 or not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", agent):
        raise UsageError(f"invalid agent name {agent!r}: use letters, digits, '.', '_' or '-'")
    return agent


def chroma_dir(scope: str, project_root: Path | None = None) -> Path:
    if scope == "global":
        return paths.global_chroma_dir()
    return paths.project_chroma_dir(project_root or paths.find_project_root())


def scope_exists(scope: str, project_root: Path | None = None) -> bool:
    """Whether reading ``scope`` can find anything (so reads never create an empty store)."""
    from kioku.infra.config import load_config

    try:
        cfg = load_config(project_root)
    except Exception:  # a broken config file is reported by the writers, not by reads
        cfg = None
    if cfg is not None and cfg.chroma_host:
        return True
    from kioku.lessons.store.journal import journal_dir

    # the journal alone is enough: a deleted Chroma folder is rebuilt from it on first use
    folder = chroma_dir(scope, project_root)
    return folder.is_dir() or journal_dir(folder).is_dir()


_STORES: dict[tuple[str, str, str], "AgentStore"] = {}


def open_scope(scope: str, project_root: Path | None = None) -> "AgentStore":
    """The scope's AgentStore, one per (scope, project) per process."""
    from kioku.lessons.store.client import open_store

    root = project_root or paths.find_project_root()
    # keyed by folder too: tests (and `kioku` with another CLAUDE_CONFIG_DIR) switch homes
    key = (scope, str(chroma_dir(scope, root)), str(Path(root).resolve()) if scope == "project" else "")
    store = _STORES.get(key)
    if store is None:
        from kioku.lessons.digest import rebuild_store_digests

        store = open_store(scope, project_root=root)
        store.digests_stale = rebuild_store_digests
        _STORES[key] = store
    return store


def existing_scopes(project_root: Path | None = None) -> list[str]:
    return [s for s in SCOPES if scope_exists(s, project_root)]


def reset_store_cache() -> None:
    """Forget opened stores (tests that swap KIOKU_HOME in one process)."""
    _STORES.clear()
