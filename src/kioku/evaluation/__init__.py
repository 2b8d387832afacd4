"""Self-evaluation. The pure entry point is :func:`evaluate_turns`; the worker stores and learns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from kioku.evaluation.verdict import TurnVerdict


def evaluate_turns(source: Path | str | Iterable[dict], source_name: str = "") -> list[TurnVerdict]:
    """One verdict per turn of a transcript given as a path or as its parsed lines; writes nothing.

    A path is read with ``kioku.evaluation.transcript.read_all`` (regular files only; raises
    ``TranscriptRefused`` otherwise). Compaction side-runs give no turns."""
    from kioku.evaluation import per_turn

    if isinstance(source, (str, Path)):
        return per_turn.evaluate_path(source).verdicts
    return per_turn.evaluate_entries(source, source_name).verdicts
