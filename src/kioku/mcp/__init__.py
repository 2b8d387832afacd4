"""Kioku as an MCP server (``kioku mcp``): memory and lessons as tools and resources.

``tools`` (names, schemas, argument checks), ``memory_tools`` and ``lesson_tools`` (the calls,
through the memory-system and the hooks' lesson selection), ``resources`` (the memory files),
``faults`` (plain error messages, the doctor's view of a broken store), ``calls`` (one call
from arguments to reply), ``server`` (the official SDK's stdio server around them).
"""
