"""The stand-in enrichment model (``fake_enricher.py``) behind the command backend, for the
enrichment tests (a module of its own: a test importing from ``conftest`` gets whichever
conftest was imported last)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

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
