"""kioku remember: save, classify, user scope, duplicates, supersede, refusals, index limits."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memtest_fixtures import pmem, umem  # noqa: F401
from kioku.infra.errors import SecretRejected
from kioku.memory import api
from kioku.memory.guard import MemoryRejected
from kioku.memory.index import MAX_LINES, WARN_LINES
from kioku.memory.organize import TARGET_LINES


def _entries(index: Path) -> list[str]:
    return [l for l in index.read_text().splitlines() if l.startswith("- ")] if index.exists() else []


def _snapshot(*folders: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for f in folders if f.exists() for p in sorted(f.rglob("*")) if p.is_file()}


def test_cli_remember_prints_saved_and_writes_index_and_topic(project, pmem, kioku):
    out = kioku("remember", "We use pnpm workspaces in this repo")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Saved to memory: We use pnpm workspaces in this repo")
    assert "project-conventions.md" in out.stdout
    assert _entries(pmem / "MEMORY.md") == ["- [project] We use pnpm workspaces in this repo → project-conventions.md"]
    assert "We use pnpm workspaces in this repo" in (pmem / "project-conventions.md").read_text()


def test_cli_type_and_json(project, pmem, kioku):
    out = kioku("remember", "Grafana", "is", "the", "metrics", "UI", "--type", "reference", "--json")
    data = json.loads(out.stdout)
    assert data["status"] == "saved" and data["type"] == "reference" and data["scope"] == "project"
    assert data["index_line"] == "- [reference] Grafana is the metrics UI → infrastructure-notes.md"
    assert Path(data["topic_file"]) == pmem / "infrastructure-notes.md"


def test_user_memories_go_to_the_user_folder_and_are_shared(project, pmem, umem, tmp_path, kioku):
    r = api.remember("I prefer answers in Japanese")
    assert r.scope == "user" and r.type == "user"
    assert _entries(umem / "MEMORY.md") == ["- [user] I prefer answers in Japanese → user-preferences.md"]
    assert not _entries(pmem / "MEMORY.md")
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").mkdir()
    out = kioku("recall", cwd=other)
    assert "I prefer answers in Japanese" in out.stdout  # follows the person to another project


def test_duplicate_is_not_added_twice(project, pmem, kioku):
    assert kioku("remember", "Run the linter before every commit").returncode == 0
    out = kioku("remember", "run the linter before every commit!")
    assert out.returncode == 0
    assert out.stdout.startswith("Already in memory: Run the linter before every commit")
    assert len(_entries(pmem / "MEMORY.md")) == 1
    assert (pmem / "project-conventions.md").read_text().count("## ") == 1


def test_japanese_near_duplicate(project, pmem):
    assert api.remember("本番へのデプロイは金曜日に行わない").status == "saved"
    again = api.remember("本番へのデプロイは、金曜日に行わない。")
    assert again.status == "duplicate"
    assert len(_entries(pmem / "MEMORY.md")) == 1


def test_contradiction_supersedes_visibly(project, pmem, kioku, monkeypatch):
    monkeypatch.setenv("KIOKU_NOW", "2026-03-01T10:00:00Z")
    old = api.remember("We use npm for installs")
    monkeypatch.setenv("KIOKU_NOW", "2026-03-05T10:00:00Z")
    new = api.remember("use bun, never npm")
    assert new.status == "superseded" and new.superseded == ["We use npm for installs"]
    index = _entries(pmem / "MEMORY.md")
    assert index == ["- [project] use bun, never npm → project-conventions.md"]
    topic = (pmem / "project-conventions.md").read_text()
    assert f"~~We use npm for installs~~ (superseded 2026-03-05 by {new.id})" in topic
    assert f'Supersedes: {old.id} "We use npm for installs" (2026-03-01' in topic
    assert f"supersedes={old.id}" in topic
    assert topic.count("We use npm for installs") >= 2  # never silently deleted
    recall = api.build_recall()
    assert "bun" in recall and "We use npm" not in recall


def test_cli_reports_superseded(project, kioku):
    kioku("remember", "prefer spaces for indentation", "--type", "project")
    out = kioku("remember", "prefer tabs for indentation", "--type", "project")
    assert out.returncode == 0
    assert "Superseded: prefer spaces for indentation" in out.stdout


def test_unrelated_memories_do_not_supersede(project, pmem):
    api.remember("Use pytest for tests")
    api.remember("Use npm for scripts")
    r = api.remember("npm run build builds the docs")
    assert r.status == "saved" and not r.superseded
    assert len(_entries(pmem / "MEMORY.md")) == 3


@pytest.mark.parametrize("text", [
    "The deploy key is AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "use token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB for the API",
    "DB is postgres://admin:hunter2secret@db.example.com:5432/app",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
])
def test_secrets_are_refused_and_nothing_written(project, pmem, umem, kioku, text):
    before = _snapshot(pmem, umem)
    out = kioku("remember", text)
    assert out.returncode == SecretRejected.exit_code
    assert out.stderr.startswith("kioku: error:")
    assert "hunter2" not in out.stderr and "ghp_" not in out.stderr and "AKIA" not in out.stderr
    assert _snapshot(pmem, umem) == before
    with pytest.raises(SecretRejected):
        api.remember(text)


def _transcript() -> str:
    return "\n".join(json.dumps({"type": "user", "message": {"role": "user", "content": f"step {i}"},
                                 "uuid": f"u{i}"}) for i in range(4))


@pytest.mark.parametrize("text,why", [
    ("x" * 1600, "too long"),
    ("Here is the helper:\n```python\n" + "\n".join(f"x{i} = {i}" for i in range(20)) + "\n```", "code"),
    ("Here is the helper:\n" + "\n".join(f"    x{i} = compute({i})" for i in range(12)), "code"),  # indented
    (None, "transcript"),
    ("Human: hi\nAssistant: hello\nHuman: remember all this\nAssistant: ok", "transcript"),
])
def test_long_text_code_and_transcripts_are_refused(project, pmem, kioku, text, why):
    text = text or _transcript()
    out = kioku("remember", "-", input=text)
    assert out.returncode == MemoryRejected.exit_code != 0
    assert why in out.stderr and "not saved" in out.stderr
    assert not pmem.exists() or not list(pmem.glob("*.md"))


@pytest.mark.parametrize("text,marker", [
    ("I'm in a meeting until 3pm today", "today"),
    ("For this session only, skip the e2e tests", "For this session"),
    ("This conversation: answer in Japanese", "This conversation"),
    ("今日は午後休みです", "今日は"),
    ("For this session, never run npm install", "For this session"),
    ("in this chat, answer in French", "in this chat"),
    ("I'm off ｔｏｄａｙ", "today"),
    ("For the rest of this session use French", "For the rest of this session"),
    ("このセッションではフランス語で答えて", "このセッションでは"),
    ("this PR should only contain the rename, nothing else", "this PR should"),   # the work at hand
    ("only touch the files in src/parser for this task", "for this task"),
    ("nothing from this chat, it's just a test", "from this chat"),
])
def test_a_note_for_today_or_this_session_only_is_refused(project, pmem, kioku, text, marker):
    out = kioku("remember", text)
    assert out.returncode == MemoryRejected.exit_code != 0
    assert f'"{marker}"' in out.stderr and "not saved" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not pmem.exists() or not list(pmem.glob("*.md"))


@pytest.mark.parametrize("text", [
    "From today on, we use pnpm", "Standups are at 10am every day", "Deploy freeze today (2026-12-01)",
    "Today I learned that the API caches responses for 5 minutes", "The session cookie expires after 30 minutes",
    "今日からbunを使う", "in this session and every later one, answer in English",
    "The today() helper in utils/date.py returns UTC", "Use datetime.now(timezone.utc), not datetime.today()",
    "Tests that depend on today must freeze time with freezegun", "The nightly job runs tonight's batch at 2am UTC",
    "The session cookie is set for the current session only by the browser", "今日の日付はJSTで計算すること",
    "このセッションIDはCookieに保存される", "tmux session names follow the repo name",
    "The auth token is kept in this session cookie", "ファイル名には今日の日付を入れる",
    "Tomorrow.io is our weather API provider", "today.py computes the date window",
    "The TODAY constant in dates.py holds the date", "The dashboard has a Today tab",
    "We squash merge every PR", "This branch protection rule blocks force pushes", "this task runner is called just",
])
def test_a_note_that_lasts_is_kept_whatever_its_words_of_time(project, text):
    assert api.remember(text).status == "saved"


def test_an_indented_list_is_not_code(project):
    assert api.remember("Release steps:\n" + "\n".join(f"    - step {i}" for i in range(12))).status == "saved"


def test_short_code_mention_is_fine(project):
    r = api.remember("Build with:\n```\nmake build\n```")
    assert r.status == "saved"


def test_empty_text_is_a_usage_error(project, kioku):
    out = kioku("remember", "   ")
    assert out.returncode == 2 and "empty" in out.stderr


def _fill_topic(pmem: Path, count: int) -> None:
    """A topic file with ``count`` distinct entries, then an index rebuilt from it."""
    api.remember("seed entry zero", type="project", topic="bulk")
    lines = (pmem / "bulk.md").read_text().splitlines()
    body = []
    for i in range(1, count):
        body += [f"## 2026-01-01 bulk fact number {i} about component{i}",
                 f"<!-- kioku: id=b{i:07d} type=project created=2026-01-01T00:00:{i % 60:02d}Z -->",
                 f"bulk fact number {i} about component{i}", ""]
    (pmem / "bulk.md").write_text("\n".join(lines + [""] + body))
    api.organize(repair=True)


def test_warns_at_150_lines(project, pmem, kioku):
    _fill_topic(pmem, WARN_LINES - 5)
    out = kioku("remember", "One more distinct memory about caching")
    assert out.returncode == 0
    assert "kioku organize" in out.stderr and f"of {MAX_LINES} lines" in out.stderr


def test_index_full_keeps_memory_in_topic_file_and_points_to_organize(project, pmem, kioku):
    _fill_topic(pmem, 230)
    index = (pmem / "MEMORY.md").read_text()
    assert index.count("\n") <= MAX_LINES
    out = kioku("remember", "Brand new fact about the release train")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Saved to memory: Brand new fact about the release train")
    # the new memory takes its line; the oldest entry of the lowest-ranked type gives way
    assert "left out of the index by priority" in out.stderr and "kioku organize" in out.stderr
    assert (pmem / "MEMORY.md").read_text().count("\n") <= MAX_LINES
    assert "Brand new fact about the release train" in (pmem / "MEMORY.md").read_text()
    assert "Brand new fact about the release train" in (pmem / "project-conventions.md").read_text()
    hits = api.search("release train", dense=False)
    assert any(h.file.endswith("project-conventions.md") for h in hits)
    report = api.organize()
    project_report = [f for f in report.folders if f.scope == "project"][0]
    assert project_report.status == "full" and project_report.unindexed >= 1


def test_a_full_index_keeps_new_feedback_listed(project, pmem):
    _fill_topic(pmem, 230)
    saved = api.remember("never force-push to shared branches", type="feedback")
    assert saved.indexed
    assert "never force-push to shared branches" in (pmem / "MEMORY.md").read_text()
    assert "never force-push to shared branches" in api.build_recall()


def test_organize_archives_only_what_the_index_needs_and_never_recent_or_feedback(project, pmem):
    _fill_topic(pmem, 230)  # old bulk facts (January)
    api.remember("never force-push to shared branches", type="feedback")
    api.remember("the billing service moved to Rust last month", type="project")
    report = api.organize(apply=True)
    archived = [p for p in report.proposals if p.kind == "archive"]
    assert all("bulk fact" in s or "seed entry" in s for p in archived for s in p.summaries)
    # facts that differ in their numbers are not merged, so the oldest are archived for room,
    # down to the target size and no further
    assert [p for p in archived if "index over" in p.reason]
    index = (pmem / "MEMORY.md").read_text()
    assert not [p for p in report.proposals if p.kind == "merge"]
    assert TARGET_LINES - 10 <= len(index.splitlines()) <= TARGET_LINES
    assert "never force-push" in index and "billing service moved to Rust" in index


def test_cli_remember_drops_the_request_words_only_when_the_text_is_one_request(project, pmem, kioku):
    assert "Saved to memory: we deploy with fly.io (" in kioku("remember", "remember that we deploy with fly.io").stdout
    assert "Saved to memory: テストはpytestで書く (" in kioku("remember", "覚えておいて: テストはpytestで書く").stdout
    out = kioku("remember", "We use pnpm. Remember that CI uses node 22 on every branch")
    assert "Saved to memory: We use pnpm. Remember that CI uses node 22" in out.stdout
