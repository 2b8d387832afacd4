"""VectorStore: vectors persist by content hash, only new texts are embedded, damage is survived."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from kioku.infra import clock
from kioku.retrieval import vectors
from kioku.retrieval.embedder import get_embedder
from kioku.retrieval.vectors import VectorStore


class CountingEmbedder:
    """The real embedder, counting the texts it was asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts):
        self.texts.extend(texts)
        return get_embedder().embed(texts)


def _refuse(texts):
    raise AssertionError(f"should not embed {list(texts)!r}")


def test_vectors_are_the_models_and_persist_across_instances(tmp_path: Path) -> None:
    db = tmp_path / "state" / "v.sqlite3"
    counting = CountingEmbedder()
    texts = ["We use bun for installs", "本番環境へのデプロイは金曜日に行わない", "We use bun for installs"]
    first = VectorStore(db, embed=counting).embed(texts)
    assert first.shape == (3, 384) and first.dtype == np.float32
    assert counting.texts == texts[:2]  # a repeated text is embedded once
    assert np.allclose(first, get_embedder().embed(texts), atol=1e-6)
    assert db.stat().st_mode & 0o777 == 0o600 and db.parent.stat().st_mode & 0o777 == 0o700
    # a new process (new instance) reads the vectors back instead of embedding
    again = VectorStore(db, embed=_refuse).embed(texts[::-1])
    assert np.array_equal(again, first[::-1])
    assert VectorStore(db).count() == 2


def test_only_new_or_edited_texts_are_embedded(tmp_path: Path) -> None:
    db = tmp_path / "v.sqlite3"
    VectorStore(db).embed(["alpha memory", "beta memory"])
    counting = CountingEmbedder()
    store = VectorStore(db, embed=counting)
    store.embed(["alpha memory", "beta memory, edited by hand", "gamma memory"])
    assert counting.texts == ["beta memory, edited by hand", "gamma memory"]
    store.embed(["gamma memory", "alpha memory"])  # in-process: nothing read or embedded again
    assert len(counting.texts) == 2 and store.count() == 4
    assert store.embed([]).shape == (0, 384)


def test_unused_vectors_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "v.sqlite3"
    VectorStore(db).embed(["old memory", "kept memory"])
    today = clock.epoch_day()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE vectors SET used_day = ?", (today - vectors.KEEP_DAYS - 1,))
    VectorStore(db).embed(["kept memory", "new memory"])  # reads "kept" (marks it used), writes "new"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 2


def test_a_corrupt_file_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "v.sqlite3"
    db.write_bytes(b"this is not a database" * 100)
    texts = ["We deploy on Fridays never"]
    got = VectorStore(db).embed(texts)
    assert np.allclose(got, get_embedder().embed(texts), atol=1e-6)
    assert (tmp_path / "v.sqlite3.corrupt").exists()
    assert np.allclose(VectorStore(db).embed(texts), got)
    assert VectorStore(db).count() == 1


def test_default_store_follows_kioku_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_HOME", str(tmp_path / "a"))
    first = vectors.default_store()
    assert first.db_path == tmp_path / "a" / "state" / "memory-vectors.sqlite3"
    assert vectors.default_store() is first
    monkeypatch.setenv("KIOKU_HOME", str(tmp_path / "b"))
    assert vectors.default_store().db_path.parent == tmp_path / "b" / "state"
