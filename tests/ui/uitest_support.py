"""Helpers for the web UI tests: seeding real stores, starting a real ``kioku ui`` process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

PINNED_NOW = "2026-11-20T09:30:00Z"
HOSTILE_MEMORY = ('Hostile note <script>window.__pwned = 1</script> and '
                  '<img src=x onerror="window.__pwned = 2"> must stay text')
HOSTILE_TAG = '<b onmouseover="window.__pwned=3">tag</b>'
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    path = os.environ.get("KIOKU_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Chromium is not installed: run the tests through scripts/test.sh, which installs "
                    "Debian's chromium package")
    return path


def seed_memories(env: dict[str, str], cwd: Path) -> None:
    """Memories saved through the real CLI, with the clock pinned so twins are byte-identical."""
    for text, type_ in (("We always use bun, never npm, in this repository", "project"),
                        ("I prefer short answers with the command first", "user"),
                        ("The staging database lives on db-staging.internal port 5433", "reference"),
                        (HOSTILE_MEMORY, "reference"),
                        ("Do not mock the database in integration tests", "feedback")):
        done = subprocess.run([sys.executable, "-m", "kioku", "remember", "--type", type_, text], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr


def seed_agent(project: Path) -> dict[str, str]:
    """Lessons (with and without the learning evidence fields) and evaluations (old and per-turn)."""
    from kioku.lessons import scopes as sc
    from kioku.lessons.store.client import Record
    from kioku.lessons.improvements import learn

    ids: dict[str, str] = {}
    ids["evidence"] = learn("main", "Run the focused test file before the whole suite", "testing_patterns", 0.85,
                            tags="tests,speed", project_root=project)[0]
    ids["plain"] = learn("main", "Read the error message before retrying a failed command", "error_handling", 0.8,
                         tags=HOSTILE_TAG, project_root=project)[0]
    ids["other"] = learn("main", "Prefer ripgrep over grep -r for code search", "search_strategy", 0.75,
                         project_root=project)[0]
    store = sc.open_scope("global", project)
    store.update_metadata("main", "improvements", [ids["evidence"]], [{
        "turns_given": 42, "turns_held_back": 12, "success_given": 35, "success_held_back": 7,
        "uplift": 0.25, "uplift_low": 0.02, "uplift_high": 0.47, "decision": "promoted", "promoted": True,
        "decision_reason": "uplift interval above zero after 54 turns",
        "usage_count": 42, "success_count": 35}])  # the usage counters
    # Anchored at the latest UTC noon already past, so the three records of a day never straddle
    # midnight whatever time the suite runs (the trends group them by UTC day).
    now = time.time() // 86400 * 86400 + 43200
    if now > time.time():
        now -= 86400
    records = []
    for day in range(8):
        for n in range(3):
            epoch = now - (7 - day) * 86400 - n * 600
            iso = datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds")
            ok = (day + n) % 3 != 0 or day > 5
            meta = {"agent_name": "main", "timestamp": iso, "timestamp_epoch": epoch, "task_id": f"t{day}{n}"}
            if day < 4:  # records as the evaluator writes them today
                meta.update({"success": ok, "quality": 60.0 + day * 4 + n, "tokens": 1200 + 10 * day,
                             "tool_errors": 0 if ok else 2, "retries": 0 if ok else 1, "duration_s": 30.0,
                             "task": f"Fix the flaky test number {day}{n}"})
            else:  # per-turn verdicts (kioku.evaluation.verdict.TurnVerdict fields) beside the old flag
                meta.update({"outcome": "success" if ok else "failed", "success": ok, "quality": 75.0 + day * 2 + n,
                             "reason": "tests pass" if ok else "the user rejected the edit",
                             "agent_errors": 0 if ok else 1, "user_rejections": 0 if ok else 1,
                             "hook_blocks": 0, "cascade_errors": 0, "active_s": 40.5 + n,
                             "tokens": '{"input": 5200, "output": 830, "cache_write": 1000, "cache_read": 40000}',
                             "task": f"Add the export button {day}{n}"})
            records.append(Record(id=f"eval_ui_{day}_{n}", document=f"Task: {meta['task']}", metadata=meta))
    store.upsert("main", "evaluations", records)
    return ids


@dataclass
class RunningUI:
    url: str
    base: str
    token: str
    port: int
    process: subprocess.Popen
    env: dict[str, str]


def start_ui(project: Path, env: dict[str, str]) -> RunningUI:
    log = project.parent / "kioku-ui.stderr"
    with open(log, "wb") as stderr:  # a file, not a pipe: a chatty server can never block on it
        proc = subprocess.Popen([sys.executable, "-m", "kioku", "ui", "--no-browser"], cwd=project, env=env,
                                stdout=subprocess.PIPE, stderr=stderr, text=True)
    first = proc.stdout.readline().strip()  # type: ignore[union-attr]
    if not first.startswith("http://"):
        proc.kill()
        raise AssertionError(f"kioku ui printed {first!r}; stderr: {log.read_text(errors='replace')}")
    base, _, token = first.partition("/?token=")
    return RunningUI(first, base, token, int(base.rsplit(":", 1)[1]), proc, env)


def ui_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "KIOKU_NOW": PINNED_NOW, **(extra or {})}
    env["PYTHONPATH"] = str(REPO_ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env




def memory_files(project: Path, home: Path) -> dict[str, bytes]:
    """Every file of the project and user memory folders (the lock file aside), by relative name."""
    out: dict[str, bytes] = {}
    for label, root in (("project", project / ".agents" / "memory"), ("user", home / ".agents" / "memory")):
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name != ".lock":
                out[f"{label}/{path.relative_to(root)}"] = path.read_bytes()
    return out
