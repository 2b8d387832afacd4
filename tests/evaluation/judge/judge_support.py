"""Helpers for the judge tests: transcripts with turns, and answers written the way a model would."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tx_builder lives in tests/evaluation

from tx_builder import Tx  # noqa: E402

from kioku.evaluation.judge.protocol import JudgeContext, TurnCase  # noqa: E402
from kioku.evaluation.per_turn import evaluate_entries  # noqa: E402
from kioku.model.request import ModelRequest  # noqa: E402

CONTEXT = JudgeContext("main", {"accuracy": 60, "testing": 40}, {"error_handling": "recovering from errors"})


def two_turn_session() -> Tx:
    tx = Tx("sess-judge")
    tx.user("Fix the failing test in tests/test_x.py")
    tx.assistant("Running it.", [("c1", "Bash", {"command": "pytest -q tests/test_x.py"})])
    tx.result("c1", "E   assert 1 == 2\n1 failed in 0.2s", error=True)
    tx.assistant("", [("c2", "Edit", {"file_path": "/p/src/x.py", "old_string": "1", "new_string": "2"})])
    tx.result("c2", "The file /p/src/x.py has been updated.")
    tx.assistant("Fixed: the test passes now.")
    tx.user("No, it still fails. Use the fixture, not a live server.")
    tx.assistant("Switching to the fixture.", [("c3", "Bash", {"command": "pytest -q"})])
    tx.result("c3", "3 passed in 0.4s")
    tx.assistant("All green with the fixture.")
    return tx


def cases_of(tx: Tx, *, ended: bool = True) -> list[TurnCase]:
    result = evaluate_entries(tx.lines, "s.jsonl")
    out = []
    for i, (verdict, turn) in enumerate(zip(result.verdicts, result.turns)):
        following = result.turns[i + 1].text if i + 1 < len(result.turns) else None
        if following is None and not ended:
            continue
        out.append(TurnCase(f"t{turn.index + 1}", turn, verdict, following))
    return out


def turn_ids(request: ModelRequest) -> list[str]:
    return re.findall(r"^=== (t\d+) ===$", request.prompt, re.M)


def answer(request: ModelRequest, outcome: str = "success", **overrides: Any) -> str:
    """A well-formed answer for every turn of ``request``."""
    criteria = request.schema["properties"]["turns"]["items"]["properties"]["scores"]["required"]
    turns = []
    for turn_id in turn_ids(request):
        item = {"id": turn_id, "outcome": outcome, "reason": f"judged {turn_id}", "feedback_on_previous": "none",
                "confidence": 0.8, "scores": {name: 75 for name in criteria}, "lesson": None, "lessons": []}
        item.update(overrides.get(turn_id, {}))
        turns.append(item)
    return json.dumps({"turns": turns})
