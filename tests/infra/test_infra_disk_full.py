"""A full disk, for real (kioku.infra.disk): the test mounts a small tmpfs of its own, puts a
Kioku home and a project on it, fills it, and runs ``kioku learn``, ``kioku remember``, the hooks
and the worker. Each ends within its time limit with one clear line and the right exit code, a
write that reached the journal says so and exits 0 (a retry writes nothing again), and nothing
written before is lost or changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.infra import disk

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPT = REPO / "tests" / "fixtures" / "transcripts" / "bash_fail_then_success.jsonl"
DISK_MB = 64
RESERVE_MB = 16  # KIOKU_MIN_FREE_MB on that disk: below it Chroma is not written
LIMIT_S = 120  # every command must end well within this, full disk or not
MiB = 1024 * 1024


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs of its own here (`mount -t tmpfs` said: {done.stderr.strip()}); "
                    "the test fills a small file system and needs root for that")
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _env(disk_root: Path) -> dict[str, str]:
    home = disk_root / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "KIOKU_USER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "KIOKU_HOME": str(home / ".claude" / "kioku"), "KIOKU_NO_WORKER": "1",
           "KIOKU_MIN_FREE_MB": str(RESERVE_MB), "KIOKU_STORE_TIMEOUT": "20"}
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _kioku(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kioku", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=LIMIT_S)


def _hook(env: dict[str, str], event: str, payload: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "hooks" / "kioku_hook.py"), event], input=json.dumps(payload),
                          env=env, capture_output=True, text=True, timeout=LIMIT_S)


def _fill(disk_root: Path, leave: int) -> None:
    """Fill the disk, then give back ``leave`` bytes (tmpfs frees whole pages at once)."""
    fill = disk_root / "fill"
    with fill.open("ab", buffering=0) as out:
        for chunk in (MiB, 4096):
            try:
                while True:
                    out.write(b"\0" * chunk)
            except OSError:
                pass
    if leave:
        os.truncate(fill, max(0, fill.stat().st_size - leave))


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("kioku: error: the disk holding ") and "is full; nothing was lost: " in lines[0]
    return lines[0]


def _learn(env, cwd, lesson: str):
    return _kioku(env, cwd, "lessons", "learn", "--agent", "main", lesson, "--category", "testing_patterns",
                  "--confidence", "0.8", "--scope", "global")


def test_a_full_disk_gives_one_clear_line_and_loses_nothing(small_disk: Path) -> None:
    env = _env(small_disk)
    project = small_disk / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    memory = project / ".agents" / "memory"
    journal = small_disk / "home" / ".claude" / "chroma_data.kioku-journal" / "journal.jsonl"
    jobs_dir = small_disk / "home" / ".claude" / "kioku" / "state" / "jobs"
    for lesson in ("Run the unit tests before every commit", "Read the failing test's output before editing"):
        assert _learn(env, project, lesson).returncode == 0
    for note in ("We deploy with fly.io", "The staging database runs on port 5433"):
        assert _kioku(env, project, "remember", note).returncode == 0
    shutil.copy(TRANSCRIPT, small_disk / "turns.jsonl")
    stop = {"hook_event_name": "Stop", "session_id": "full-disk", "cwd": str(project),
            "transcript_path": str(small_disk / "turns.jsonl")}
    assert _hook(env, "Stop", stop).returncode == 0
    [queued] = list(jobs_dir.glob("*.json"))
    memory_before = {p.name: p.read_bytes() for p in memory.glob("*.md")}

    # below the store's reserve, with room for a journal line: saved in the journal, exit 0
    _fill(small_disk, leave=2 * MiB)
    assert disk.is_full(small_disk, RESERVE_MB * MiB)
    journaled = _learn(env, project, "Check the CI logs before re-running a job")
    assert journaled.returncode == 0, journaled.stderr
    assert journaled.stdout.startswith("learned (1 record): imp_")
    assert "saved in the journal" in journaled.stderr and "is full" in journaled.stderr
    retry = _learn(env, project, "Check the CI logs before re-running a job")
    assert retry.returncode == 0 and retry.stdout == journaled.stdout
    assert "not written again" in retry.stderr
    lines = journal.read_text().splitlines()
    assert sum("Check the CI logs" in line for line in lines) == 1
    journal_then = journal.read_bytes()

    # full: every path gives one line and exits within its limit
    _fill(small_disk, leave=0)
    error = _one_error_line(refused := _learn(env, project, "Write the test before the fix"))
    assert refused.returncode == 1 and "nothing was written" in error
    remembered = _kioku(env, project, "remember", "Releases go out on Tuesdays")
    assert remembered.returncode == 1 and "the memory was not saved" in _one_error_line(remembered)
    said = _hook(env, "UserPromptSubmit", {"hook_event_name": "UserPromptSubmit", "session_id": "full-disk",
                                           "cwd": str(project), "prompt": "remember that releases go out on Tuesdays"})
    assert said.returncode == 0
    assert "is full; nothing was lost: the memory was not saved" in json.loads(said.stdout)["systemMessage"]
    stopped = _hook(env, "Stop", {**stop, "session_id": "full-disk-2"})
    assert stopped.returncode == 0 and stopped.stdout == ""
    assert "this turn was not queued" in _one_error_line(stopped)
    started = _hook(env, "SessionStart", {"hook_event_name": "SessionStart", "session_id": "full-disk-3",
                                          "cwd": str(project), "source": "startup"})
    assert started.returncode == 0, started.stderr
    assert "We deploy with fly.io" in json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    worker = _kioku(env, project, "worker")
    assert worker.returncode == 1
    assert worker.stderr.strip().splitlines()[-1].startswith("kioku: error: the disk holding ")
    assert "the job stays queued" in worker.stderr
    assert [p.name for p in jobs_dir.glob("*.json")] == [queued.name]
    assert journal.read_bytes() == journal_then
    assert {p.name: p.read_bytes() for p in memory.glob("*.md")} == memory_before

    # room again: the journaled lesson is applied, the job runs, and everything is as it was
    (small_disk / "fill").unlink()
    synced = _kioku(env, project, "store", "sync")
    assert synced.returncode == 0 and "applied 1 pending journal entry" in synced.stdout, synced.stderr
    drained = _kioku(env, project, "worker", "--json")
    assert drained.returncode == 0 and json.loads(drained.stdout)["processed"] == 1, drained.stderr
    board = json.loads(_kioku(env, project, "dashboard", "--agent", "main", "--json").stdout)
    assert board["total_improvements"] == 3
    digest = json.loads((small_disk / "home" / ".claude" / "chroma_data" / "digests" / "main.json").read_text())
    assert sorted(e["improvement"] for e in digest["entries"]) == sorted([
        "Run the unit tests before every commit", "Read the failing test's output before editing",
        "Check the CI logs before re-running a job"])
    assert {p.name: p.read_bytes() for p in memory.glob("*.md")} == memory_before
    checks = _kioku(env, project, "doctor", "--json")
    store_check = {c["check"]: c for c in json.loads(checks.stdout)}["agent store (global)"]
    assert store_check["ok"], store_check


def test_a_memory_whose_index_line_did_not_fit_is_saved_once_on_retry(small_disk: Path) -> None:
    env = _env(small_disk)
    project = small_disk / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    memory = project / ".agents" / "memory"
    assert _kioku(env, project, "remember", "We deploy with fly.io").returncode == 0
    index = memory / "MEMORY.md"
    # notes written by hand make the index several pages long, the new topic file needs one
    with index.open("a", encoding="utf-8") as out:
        out.write("".join(f"- a note written by hand, number {n}, about the release checklist\n" for n in range(120)))
    _fill(small_disk, leave=8192)  # two pages: the new topic file fits, the rewritten index does not
    first = _kioku(env, project, "remember", "--type", "feedback", "--topic", "review-habits",
                   "Always run the formatter before asking for review")
    assert first.returncode == 0, first.stderr  # the topic file, the memory's source of truth, was written
    assert "is full" in first.stderr and "MEMORY.md" in first.stderr
    assert "Always run the formatter" in (memory / "review-habits.md").read_text()
    assert "Always run the formatter" not in index.read_text()
    (small_disk / "fill").unlink()
    again = _kioku(env, project, "remember", "--type", "feedback", "--topic", "review-habits",
                   "Always run the formatter before asking for review")
    assert again.returncode == 0 and again.stdout.startswith("Already in memory"), again.stdout + again.stderr
    assert (memory / "review-habits.md").read_text().count("Always run the formatter") == 2  # heading + text, once
    assert index.read_text().count("Always run the formatter") == 1
