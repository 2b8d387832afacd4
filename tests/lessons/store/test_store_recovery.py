"""A missing or unreadable Chroma store is rebuilt from the journal with one warning; every
command answers in one line, never a traceback; `kioku store rebuild` does it on request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

LESSONS = [f"Run the linter before committing change {i}" for i in range(3)]


@pytest.fixture
def learned(project, isolated_home, kioku) -> Path:
    for lesson in LESSONS:
        out = kioku("lessons", "learn", "--agent", "main", lesson, "--category", "code_quality",
                    "--confidence", "0.9", "--scope", "global")
        assert out.returncode == 0, out.stderr
    return isolated_home / ".claude" / "chroma_data"


def _total(kioku) -> tuple[int, str]:
    out = kioku("dashboard", "--agent", "main", "--json")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return json.loads(out.stdout)["total_improvements"], out.stderr


def _delete_chroma_files(store: Path) -> None:
    for child in store.iterdir():
        if child.name == "chroma.sqlite3" or (child.is_dir() and len(child.name) == 36):
            shutil.rmtree(child) if child.is_dir() else child.unlink()


def test_deleted_store_is_rebuilt_from_the_journal_with_one_warning(learned, kioku):
    _delete_chroma_files(learned)
    total, err = _total(kioku)
    assert total == len(LESSONS)
    assert err.count("warning") == 1 and "rebuilt it from its journal" in err
    total, err = _total(kioku)
    assert total == len(LESSONS) and err == ""
    sync = kioku("store", "sync")
    assert sync.returncode == 0 and "Traceback" not in sync.stderr


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_unreadable_store_is_rebuilt_and_commands_never_trace_back(learned, kioku, damage):
    db = learned / "chroma.sqlite3"
    if damage == "garbage":
        db.write_bytes(b"this is not a database" * 200)
    else:
        with db.open("r+b") as handle:
            handle.truncate(db.stat().st_size // 4)
    out = kioku("lessons", "export", "--agent", "main", "--format", "json", "--out", str(learned.parent / "x.json"))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1
    assert "moved to" in out.stderr
    exported = json.loads((learned.parent / "x.json").read_text())
    assert sorted(r["improvement"] for r in exported["improvements"]) == sorted(LESSONS)
    for command in (["dashboard", "--agent", "main"], ["lessons", "maintain", "--agent", "main", "--daily"]):
        res = kioku(*command)
        assert res.returncode == 0 and res.stderr == "", res.stderr


def test_rebuild_command_replays_the_journal(learned, kioku):
    import re

    out = kioku("store", "rebuild", "--scope", "global")
    assert out.returncode == 0 and "3 entries replayed" in out.stdout, out.stdout + out.stderr
    total, err = _total(kioku)
    assert total == len(LESSONS) and err == ""
    # a healthy store rebuilt on request is "replaced", not "broken", under a readable time
    aside = [p.name for p in learned.parent.glob("chroma_data.*-*") if "journal" not in p.name]
    assert len(aside) == 1 and re.fullmatch(r"chroma_data\.replaced-\d{8}T\d{6}Z-\d+-\d+", aside[0]), aside


def test_deleted_chroma_folder_is_rebuilt_from_the_journal_beside_it(learned, kioku, isolated_home):
    journal = learned.parent / "chroma_data.kioku-journal"
    assert journal.is_dir() and not (learned / ".kioku-journal").exists()
    shutil.rmtree(learned)  # the whole folder, as a user cleaning up would
    doctor = kioku("doctor")
    assert "agent store (global)" in doctor.stdout and "the folder is missing" in doctor.stdout, doctor.stdout
    out = kioku("lessons", "search", "--agent", "main", "run the linter before committing", "--json")
    assert out.returncode == 0, out.stderr
    assert sorted(h["improvement"] for h in json.loads(out.stdout)) == sorted(LESSONS)
    assert out.stderr.count("warning") == 1 and "rebuilt it from its journal" in out.stderr
    digest = json.loads((learned / "digests" / "main.json").read_text())  # the hooks' file is back too
    assert sorted(e["improvement"] for e in digest["entries"]) == sorted(LESSONS)
    total, err = _total(kioku)
    assert total == len(LESSONS) and err == ""


def test_rebuild_command_works_after_the_chroma_folder_was_deleted(learned, kioku):
    shutil.rmtree(learned)
    out = kioku("store", "rebuild", "--scope", "global")
    assert out.returncode == 0 and "3 entries replayed" in out.stdout, out.stdout + out.stderr
    total, err = _total(kioku)
    assert total == len(LESSONS) and err == ""


def test_doctor_reports_a_store_without_its_journal(learned, kioku):
    shutil.rmtree(learned.parent / "chroma_data.kioku-journal")
    out = kioku("doctor")
    line = next(ln for ln in out.stdout.splitlines() if "agent store (global)" in ln)
    assert "no journal" in line and "cannot be rebuilt" in line, line


def test_an_older_copy_of_the_chroma_folder_put_back_is_brought_up_to_its_journal(learned, kioku, tmp_path):
    backup = tmp_path / "chroma_backup"
    shutil.copytree(learned, backup)  # a backup taken with three lessons
    out = kioku("lessons", "learn", "--agent", "main", "Pin the Node version in CI", "--category", "code_quality",
                "--confidence", "0.9", "--scope", "global")
    assert out.returncode == 0, out.stderr
    shutil.rmtree(learned)
    shutil.copytree(backup, learned)  # the older copy comes back; the journal beside it has all four
    total, err = _total(kioku)
    assert total == len(LESSONS) + 1 and "behind its journal" in err
    total, err = _total(kioku)
    assert total == len(LESSONS) + 1 and err == ""


def test_a_whole_journal_folder_deleted_is_written_anew_from_the_store(learned, kioku):
    folder = learned.parent / "chroma_data.kioku-journal"
    shutil.rmtree(folder)
    doctor = kioku("doctor")
    assert "--from-store" in doctor.stdout, doctor.stdout
    fixed = kioku("store", "rebuild", "--scope", "global", "--from-store")
    assert fixed.returncode == 0 and f"({len(LESSONS)} records)" in fixed.stdout, fixed.stdout + fixed.stderr
    assert "--from-store" not in kioku("doctor").stdout
    _delete_chroma_files(learned)  # the new journal alone brings every lesson back
    assert _total(kioku)[0] == len(LESSONS)


@pytest.mark.parametrize("damage", ["deleted", "garbage_line"])
def test_a_damaged_journal_is_never_the_source_of_a_rebuild(learned, kioku, damage):
    journal = learned.parent / "chroma_data.kioku-journal" / "journal.jsonl"
    if damage == "deleted":
        journal.unlink()
        assert kioku("lessons", "learn", "--agent", "main", "Pin the Node version in CI", "--category", "code_quality",
                     "--confidence", "0.9", "--scope", "global").returncode == 0
        expected = len(LESSONS) + 1
    else:
        lines = journal.read_bytes().splitlines(keepends=True)
        lines[1] = b"this line was overwritten\n"
        journal.write_bytes(b"".join(lines))
        expected = len(LESSONS)
    doctor = kioku("doctor")
    assert "the journal is damaged" in doctor.stdout and "--from-store" in doctor.stdout, doctor.stdout
    refused = kioku("store", "rebuild", "--scope", "global")
    assert refused.returncode == 1 and "not rebuilt" in refused.stderr and "--from-store" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert _total(kioku)[0] == expected  # nothing was lost by asking
    fixed = kioku("store", "rebuild", "--scope", "global", "--from-store")
    assert fixed.returncode == 0 and f"({expected} records)" in fixed.stdout, fixed.stdout + fixed.stderr
    assert list(journal.parent.glob("replaced-*/journal.jsonl"))  # the damaged file is kept
    doctor = kioku("doctor")
    assert "the journal is damaged" not in doctor.stdout and "differs from the journal" not in doctor.stdout
    # the journal now carries everything: a deleted store comes back whole
    _delete_chroma_files(learned)
    assert _total(kioku)[0] == expected
    assert kioku("store", "rebuild", "--scope", "global").returncode == 0
    assert _total(kioku)[0] == expected


def test_a_file_in_place_of_the_chroma_folder_is_moved_aside_and_the_store_rebuilt(learned, kioku):
    shutil.move(learned, learned.parent / "elsewhere")
    learned.write_text("garbage")
    out = kioku("lessons", "learn", "--agent", "main", "Pin the Node version in CI", "--category", "code_quality",
                "--confidence", "0.9", "--scope", "global")
    assert out.returncode == 0, out.stderr
    assert "was not a folder; moved it to" in out.stderr and "Traceback" not in out.stderr
    assert learned.is_dir() and [p.read_text() for p in learned.parent.glob("chroma_data.broken-*")] == ["garbage"]
    assert _total(kioku)[0] == len(LESSONS) + 1


def test_a_dangling_link_in_place_of_the_chroma_folder_is_left_alone(learned, kioku, tmp_path):
    shutil.move(learned, tmp_path / "volume")
    learned.symlink_to(tmp_path / "unmounted" / "chroma_data", target_is_directory=True)
    out = kioku("lessons", "learn", "--agent", "main", "Pin the Node version in CI", "--category", "code_quality",
                "--confidence", "0.9", "--scope", "global")
    assert out.returncode == 1 and "is a link to" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert learned.is_symlink() and not list(learned.parent.glob("chroma_data.broken-*"))


@pytest.mark.parametrize("command", ["lessons search", "lessons learn", "store rebuild"])
def test_a_damaged_keyword_index_is_set_aside_and_refilled_from_the_store(learned, kioku, command):
    lexical = learned / "kioku_lexical.sqlite3"
    lexical.write_bytes(b"garbage" * 500)
    doctor = kioku("doctor")
    assert "keyword index (global)" in doctor.stdout and "damaged" in doctor.stdout
    args = {"lessons search": ["lessons", "search", "--agent", "main", "run the linter before committing"],
            "lessons learn": ["lessons", "learn", "--agent", "main", "Pin the Node version in CI", "--category",
                              "code_quality", "--confidence", "0.9", "--scope", "global"],
            "store rebuild": ["store", "rebuild", "--scope", "global"]}[command]
    out = kioku(*args)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "keyword index" in out.stderr
    assert list(learned.glob("kioku_lexical.sqlite3.broken-*"))
    from kioku.lessons.store.client import AgentStore

    store = AgentStore(learned)
    assert len(store.lexical_search("main", "improvements", "linter committing", k=10)) == len(LESSONS)
    total, err = _total(kioku)
    assert total == len(LESSONS) + (command == "lessons learn")
    assert "keyword index" not in kioku("doctor").stdout


def test_a_store_behind_its_journal_that_holds_records_the_journal_lacks_is_not_rebuilt(learned, kioku, tmp_path):
    # the folder moved to another disk behind a link, a lesson learned there (its journal follows
    # the link's target), then the folder moved back: the journal beside it lacks that lesson
    disk = tmp_path / "disk"
    disk.mkdir()
    shutil.move(str(learned), str(disk / "chroma_data"))
    learned.symlink_to(disk / "chroma_data")
    out = kioku("lessons", "learn", "--agent", "main", "Pin the Node version in CI", "--category", "code_quality",
                "--confidence", "0.9", "--scope", "global")
    assert out.returncode == 0, out.stderr
    learned.unlink()
    shutil.move(str(disk / "chroma_data"), str(learned))
    total, err = _total(kioku)
    assert total == len(LESSONS) + 1
    assert "not rebuilt" in err and not list(learned.parent.glob("chroma_data.broken-*"))


_STORE_STEP = """
import hashlib, sys
from pathlib import Path
from kioku.lessons.store.client import AgentStore, Record
class Hashed:
    def embed(self, texts):
        return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:16]] for t in texts]
