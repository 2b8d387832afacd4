"""What a remember request holds."""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal


class RememberRequest:
    """What to remember (``content``), the phrase that asked for it (``trigger``, without
    politeness) and the prompt language ("en" | "ja"). Immutable, compares by value (the
    behaviour of a frozen dataclass, without importing ``dataclasses``)."""

    __slots__ = ("content", "trigger", "language")
    content: str
    trigger: str
    language: Literal["en", "ja"]

    def __init__(self, content: str, trigger: str, language: Literal["en", "ja"]) -> None:
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "trigger", trigger)
        object.__setattr__(self, "language", language)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("RememberRequest is immutable")

    def _key(self) -> tuple[str, str, str]:
        return (self.content, self.trigger, self.language)

    def __eq__(self, other: object) -> bool:
        return type(other) is RememberRequest and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"RememberRequest(content={self.content!r}, trigger={self.trigger!r}, "
                f"language={self.language!r})")
