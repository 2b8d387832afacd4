"""Fixtures for enrichment: the command backend behind a stand-in model (``fake_enricher.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kioku.infra import paths

FAKE = Path(__file__).resolve().parent / "fake_enricher.py"


class FakeModel:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def mode(self, *words: str) -> None:
        (self.folder / "mode").write_text(" ".join(words))

    def answers(self, mapping: dict[str, Any]) -> None:
        (self.folder / "answers.json").write_text(json.dumps(mapping, ensure_ascii=False))

    def calls(self) -> list[str]:
        log = self.folder / "calls.log"
        return log.read_text().splitlines() if log.exists() else []


def write_config(text: str = "") -> None:
    config = paths.kioku_home() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[model]\ncommand = "{sys.executable} {FAKE}"\ntimeout_s = 30\n{text}', encoding="utf-8")


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeModel:
    folder = tmp_path / "fake-enricher"
    folder.mkdir()
    monkeypatch.setenv("FAKE_ENRICH_DIR", str(folder))
    monkeypatch.setenv("KIOKU_MODEL_BACKEND", "command")
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    write_config()
    return FakeModel(folder)