store = AgentStore(Path(sys.argv[1]), embedder=Hashed())
step = sys.argv[2]
if step == "add":
    store.upsert("main", "improvements", [Record(f"r{i}", f"lesson number {i}", {"x": 1}, 0.0) for i in range(3)])
elif step == "delete":
    store.delete("main", "improvements", ["r0", "r1"])
else:
    print(sorted(r.id for r in store.get("main", "improvements")), store.last_warning or "")
"""


def test_a_copy_put_back_that_missed_journaled_deletes_is_rebuilt_without_them(tmp_path):
    from store_helpers import run_py

    store, backup = tmp_path / "chroma", tmp_path / "backup"
    run_py(_STORE_STEP, str(store), "add")
    shutil.copytree(store, backup)
    run_py(_STORE_STEP, str(store), "delete")
    shutil.rmtree(store)
    shutil.copytree(backup, store)  # the older copy, which still holds the deleted records
    out = run_py(_STORE_STEP, str(store), "list").stdout
    assert out.startswith("['r2']") and "never wrote" not in out


def test_a_write_landing_during_rebuilds_damage_check_is_not_damage(tmp_path, monkeypatch):
    """`kioku store rebuild` refused ("the store holds 1 record(s) its journal lacks") and advised
    writing the journal anew from the store when another process learned a lesson between
    the check's journal read and its store read."""
    import hashlib
    import threading

    from kioku.lessons.store.client import AgentStore, Record
    from kioku.lessons.store.journal import Journal

    class Hashed:
        def embed(self, texts):
            return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:16]] for t in texts]

    store = AgentStore(tmp_path / "chroma", embedder=Hashed())
    store.upsert("main", "improvements", [Record(f"r{i}", f"lesson number {i}", {"x": 1}, 0.0) for i in range(3)])
    original, writers = Journal.live_counts, []

    def journal_read_then_another_write(self):
        counts = original(self)
        other = AgentStore(tmp_path / "chroma", embedder=Hashed())
        writer = threading.Thread(target=other.upsert, args=(
            "main", "improvements", [Record("late", "a lesson learned meanwhile", {"x": 1}, 0.0)]))
        writer.start()
        writer.join(2.0)  # done at once when nothing holds the write lock
        writers.append(writer)
        return counts

    monkeypatch.setattr(Journal, "live_counts", journal_read_then_another_write)
    try:
        assert store.records_beyond_journal() == {}
    finally:
        for writer in writers:
            writer.join(60)
    monkeypatch.setattr(Journal, "live_counts", original)
    assert store.records_beyond_journal() == {}
    assert sorted(r.id for r in store.get("main", "improvements")) == ["late", "r0", "r1", "r2"]
