"""The save path's shortcuts change nothing: files that cannot hold a duplicate are left
unparsed, yet duplicates, contradictions and index rebuilds behave as with a full parse."""

from __future__ import annotations

from pathlib import Path

from memtest_fixtures import pmem  # noqa: F401
from kioku.memory import api
from kioku.memory.api import _no_duplicate_inside, is_duplicate
from kioku.memory.store import MemoryDir
from kioku.memory.textutil import jaccard, normalize, token_set


def test_unrelated_topic_files_are_skipped_but_duplicates_elsewhere_are_found(project, pmem):
    api.remember("the grafana dashboard for payments lives at panel 42", type="reference", project_root=project)
    api.remember("we use bun for every javascript install", project_root=project)
    tokens = token_set("we use bun for every javascript install!")
    md = MemoryDir(pmem, "project")
    topics = md.load_topics(skip=_no_duplicate_inside(tokens), keep="tech-decisions.md")
    assert [p.name for p in md.skipped] == ["infrastructure-notes.md"]
    assert "project-conventions.md" in topics
    again = api.remember("We use bun for every JavaScript install!", project_root=project)
    assert again.status == "duplicate"


def test_contradiction_in_another_file_still_supersedes(project, pmem):
    api.remember("the grafana dashboard for payments lives at panel 42", type="reference", project_root=project)
    first = api.remember("always use npm for installs", project_root=project)
    second = api.remember("use pnpm for installs, never npm", topic="tooling", project_root=project)
    assert second.status == "superseded" and first.summary in second.superseded


def test_missing_index_is_rebuilt_from_every_file_even_skipped_ones(project, pmem):
    api.remember("the grafana dashboard for payments lives at panel 42", type="reference", project_root=project)
    api.remember("the staging cluster restarts nightly at 02:00", type="reference", project_root=project)
    (pmem / "MEMORY.md").unlink()
    api.remember("release notes are drafted by the docs team", project_root=project)
    text = (pmem / "MEMORY.md").read_text()
    for words in ("panel 42", "restarts nightly", "release notes"):
        assert words in text


def test_is_duplicate_bound_agrees_with_the_full_check():
    old = ["Build agent 3 uses the arm64 runner pool", "build agent 3 uses the arm64 runner pool.",
           "the arm64 runner pool is used by build agent 3", "We use bun", "we use bun, never npm",
           "don't use npm", "Never use npm", "テストにはRedisが必要", "ＡＢＣ full width", "it's the user's choice"]
    new = old + ["build agent 4 uses the arm64 runner pool", "use bun", "abc full width", "its the users choice"]
    for a in new:
        for b in old:
            full = normalize(a) == normalize(b) or jaccard(token_set(a), token_set(b)) >= 0.8
            assert is_duplicate(a, token_set(a), b) == full, (a, b)


def test_non_ascii_files_are_skipped_too_and_japanese_duplicates_still_found(project, pmem):
    api.remember("the grafana dashboard for payments lives at panel 42 … and “quoted”", type="reference",
                 project_root=project)
    api.remember("テストにはRedisが必要です", project_root=project)  # infrastructure-notes.md too
    assert sorted(p.name for p in pmem.glob("*.md")) == ["MEMORY.md", "infrastructure-notes.md"]
    md = MemoryDir(pmem, "project")
    md.load_topics(skip=_no_duplicate_inside(token_set("build agent 7 uses the arm64 runner pool")), keep="x.md")
    assert [p.name for p in md.skipped] == ["infrastructure-notes.md"]
    md = MemoryDir(pmem, "project")
    topics = md.load_topics(skip=_no_duplicate_inside(token_set("ﾃｽﾄにはRedisが必要です")), keep="x.md")
    assert md.skipped == [] and "infrastructure-notes.md" in topics
    assert api.remember("ﾃｽﾄにはRedisが必要です", project_root=project).status == "duplicate"


def test_entry_groups_equals_the_entry_regex():
    import random

    from kioku.memory.index import ENTRY_RE, entry_groups

    pieces = ["- [", "* [", "-  [", "project", "user", "Feedback", "reference", "other", "]", "] ", "]  ", "a", "b c",
              " → ", "→", " -> ", "x.md", "y.md ", "/x.md", "a\\b.md", ".md", "  ", "\t", "…", "~~", "-", "→ z.md"]
    rng = random.Random(5)
    lines = ["- [project] we use bun → project-conventions.md", "- [user] x → a b.md", "- [project]  a → b.md",
             "- [project] a  → b.md", "- [project] a →  b.md", "- [project] a → b.md → c.md", "- [project] a → .md",
             "- [project] a ->b.md → c.md", "- [project] a → b.md -> c.md", "- [user] → b.md", "- [user]x → b.md"]
    lines += ["".join(rng.choice(pieces) for _ in range(rng.randint(2, 9))) for _ in range(4000)]
    for line in lines:
        match = ENTRY_RE.match(line)
        assert entry_groups(line) == (match.groups() if match else None), line
