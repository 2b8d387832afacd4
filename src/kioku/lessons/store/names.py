"""Collection naming for the agent-memory store (stdlib only).

Contract: ``collection_name(agent, kind, project_id=None)`` returns
``agent_{name}_{kind}`` (global scope) or ``agent_{name}_project_{project_id}_{kind}``
(project scope), always valid under Chroma's rules: 3-512 characters from
``[a-zA-Z0-9._-]``, starting and ending alphanumeric, no ``..``, not an IP address.

``{name}`` follows the seed's convention: the agent name with every hyphen turned into an
underscore (``code-finder`` -> ``agent_code_finder_improvements``), when the name is short
(<= 64 chars), uses only ``[A-Za-z0-9.-]`` (never two dots in a row) and starts and ends
alphanumeric. Any other name, including one that already contains an underscore (it would
otherwise share ``code_finder`` with ``code-finder``), becomes a readable slug plus ``-`` and
10 hex chars of the SHA-256 of the original name. Such a slug always holds a hyphen and a
plain one never does, so two different agent names never share a collection. The original
agent name is kept in the collection metadata (``agent``), which is how
``AgentStore.agents()`` maps back and how collections made under an earlier naming are
found and moved (``AgentStore``, :data:`NAMING_VERSION`). A name that looks
like a credential is refused (``SecretRejected``): it would otherwise be kept in a
collection name, the journal and a digest file name.
"""

from __future__ import annotations

from kioku.infra.sha import sha256

KINDS = ("improvements", "evaluations", "performance")
NAMING_VERSION = 2  # 1 kept hyphens in agent names; 2 turns them into underscores
MAX_PLAIN = 64
# Character sets instead of regular expressions: the every-prompt hook names collections,
# and importing ``re`` would cost it several milliseconds.
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PLAIN_CHARS = _ALNUM | frozenset(".-")
_PROJECT_ID_CHARS = _ALNUM | frozenset("_-")


def agent_slug(agent: str) -> str:
    """The ``{name}`` part of a collection name for ``agent``."""
    if not isinstance(agent, str) or not agent.strip():
        raise ValueError("agent name must be a non-empty string")
    from kioku.text.secrets import ensure_storable

    ensure_storable(agent, what="the agent name")  # never a credential in a collection name
    plain = (
        len(agent) <= MAX_PLAIN
        and all(c in _PLAIN_CHARS for c in agent)
        and ".." not in agent
        and "_project_" not in agent.replace("-", "_")  # would collide with project-scoped names
        and agent[0].isalnum() and agent[-1].isalnum()
    )
    if plain:
        return agent.replace("-", "_")
    import re

    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", agent).strip("-_")[:40] or "agent"
    slug = slug.replace("_project_", "-project-")
    digest = sha256(agent.encode("utf-8")).hexdigest()[:10]
    return f"{slug}-{digest}"


def collection_name(agent: str, kind: str, project_id: str | None = None) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown collection kind {kind!r}; expected one of {', '.join(KINDS)}")
    slug = agent_slug(agent)
    if project_id is None:
        return f"agent_{slug}_{kind}"
    if not (1 <= len(project_id) <= 64 and all(c in _PROJECT_ID_CHARS for c in project_id)):
        project_id = sha256(project_id.encode("utf-8")).hexdigest()[:12]
    return f"agent_{slug}_project_{project_id}_{kind}"
