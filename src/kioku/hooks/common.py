"""Helpers shared by the hook handlers (stdlib only; imported on every hook's fast path).

- :func:`project_root` resolves the project from the payload's ``cwd`` (Claude's current
  directory, which may be a subfolder), falling back to the process cwd.
- :func:`inject_lessons`, :func:`improvements_block`, :func:`second_chances` and
  :func:`lessons_block_for` live in ``kioku.learning.inject`` (the MCP server's
  ``lessons_for`` selects and fences lessons through the same code) and are re-exported here:
  the lessons for a turn, fenced as remembered data; the caller records what was given and
  held back in the session ledger (``kioku.learning.ledger``).
- :func:`soft` runs one optional part of a handler (e.g. the improvements digest at
  SessionStart) so that its failure is logged but the other parts still reach Claude. The
  process-level fail-open boundary stays :func:`kioku.hooks.dispatch.run`.
"""

from __future__ import annotations

# Annotations only (PEP 563): nothing here imports pathlib/typing, which the Stop path avoids.

from kioku.learning.inject import (  # noqa: F401 - the hooks' names for them
    IMPROVEMENT_CHARS, MAX_IMPROVEMENTS, improvements_block, inject_lessons, lessons_block_for, second_chances)


def project_root(payload: dict) -> "Path":
    from pathlib import Path

    from kioku.hooks.dispatch import project_root_of

    return Path(project_root_of(payload))


def soft(label: str, fn, default):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one missing part must not hide the others
        if type(exc).__name__ == "DiskFull":  # no log can be written: one line says what was kept
            import sys

            sys.stderr.write(f"kioku: error: {str(exc)[:400]} ({label}; the session goes on)\n")
            return default
        from kioku.hooks.dispatch import log_exception

        log_exception(label)
        return default


def main_agent(root) -> str:
    from kioku.hooks.dispatch import config_present

    if not config_present(str(root)):
        return "main"  # the default; skips importing tomllib when there is no config file
    from pathlib import Path

    from kioku.infra.config import ConfigError, load_config

    try:
        return load_config(Path(root)).main_agent
    except ConfigError:
        return "main"  # a broken config file must not cost the session its memory
