"""kioku doctor compares each agent store with its journal."""

from __future__ import annotations

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import learn
from kioku.install.doctor import run_checks


def _store_check(project) -> dict:
    return {c["check"]: c for c in run_checks(project)}["agent store (global)"]


def test_doctor_counts_match_then_report_a_missing_store(project):
    for i in range(3):
        learn("main", f"Run the linter before committing change {i}", "code_quality", 0.9, scope="global",
              project_root=project)
    check = _store_check(project)
    assert check["ok"] and "3 record(s)" in check["detail"] and "journal 3" in check["detail"]
    store = sc.open_scope("global", project)
    (store.chroma_dir / "chroma.sqlite3").unlink()
    check = _store_check(project)
    assert not check["ok"] and "missing" in check["detail"] and "kioku store rebuild" in check["detail"]


def test_doctor_reports_a_store_that_differs_from_its_journal(project):
    learn("main", "Run the linter before committing", "code_quality", 0.9, scope="global", project_root=project)
    store = sc.open_scope("global", project)
    conn = store._conn()
    name = store.name("main", "improvements")
    col = conn.client.get_collection(name)
    col.delete(ids=col.get()["ids"])  # lost behind Kioku's back
    check = _store_check(project)
    assert not check["ok"] and "differs from the journal" in check["detail"] and name in check["detail"]


def test_doctor_compares_only_between_writes_and_says_so_when_a_writer_stays_busy(project, monkeypatch):
    from kioku.infra import fsutil
    from kioku.install import doctor_stores

    learn("main", "Run the linter before committing", "code_quality", 0.9, scope="global", project_root=project)
    store = sc.open_scope("global", project)
    monkeypatch.setattr(doctor_stores, "STEADY_WAIT", 0.2)
    with fsutil.exclusive_lock(store.journal.lock_path):  # a writer in the middle of applying
        check = _store_check(project)
    assert check["ok"] and "not compared" in check["detail"] and "busy" in check["detail"]
    assert "1 record(s)" in _store_check(project)["detail"]
