"""Why the agent-memory store could not do what it was asked (stdlib only)."""

from __future__ import annotations

from kioku.infra.errors import KiokuError


class StoreUnavailable(KiokuError):
    """Chroma could not be reached or written; journaled writes stay pending."""


class StoreTimeout(StoreUnavailable):
    """A Chroma call did not answer within its time limit; it was stopped (nothing journaled is lost)."""
