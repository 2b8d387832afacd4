"""Fixtures for enrichment: the command backend behind a stand-in model (``enrich_fakes``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from enrich_fakes import FakeModel, write_config


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeModel:
    folder = tmp_path / "fake-enricher"
    folder.mkdir()
    monkeypatch.setenv("FAKE_ENRICH_DIR", str(folder))
    monkeypatch.setenv("KIOKU_MODEL_BACKEND", "command")
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    write_config()
    return FakeModel(folder)
