"""Regular expressions compiled on first use.

Hooks import the secrets and trigger-detection modules on every prompt, and compiling all of
their patterns up front cost several milliseconds; most prompts need only one or two of them,
and a text with nothing to look at (an agent's name) none, so not even ``re`` is imported.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays out of the hook start-up path
    import re
    from typing import Callable

# The values of ``re.IGNORECASE`` and ``re.VERBOSE``, so that a module can declare its patterns
# without importing ``re``: the module itself is imported by the first pattern that is used
# (``tests/infra/test_infra_lazyre.py`` checks them against ``re``).
IGNORECASE = 2
VERBOSE = 64


class LazyPattern:
    """Behaves like the compiled pattern (``match``, ``search``, ``sub`` ...) once used."""

    __slots__ = ("_src", "_p")

    def __init__(self, pattern: str | Callable[[], str], flags: int = 0) -> None:
        self._src = (pattern, flags)
        self._p: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._p is None:
            import re

            pattern, flags = self._src
            self._p = re.compile(pattern() if callable(pattern) else pattern, flags)
        return self._p

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)


# Any character outside ASCII: the secrets scan and the defanging visit only these (the text
# NFKC normalisation could change), not every character in Python
NON_ASCII = LazyPattern(r"[^\x00-\x7f]")
