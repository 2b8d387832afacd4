"""MEMORY.md at its line limit: Kioku's own entries come before lines written by hand. Those
are moved, never deleted, to ``MEMORY.md.hand-written-<time>``, the warning says so, Kioku's
entries keep their place by type (feedback first), and ``organize`` proposes archiving only
the truly oldest entries, for Kioku's own lines."""

from __future__ import annotations

import re
from pathlib import Path

from memtest_fixtures import pmem  # noqa: F401
from kioku.memory import api
from kioku.memory.index import MAX_LINES

HAND = [f"- [project] hand-kept link {i} to the wiki → wiki-notes.md" for i in range(200)]


def _bulk_entry(date: str, created: str, i: int) -> str:
    return (f"## {date} bulk fact {i} about component{i}\n"
            f"<!-- kioku: id=p{i:07d} type=project created={created} -->\n"
            f"bulk fact {i} about component{i}\n")


def _bulk(pmem: Path, body: list[str]) -> None:
    """A saved ``bulk.md`` topic file with ``body``'s entries written into it by hand."""
    api.remember("seed fact", type="project", topic="bulk")
    topic = pmem / "bulk.md"
    topic.write_text(topic.read_text(encoding="utf-8") + "\n" + "\n".join(body), encoding="utf-8")


def _entries(index: Path) -> list[str]:
    return [line for line in index.read_text(encoding="utf-8").splitlines() if line.startswith("- [")]


def test_hand_written_entry_lines_give_way_to_kiokus_entries(project, pmem, kioku):
    api.remember("Don't rewrite files wholesale; edit them in place", type="feedback")
    api.remember("The API uses Postgres 16 for storage", type="project")
    index = pmem / "MEMORY.md"
    text = index.read_text(encoding="utf-8")
    index.write_text(text.replace("## Project\n", "## Project\n" + "\n".join(HAND) + "\nsee the wiki too\n"),
                     encoding="utf-8")
    out = kioku("remember", "Deploys go through the release branch", "--type", "project")
    assert out.returncode == 0, out.stderr
    entries = _entries(index)
    assert any("edit them in place" in e for e in entries)  # feedback kept
    assert any("Postgres 16" in e for e in entries) and any("release branch" in e for e in entries)
    assert not any("hand-kept link" in e for e in entries) and len(index.read_text().splitlines()) <= MAX_LINES
    moved = list(pmem.glob("MEMORY.md.hand-written-*"))
    assert len(moved) == 1
    kept = moved[0].read_text(encoding="utf-8")
    assert all(line in kept for line in HAND) and "see the wiki too" in kept  # moved, not deleted
    assert "201 hand-written lines" in out.stderr and moved[0].name in out.stderr
    assert "original kept" not in out.stderr and "index is full" not in out.stderr
    assert not list(pmem.glob("MEMORY.md.corrupt-*"))


def test_save_result_says_indexed_when_only_hand_lines_filled_the_index(project, pmem):
    api.remember("The API uses Postgres 16 for storage", type="project")
    index = pmem / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8").replace("## Project\n", "## Project\n" + "\n".join(HAND) + "\n"),
                     encoding="utf-8")
    result = api.remember("Keep answers short", type="feedback")
    assert result.indexed and any("moved to MEMORY.md.hand-written-" in w for w in result.warnings)
    assert "Keep answers short" in index.read_text(encoding="utf-8")


def test_entries_that_do_not_fit_are_kept_by_type_feedback_first(project, pmem):
    _bulk(pmem, [_bulk_entry("2026-01-02", f"2026-01-02T00:{i // 60:02d}:{i % 60:02d}Z", i) for i in range(230)])
    # the corrections are the newest entries: filled in oldest first they would not fit
    feedback = pmem / "feedback-history.md"
    feedback.write_text("---\ntype: feedback\n---\n\n" + "\n".join(
        f"## 2026-06-01 correction {i} about style{i}\n"
        f"<!-- kioku: id=f{i:07d} type=feedback created=2026-06-01T00:00:{i:02d}Z -->\n"
        f"correction {i} about style{i}\n" for i in range(20)), encoding="utf-8")
    (pmem / "MEMORY.md").unlink()
    api.organize(repair=True)
    entries = _entries(pmem / "MEMORY.md")
    assert len((pmem / "MEMORY.md").read_text().splitlines()) <= MAX_LINES
    assert sum("[feedback]" in e for e in entries) == 20
    assert sum("[project]" in e for e in entries) == len(entries) - 20


