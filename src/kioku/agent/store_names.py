"""Collection naming for the agent-memory store (stdlib only).

Contract: ``collection_name(agent, kind, project_id=None)`` returns
``agent_{name}_{kind}`` (global scope) or ``agent_{name}_project_{project_id}_{kind}``
(project scope), always valid under Chroma's rules: 3-512 characters from
``[a-zA-Z0-9._-]``, starting and ending alphanumeric, no ``..``, not an IP address.

``{name}`` is the agent name itself when it is short (<= 64 chars) and already uses only
``[A-Za-z0-9_-]`` (dots kept too, never two in a row) and cannot be confused with a
project-scoped name. Otherwise it is a readable slug plus ``-`` and 10 hex chars of the
SHA-256 of the original name, so two different agent names never share a collection
("code reviewer" and "code-reviewer" differ). The original agent name is kept in the
collection metadata (``agent``), which is how ``AgentStore.agents()`` maps back. A name that
looks like a credential is refused (``SecretRejected``): it would otherwise be kept in a
collection name, the journal and a digest file name.
"""

from __future__ import annotations

import hashlib
import re

KINDS = ("improvements", "evaluations", "performance")
MAX_PLAIN = 64
_PLAIN = re.compile(r"^[A-Za-z0-9_.-]+$")
_PROJECT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def agent_slug(agent: str) -> str:
    """The ``{name}`` part of a collection name for ``agent``."""
    if not isinstance(agent, str) or not agent.strip():
        raise ValueError("agent name must be a non-empty string")
    from kioku.core.secrets import ensure_storable

    ensure_storable(agent, what="the agent name")  # never a credential in a collection name
    plain = (
        len(agent) <= MAX_PLAIN
        and _PLAIN.match(agent) is not None
        and ".." not in agent
        and "_project_" not in agent  # would collide with project-scoped names
        and agent[0].isalnum() and agent[-1].isalnum()
    )
    if plain:
        return agent
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", agent).strip("-_")[:40] or "agent"
    slug = slug.replace("_project_", "-project-")
    digest = hashlib.sha256(agent.encode("utf-8")).hexdigest()[:10]
    return f"{slug}-{digest}"


def collection_name(agent: str, kind: str, project_id: str | None = None) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown collection kind {kind!r}; expected one of {', '.join(KINDS)}")
    slug = agent_slug(agent)
    if project_id is None:
        return f"agent_{slug}_{kind}"
    if not _PROJECT_ID.match(project_id):
        project_id = hashlib.sha256(project_id.encode("utf-8")).hexdigest()[:12]
    return f"agent_{slug}_project_{project_id}_{kind}"
