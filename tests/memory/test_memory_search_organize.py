"""kioku search (path:line hits, Japanese, JSON, archive), organize (propose / --apply), forget."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memtest_fixtures import pmem, umem  # noqa: F401
from kioku.infra.errors import KiokuError
from kioku.memory import api


def _line_at(ref: str) -> str:
    path, line = ref.rsplit(":", 1)
    return Path(path).read_text().splitlines()[int(line) - 1]


def test_search_returns_path_line_references(project, pmem, kioku):
    api.remember("We deploy the API with GitHub Actions")
    api.remember("I prefer pytest fixtures over setUp methods")
    api.remember("Database migrations run with alembic upgrade head")
    out = kioku("search", "alembic", "migrations", "--lexical")
    assert out.returncode == 0, out.stderr
    refs = re.findall(r"^(\S+:\d+): ", out.stdout, re.M)
    assert refs, out.stdout
    # one result per memory: the topic entry, with its MEMORY.md line as context
    assert refs == [r for r in refs if r.startswith(".agents/memory/infrastructure-notes.md:")] and len(refs) == 1
    assert "alembic" in _line_at(str(project / refs[0])).lower()
    context = re.findall(r"^    index (\S+:\d+): (.*)$", out.stdout, re.M)
    assert len(context) == 1 and context[0][0].startswith(".agents/memory/MEMORY.md:")
    assert _line_at(str(project / context[0][0])) == context[0][1] and "alembic" in context[0][1]
    hits = api.search("pytest fixtures", dense=False)
    assert hits[0].scope == "user" and "pytest fixtures" in Path(hits[0].file).read_text().splitlines()[hits[0].line - 1]


def test_search_japanese(project, pmem, kioku):
    api.remember("本番環境へのデプロイは金曜日に行わない")
    api.remember("テストは毎晩CIで実行する")
    hits = api.search("デプロイ", dense=False)
    assert hits and all("デプロイ" in h.text for h in hits)
    out = kioku("search", "デプロイ", "--json", "--lexical")
    data = json.loads(out.stdout)
    assert {"file", "line", "text", "score", "scope", "context", "context_file", "context_line"} <= set(data[0])
    assert len(data) == 1 and not data[0]["file"].endswith("MEMORY.md")
    assert data[0]["context_file"].endswith("MEMORY.md") and "デプロイ" in data[0]["context"]


def test_search_unrelated_query_finds_nothing_lexically(project, kioku):
    api.remember("We use bun for installs")
    assert api.search("kubernetes helm chart", dense=False) == []
    out = kioku("search", "kubernetes", "--lexical")
    assert "No memories match" in out.stdout


def test_search_hybrid_default_ranks_lexical_matches(project):
    api.remember("The payments service owns refunds")
    api.remember("We use bun for installs")
    hits = api.search("refunds")  # dense="auto": BM25 fused with MiniLM when available
    assert hits and "refunds" in hits[0].text and not hits[0].semantic


def test_search_archive_only_when_asked(project, pmem):
    api.remember("Legacy cron jobs live on the old box")
    api.forget(query="legacy cron")
    assert api.search("cron", dense=False) == []
    hits = api.search("cron", archive=True, dense=False)
    assert hits and "/archive/" in hits[0].file


def test_forget_moves_to_archive_only_on_explicit_request(project, pmem, kioku):
    api.remember("Use black for formatting")
    api.remember("Use mypy strict mode")
    out = kioku("forget", "black", "formatting")
    assert out.returncode == 0 and out.stdout.startswith("Forgot: Use black for formatting")
    index = (pmem / "MEMORY.md").read_text()
    assert "black" not in index and "mypy" in index
    archived = (pmem / "archive" / "project-conventions.md").read_text()
    assert "Use black for formatting" in archived and re.search(r"\(archived \d{4}-\d{2}-\d{2}: forgotten on request\)", archived)
    assert "black" not in (pmem / "project-conventions.md").read_text()


def test_forget_by_a_katakana_word_does_not_take_a_memory_holding_it_inside_another_word(project, pmem):
    api.remember("社内コンテストの締め切りは金曜日")
    with pytest.raises(KiokuError, match="no memory matches"):
        api.forget("テスト")  # "test" is not "contest"
    assert "コンテスト" in (pmem / "MEMORY.md").read_text()
    api.remember("テストケースは tests/ に置く")
    done = api.forget("テスト")  # the start of "test case" is the word "test"
    assert "テストケース" in done.summary
    assert "コンテスト" in (pmem / "MEMORY.md").read_text()


def test_forget_ambiguous_or_missing_changes_nothing(project, pmem, kioku):
    a = api.remember("Use black for formatting python")
    api.remember("Use prettier for formatting javascript")
    before = {p.name: p.read_bytes() for p in pmem.glob("*.md")}
    out = kioku("forget", "formatting")
    assert out.returncode == 1 and "2 memories match" in out.stderr and a.id in out.stderr
    out = kioku("forget", "nothing like this")
    assert out.returncode == 1 and "no memory matches" in out.stderr
    assert {p.name: p.read_bytes() for p in pmem.glob("*.md")} == before
    assert not (pmem / "archive").exists()
    out = kioku("forget", "--id", a.id)
    assert out.returncode == 0 and "black" not in (pmem / "MEMORY.md").read_text()
    with pytest.raises(KiokuError):
        api.forget()


def test_organize_proposes_merges_and_archiving_without_changing_anything(project, pmem, kioku, monkeypatch):
    monkeypatch.setenv("KIOKU_NOW", "2025-01-01T00:00:00Z")
    api.remember("We use npm for installs")
    api.remember("The API server listens on port 8080 in development", type="project", topic="ports")
    api.remember("The API server listens on port 8080 locally and in CI", type="project", topic="ports")
    monkeypatch.setenv("KIOKU_NOW", "2026-06-01T00:00:00Z")
    api.remember("use bun, never npm")
    before = {str(p): p.read_bytes() for p in pmem.rglob("*.md")}
    out = kioku("organize", "--older-than", "90", env={"KIOKU_NOW": "2026-06-01T00:00:00Z"})
    assert out.returncode == 0, out.stderr
    assert "MEMORY.md" in out.stdout and "/200 lines" in out.stdout
    assert "merge [project/ports.md]" in out.stdout
    assert re.search(r"archive \[project/project-conventions.md\] \w+ \(We use npm for installs\): superseded", out.stdout)
    assert "nothing changes until you run `kioku organize --apply`" in out.stdout
    assert {str(p): p.read_bytes() for p in pmem.rglob("*.md")} == before
    assert not (pmem / "archive").exists()


def test_organize_apply_merges_and_archives_without_losing_text(project, pmem, kioku):
    api.remember("The API server listens on port 8080 in development", type="project", topic="ports")
    api.remember("The API server listens on port 8080 locally and in CI", type="project", topic="ports")
    api.remember("We use npm for installs")
    api.remember("use bun, never npm")
    out = kioku("organize", "--apply")
    assert out.returncode == 0 and "merged 2 entries of ports.md" in out.stdout
    ports = (pmem / "ports.md").read_text()
    assert "port 8080 in development" in ports and "port 8080 locally and in CI" in ports
    assert "Merged from: " in ports
    index = [l for l in (pmem / "MEMORY.md").read_text().splitlines() if l.startswith("- ")]
    assert sum("ports.md" in l for l in index) == 1
    archive = (pmem / "archive" / "ports.md").read_text()
    assert archive.count("(merged ") == 2
    conv_archive = (pmem / "archive" / "project-conventions.md").read_text()
    assert "~~We use npm for installs~~" in conv_archive
    assert "~~We use npm" not in (pmem / "project-conventions.md").read_text()
    assert "use bun, never npm" in (pmem / "project-conventions.md").read_text()
    again = kioku("organize")
    assert "Nothing to organize." in again.stdout


def test_organize_reports_warn_and_shrinks_large_index(project, pmem):
    api.remember("seed", type="project", topic="bulk")
    text = (pmem / "bulk.md").read_text()
    body = [f"## 2026-01-{1 + i % 28:02d} distinct fact {i} about module{i}\n"
            f"<!-- kioku: id=c{i:07d} type=project created=2026-01-{1 + i % 28:02d}T00:00:00Z -->\n"
            f"distinct fact {i} about module{i} and subsystem{i * 7}\n" for i in range(160)]
    (pmem / "bulk.md").write_text(text + "\n" + "\n".join(body))
    report = api.organize(repair=True)
    folder = [f for f in report.folders if f.scope == "project"][0]
    assert folder.status in ("warn", "full") and folder.index_lines > 150
    plan = api.organize()
    assert sum(p.kind == "archive" for p in plan.proposals) >= folder.index_lines - 120
    applied = api.organize(apply=True)
    folder = [f for f in applied.folders if f.scope == "project"][0]
    assert folder.index_lines <= 121 and folder.status == "ok"
    archived = (pmem / "archive" / "bulk.md").read_text().count("## ")
    kept = (pmem / "bulk.md").read_text().count("## ")
    assert archived + kept == 161  # nothing lost


def test_search_shows_ids_usable_by_forget(project, pmem, kioku):
    api.remember("Use black for formatting python")
    kept = api.remember("Use prettier for formatting javascript")
    out = kioku("search", "prettier", "--lexical")
    memory_id = re.search(r"\[id ([0-9a-f]{8})\]", out.stdout).group(1)
    assert memory_id == kept.id
    assert kioku("forget", "--id", memory_id).returncode == 0
    assert "prettier" not in (pmem / "MEMORY.md").read_text()


def test_text_saved_again_after_it_was_superseded_gets_its_own_id_and_forget_keeps_the_old(project, pmem,
                                                                                          monkeypatch):
    from kioku.memory import save

    monkeypatch.setattr(save, "now_iso", lambda: "2026-12-01T10:00:00Z")  # all three in one second
    first = api.remember("Use npm for installs", type="project", project_root=project)
    api.remember("Use bun for installs", type="project", project_root=project)
    again = api.remember("Use npm for installs", type="project", project_root=project)
    assert again.status == "superseded" and again.id != first.id
    topic = Path(again.topic_file).read_text(encoding="utf-8")
    assert topic.count("Use npm for installs") >= 2
    api.forget(id=again.id, project_root=project)
    kept = Path(again.topic_file).read_text(encoding="utf-8")
    assert f"id={first.id}" in kept  # the superseded original is still in its topic file
    archived = (pmem / "archive" / Path(again.topic_file).name).read_text(encoding="utf-8")
    assert f"id={again.id}" in archived


def test_organize_apply_never_hides_a_fact_from_the_index(project, pmem):
    for n in range(1, 31):  # look-alike facts: no chain of similar pairs becomes one entry
        api.remember(f"Service alpha-amber-{n} stores its logs in bucket amber-alpha-logs-{n}", type="project",
                     topic="services", project_root=project)
    api.remember("API docs live in docs/api", type="project", topic="docs", project_root=project)
    api.remember("User docs live in docs/user", type="project", topic="docs", project_root=project)
    api.organize(project_root=project, apply=True)
    index = (pmem / "MEMORY.md").read_text(encoding="utf-8")
    for n in range(1, 31):
        assert f"alpha-amber-{n} stores" in index
    assert "API docs live in docs/api" in index and "User docs live in docs/user" in index
    from kioku.memory.guard import MAX_CHARS
    from kioku.memory.topics import read_topic

    for path in pmem.glob("*.md"):
        if path.name != "MEMORY.md":
            assert all(len(e.text) <= MAX_CHARS for e in read_topic(path).entries)


def test_search_leaves_out_superseded_memories_unless_history_is_asked_for(project, pmem):
    api.remember("The API listens on port 3000", type="project", project_root=project)
    api.remember("The API now listens on port 8080", type="project", project_root=project)
    hits = api.search("port 3000", project_root=project)
    assert hits and all("3000" not in h.text for h in hits)
    history = api.search("port 3000", project_root=project, archive=True)
    assert any(h.text.startswith("[superseded] The API listens on port 3000") for h in history)


def test_an_index_line_goes_with_the_current_entry_not_a_superseded_copy(project, pmem):
    api.remember("We deploy on Fridays", type="project", project_root=project)
    api.remember("We no longer deploy on Fridays", type="project", project_root=project)
    again = api.remember("We deploy on Fridays", type="project", project_root=project)
    hits = [h for h in api.search("deploy Fridays", project_root=project, archive=True)
            if "We deploy on Fridays" in h.text]
    current = [h for h in hits if not h.text.startswith("[")]
    assert len(current) == 1 and f"id {again.id}" in current[0].text and current[0].context
    assert all(not h.context for h in hits if h.text.startswith("[superseded]"))


def test_forget_names_a_note_written_by_hand_instead_of_saying_nothing_matches(project, pmem):
    api.remember("We use bun for installs")
    index = pmem / "MEMORY.md"
    index.write_text(index.read_text() + "- Standup is at 9:30 in room B\n")
    before = index.read_text()
    with pytest.raises(KiokuError, match=r"note written by hand in .*MEMORY\.md:\d+.*nothing was changed"):
        api.forget("Standup is at 9:30")
    with pytest.raises(KiokuError, match="no memory matches"):
        api.forget("zebra crossing")
    assert index.read_text() == before


def test_forget_also_removes_a_copy_of_the_index_line_and_recall_shows_a_copy_once(project, pmem):
    kept = api.remember("We use pnpm for installs")
    gone = api.remember("The staging server is staging.example.com")
    index = pmem / "MEMORY.md"
    text = index.read_text(encoding="utf-8")
    index.write_text(text + kept.index_line + "\n" + gone.index_line + "\n", encoding="utf-8")  # after a git merge
    assert api.build_recall().count("We use pnpm for installs") == 1
    api.forget(id=gone.id)
    after = index.read_text(encoding="utf-8")
    assert "staging.example.com" not in after and after.count("We use pnpm for installs") == 2
    assert "staging.example.com" not in api.build_recall()


def test_organize_does_not_merge_facts_that_differ_in_value_or_scope_or_may_replace(project, pmem):
    api.remember("The API server listens on port 3000 in development")
    api.remember("The API server listens on port 443 in production")
    api.remember("The Python version is 3.11")
    api.remember("The Python version is 3.12")   # replaces the 3.11 memory
    api.remember("Service billing keeps its runbook in wiki page 12")
    api.remember("Service search keeps its runbook in wiki page 47")
    assert not [p for p in api.organize().proposals if p.kind == "merge"]


def test_a_merged_memory_is_dated_by_its_newest_part_and_a_correction_of_one_part_keeps_it(project, pmem,
                                                                                           monkeypatch):
    monkeypatch.setenv("KIOKU_NOW", "2026-03-01T10:00:00Z")
    api.remember("Always run unit tests before pushing", type="project")
    monkeypatch.setenv("KIOKU_NOW", "2026-03-05T10:00:00Z")
    api.remember("Always run lint before pushing", type="project")
    monkeypatch.setenv("KIOKU_NOW", "2026-06-01T10:00:00Z")
    report = api.organize(apply=True)
    assert [p for p in report.proposals if p.kind == "merge"]
    merged = (pmem / "project-conventions.md").read_text(encoding="utf-8")
    assert "created=2026-03-05" in merged
    result = api.remember("Never run lint before pushing", type="project")
    assert result.status == "saved" and any("kept both" in w for w in result.warnings)
    assert "Always run unit tests before pushing" in api.build_recall()


def test_organize_names_a_deleted_topic_file_its_index_lines_point_to(project, pmem):
    api.remember("We use pnpm for installs")
    api.remember("We squash merge pull requests")
    (pmem / "project-conventions.md").unlink()
    notices = api.organize().notices
    assert any("project-conventions.md, which does not exist" in n and "2 lines" in n for n in notices), notices
    assert "We use pnpm for installs" in (pmem / "MEMORY.md").read_text(encoding="utf-8")


def test_search_without_words_is_a_usage_error_and_a_long_query_is_not_echoed_whole(project, pmem, kioku):
    api.remember("We use pnpm for installs")
    for empty in ("", "   "):
        out = kioku("search", empty)
        assert out.returncode == 2 and "needs words" in out.stderr and out.stdout == ""
    out = kioku("search", "zebra " * 200)
    assert out.returncode == 0 and len(out.stdout.splitlines()[0]) < 250