def test_organize_does_not_propose_archiving_for_hand_written_lines(project, pmem):
    first = api.remember("The API uses Postgres 16 for storage", type="project")
    index = pmem / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8").replace("## Project\n", "## Project\n" + "\n".join(HAND) + "\n"),
                     encoding="utf-8")
    newest = api.remember("Deploys go through the release branch", type="project")
    index.write_text(index.read_text(encoding="utf-8").replace("## Project\n", "## Project\n" + "\n".join(HAND) + "\n"),
                     encoding="utf-8")
    report = api.organize()
    assert not [p for p in report.proposals if p.kind == "archive"]  # neither entry is "oldest" of too many
    folder = next(f for f in report.folders if f.scope == "project")
    assert folder.hand_written == len(HAND) and folder.status == "ok"
    assert {first.id, newest.id}.isdisjoint(i for p in report.proposals for i in p.ids)


def test_oldest_entries_are_found_by_time_not_by_text(project, pmem):
    body = [_bulk_entry("2026-01-01", f"2026-01-01T{i // 60:02d}:{i % 60:02d}:00Z", i) for i in range(170)]
    # written in Tokyo time: 08:59+09:00 is 23:59 UTC the day before, the oldest of all
    body.append("## 2026-01-01 tokyo fact about the release calendar\n"
                "<!-- kioku: id=tokyo001 type=project created=2026-01-01T08:59:00+09:00 -->\n"
                "tokyo fact about the release calendar\n")
    _bulk(pmem, body)
    api.organize(repair=True)
    report = api.organize()
    archived = [p.ids[0] for p in report.proposals if p.kind == "archive"]
    assert archived and archived[0] == "tokyo001"
    assert "p0000000" in archived and "p0000169" not in archived
    assert all(re.match(r"oldest entry \(2026-01-01\)", p.reason) for p in report.proposals if p.kind == "archive")


def test_a_full_index_tells_kiokus_lines_from_hand_lines_in_files_the_save_leaves_unparsed(project, pmem):
    """A save reads only the topic files that could hold a duplicate or a contradiction; at the
    limit, the lines pointing into the others are judged from their bytes: Kioku's entries stay,
    a hand-written line pointing into such a file gives way."""
    for i in range(189):
        api.remember(f"service unit{i} writes its logs to bucket logs-unit{i}", type="project", topic="services")
    index = pmem / "MEMORY.md"
    text = index.read_text(encoding="utf-8")
    hand = "- [project] hand-written pointer to the queue notes → services.md"
    index.write_text(text.replace("## Project\n", "## Project\n" + hand + "\n"), encoding="utf-8")
    assert len(index.read_text(encoding="utf-8").splitlines()) >= MAX_LINES
    result = api.remember("The release calendar is owned by Aiko", type="project", topic="people")
    after = index.read_text(encoding="utf-8")
    assert result.indexed and "owned by Aiko" in after and hand not in after
    assert all(f"unit{i} writes" in after for i in range(189))
    assert any(hand in p.read_text(encoding="utf-8") for p in pmem.glob("MEMORY.md.hand-written-*"))


def test_a_heading_whose_summary_the_index_rewrote_stays_kiokus_at_a_full_index(project, pmem):
    """"→" in a heading is "->" in its index line: the byte test cannot find it, so the file is
    parsed and the line is kept as Kioku's."""
    for i in range(189):
        api.remember(f"service unit{i} writes its logs to bucket logs-unit{i}", type="project", topic="services")
    api.remember("Requests flow gateway → queue → worker", type="project", topic="flow")
    flow = pmem / "flow.md"  # the heading edited by hand to the arrow the index line cannot hold
    flow.write_text(flow.read_text(encoding="utf-8").replace("gateway -> queue -> worker", "gateway → queue → worker"),
                    encoding="utf-8")
    index = pmem / "MEMORY.md"
    assert len(index.read_text(encoding="utf-8").splitlines()) >= MAX_LINES
    assert "gateway -> queue -> worker" in index.read_text(encoding="utf-8")
    api.remember("The release calendar is owned by Aiko", type="project", topic="people")
    after = index.read_text(encoding="utf-8")
    assert "gateway -> queue -> worker" in after
    assert not any("gateway" in p.read_text(encoding="utf-8") for p in pmem.glob("MEMORY.md.hand-written-*"))
