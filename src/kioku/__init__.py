"""Kioku: persistent, self-improving memory for Claude Code agents.

Nothing is imported eagerly here: hooks import submodules directly so that the
fast path pays only for what it uses.
"""

__version__ = "0.1.0"
