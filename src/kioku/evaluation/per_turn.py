"""Pure per-turn self-evaluation: a transcript (path or entries) in, ``list[TurnVerdict]`` out.

Nothing here writes: the worker stores the verdicts and runs learning afterwards.
- ``evaluate_path(path) -> PerTurnResult``: reads the file whole (``transcript.read_all``: regular
  files only, chunked to the end, a warning instead of a silent cut), segments it and judges
  every turn; a compaction side-run (``agent-acompact-*``) yields no turns.
- ``evaluate_entries(entries, source_name="") -> PerTurnResult``: the same for entries in memory.
Each turn is judged with the next real prompt beside it, so "still failing" corrects it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from kioku.evaluation import transcript as tr
from kioku.evaluation.judge.rules import judge, previous_answer
from kioku.evaluation.turns import Turn, file_kind, segment
from kioku.evaluation.verdict import TurnVerdict


@dataclass
class PerTurnResult:
    verdicts: list[TurnVerdict] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)      # the segmented turns, same order
    kind: str = "main"               # "main" | "subagent" | "compaction"
    session_id: str = ""
    agent_id: str = ""
    warning: str = ""                # set when the transcript could not be read whole
    last_ts: float | None = None     # transcript time of the last line


def evaluate_entries(entries: Iterable[dict], source_name: str = "") -> PerTurnResult:
    entries = [e for e in entries if isinstance(e, dict)]
    kind = file_kind(entries, source_name)
    session_id = next((str(e["sessionId"]) for e in entries if e.get("sessionId")), "")
    agent_id = next((str(e["agentId"]) for e in entries if e.get("agentId") and e.get("isSidechain")
                     and kind != "main"), "")
    stamps = [ts for ts in (tr.parse_timestamp(e.get("timestamp")) for e in entries) if ts is not None]
    result = PerTurnResult(kind=kind, session_id=session_id, agent_id=agent_id,
                           last_ts=max(stamps) if stamps else None)
    if kind == "compaction":
        return result
    turns = segment(entries, source_name)
    result.turns = turns
    for i, turn in enumerate(turns):
        following = turns[i + 1].text if i + 1 < len(turns) else None
        result.verdicts.append(judge(turn, following, session_id=session_id,
                                     follows_work=i > 0 or bool(previous_answer(turns, 0).strip())))
    return result


def evaluate_path(path: Path | str) -> PerTurnResult:
    read = tr.read_all(path)
    result = evaluate_entries(read.entries, Path(path).name)
    result.warning = read.warning
    return result
