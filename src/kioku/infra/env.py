"""Environment switches every Kioku entry point reads first (``os`` only; hooks import it).

- ``KIOKU_DISABLE=1`` (or true/yes/on) turns Kioku off: every hook is a no-op.
- :data:`NESTED_RUN` is set in the environment of every model run Kioku starts (the judge's
  ``claude -p``, a local command): inside it every Kioku hook is a no-op and no worker starts,
  so a model call can never recurse into Kioku, whatever settings leak into it.
"""

from __future__ import annotations

import os

NESTED_RUN = "KIOKU_NESTED_RUN"


def kill_switch_set() -> bool:
    if os.environ.get(NESTED_RUN):
        return True
    return os.environ.get("KIOKU_DISABLE", "").strip().lower() in {"1", "true", "yes", "on"}
