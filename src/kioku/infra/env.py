"""Environment switches every Kioku entry point reads first (``os`` only; hooks import it).

- ``KIOKU_DISABLE=1`` (or true/yes/on) turns Kioku off: every hook is a no-op.
"""

from __future__ import annotations

import os


def kill_switch_set() -> bool:
    return os.environ.get("KIOKU_DISABLE", "").strip().lower() in {"1", "true", "yes", "on"}
