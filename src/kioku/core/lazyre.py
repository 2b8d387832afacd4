"""Regular expressions compiled on first use.

Hooks import the secrets and trigger-detection modules on every prompt, and compiling all of
their patterns up front cost several milliseconds; most prompts need only one or two of them.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays out of the hook start-up path
    from typing import Callable


class LazyPattern:
    """Behaves like the compiled pattern (``match``, ``search``, ``sub`` ...) once used."""

    __slots__ = ("_src", "_p")

    def __init__(self, pattern: str | Callable[[], str], flags: int = 0) -> None:
        self._src = (pattern, flags)
        self._p: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._p is None:
            pattern, flags = self._src
            self._p = re.compile(pattern() if callable(pattern) else pattern, flags)
        return self._p

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)
