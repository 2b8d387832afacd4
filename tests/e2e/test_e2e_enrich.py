"""Search enrichment through the real Claude Code binary, offline against the project's mock API.

A memory saved through Kioku's save path is marked; the worker enriches it with the ``claude``
backend (one ``claude -p`` run, answered by a scripted ``StructuredOutput`` call), and a search
that shares no word with the memory then finds it. Checked: the request is Kioku's enrichment
request (its system prompt, the memory's text, no tool but the structured output), no hook fires
inside the run, nothing of the run is left behind, the call is counted under ``enrich``; a
refusal, asked again and refused again, leaves the memory without enrichment and searchable as
before.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools"))
sys.path.insert(0, str(HERE))

from mock_running import MockServer  # noqa: E402
from nested_world import nested_claude_world  # noqa: E402

from kioku.enrich import targets  # noqa: E402
from kioku.enrich.request import SYSTEM  # noqa: E402
from kioku.infra import enrich_queue, jobs, paths  # noqa: E402
from kioku.memory.api import remember  # noqa: E402
from kioku.memory.search import search  # noqa: E402
from kioku.model import usage  # noqa: E402
from kioku.worker import drain  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
FLY = "Production runs on Fly.io in the Tokyo region, staging in Amsterdam"
ANSWER = {"items": [{"id": "m1", "topic": "hosting",
                     "questions": ["Where is the app hosted?", "Which cloud provider runs production?",
                                   "アプリはどこでホスティングしている？", "本番環境はどこ？"],
                     "keywords": {"en": ["hosting", "cloud provider", "deployment"],
                                  "ja": ["ホスティング", "本番環境", "クラウド"]}}]}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path) -> dict[str, Any]:
    return nested_claude_world(tmp_path, monkeypatch)


def _enrich(world: dict, script: list[dict]) -> tuple[dict, MockServer]:
    mock = MockServer(world["tmp"] / "mock", script, reply="I cannot help with that.")
    os.environ["ANTHROPIC_BASE_URL"] = mock.url
    try:
        report = drain.drain(wait=True, lag_wait=0)
    finally:
        mock.stop()
        os.environ.pop("ANTHROPIC_BASE_URL", None)
    assert report is not None and report["failed"] == 0, report
    return report["enrichment"], mock


def _leftovers(world: dict) -> list[str]:
    projects = world["claude_dir"] / "projects"
    found = [str(p) for p in projects.rglob("*.jsonl")] if projects.exists() else []
    run_folder = paths.state_dir() / "model" / "run"
    found += [str(p) for p in run_folder.rglob("*")] if run_folder.exists() else []
    return found + [str(p) for p in jobs.pending()] + [p for p, _d in enrich_queue.pending()]


def test_a_saved_memory_is_enriched_through_the_real_binary_and_found_by_a_paraphrase(world: dict,
                                                                                     project: Path) -> None:
    remember(FLY, type="project", project_root=project)
    assert search("where is the app hosted", project_root=project) == []
    summary, mock = _enrich(world, [{"tool_use": {"name": "StructuredOutput", "input": ANSWER}}, {"text": "done"}])
    assert summary["enriched"] == 1 and summary["calls"] == 1, summary
    first = mock.requests()[0]
    assert SYSTEM in json.dumps(first["system"]) and "You are Claude Code" not in json.dumps(first["system"])
    user_text = json.dumps([m for m in first["messages"] if m["role"] == "user"], ensure_ascii=False)
    assert "=== m1 === (memory, type project" in user_text and FLY in user_text
    assert {t["name"] for t in first.get("tools", [])} <= {"StructuredOutput", "DeferredToolPlaceholder"}
    assert not world["fired"].exists(), world["fired"].read_text()
    assert _leftovers(world) == []
    assert usage.totals(usage.today(), "enrich").calls == 1 and usage.totals(usage.today(), "judge").calls == 0
    hits = search("where is the app hosted", project_root=project)
    assert hits and FLY in hits[0].text and hits[0].enrichment == "Where is the app hosted?"
    assert search("アプリはどこでホスティングしている", project_root=project)
    assert search("what is the capital of Peru", project_root=project) == []


def test_a_refusal_twice_leaves_the_memory_searchable_as_before(world: dict, project: Path) -> None:
    remember(FLY, type="project", project_root=project)
    summary, mock = _enrich(world, [{"text": "I cannot help with that."}] * 6)
    assert summary["enriched"] == 0 and summary["failed"] == 1 and summary["calls"] == 2, summary
    assert "could not be used" in json.dumps(mock.requests()[-1]["messages"])
    assert [s.state for s in targets.states(targets.memory_items(project))] == ["failed"]
    assert search("Fly.io Tokyo", project_root=project)
    assert _leftovers(world) == []
