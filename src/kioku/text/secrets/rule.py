"""The shape of one detector: a pattern tried only where one of its anchors occurs."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing (and re, until a pattern is used) stay out of the hook start-up path
    from typing import Callable
    import re


class _Rule:
    """One detector. The regex is tried only where an anchor occurs (found with ``str.find``
    on the lower-cased text, which is ~100x cheaper than a regex scan), and the match must
    start there (``back`` lets it start earlier, over those characters and at most ``reach`` of
    them: URL schemes, a value before the words naming it).
    ``group`` names the secret part (empty = whole match; several = first that matched).
    Token-shaped secrets (no whitespace, >= 12 chars) are looked for only inside long
    whitespace-delimited chunks (``in_chunks``), which ordinary prose rarely has.
    A plain class, not a dataclass: ~35 rules are built at import time on the hook path."""

    __slots__ = ("kind", "anchors", "pattern", "group", "check", "back", "reach", "in_chunks")

    def __init__(self, kind: str, anchors: tuple[str, ...], pattern: _Lazy,
                 group: tuple[str, ...] = (), check: Callable[[re.Match[str]], bool] | None = None,
                 back: str | _AnyCharBut = "", in_chunks: bool = True, reach: int = 40) -> None:
        self.kind, self.anchors, self.pattern, self.group = kind, anchors, pattern, group
        self.check, self.back, self.reach, self.in_chunks = check, back, reach, in_chunks


class _AnyCharBut:
    """The characters a ``_Rule`` may walk back over: any but those given."""

    __slots__ = ("excluded",)

    def __init__(self, excluded: str) -> None:
        self.excluded = frozenset(excluded)

    def walk_start(self, text: str, i: int, reach: int) -> int:
        """Where a walk back from ``i`` over these characters stops, at most ``reach`` back."""
        floor = max(0, i - reach)
        return max([floor] + [text.rfind(c, floor, i) + 1 for c in self.excluded])
