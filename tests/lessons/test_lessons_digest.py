"""The hook-side digest: kept up to date by writes, read without chromadb."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kioku.lessons import digest
from kioku.lessons.digest_refresh import refresh_digest
from kioku.lessons import improvements as im
from kioku.learning import evidence, lifecycle


def test_digest_follows_writes_and_usage(project, store_of):
    g = im.learn("coder", "Quote every variable in shell scripts", "code_quality", 0.8)[0]
    p = im.learn("coder", "Services live in app/services", "architecture_patterns", 0.9)[0]
    both = im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    entries = digest.read_digest("coder", project)
    assert [e["id"] for e in entries][:2] == [p, g]  # higher confidence first
    assert [e["improvement"] for e in entries].count("Deploy from the release branch") == 1
    dep = next(e for e in entries if e["improvement"] == "Deploy from the release branch")
    assert dep["scope"] == "project" and dep["id"] == both[1]
    assert {"id", "improvement", "confidence", "success_rate", "category", "scope"} <= set(entries[0])
    # a deprecation (10 failed turns given vs 10 successful held back) removes the entry
    for n in range(10):
        evidence.write_turn("coder", f"s{n}", "t1", {g: "global"}, {}, False, 0.0)
        evidence.write_turn("coder", f"h{n}", "t1", {}, {g: "global"}, True, 0.0)
    assert lifecycle.refresh("coder", {g: "global"}, project) == {g: "deprecated"}
    assert g not in [e["id"] for e in digest.read_digest("coder", project)]
    path = Path(digest.digest_path("coder", "global", project))
    assert path.stat().st_mode & 0o777 == 0o600 and json.loads(path.read_text())["agent"] == "coder"


def test_digest_is_capped_and_full_rebuild_matches(project):
    for n in range(digest.MAX_ENTRIES + 5):
        im.learn("bulk", f"Lesson number {n} about topic {n}", "code_quality", 0.7 + (n % 20) / 100)
    entries = digest.read_digest("bulk", project)
    assert len(entries) == digest.MAX_ENTRIES
    assert entries[0]["confidence"] == 0.89
    before = [e["id"] for e in entries]
    refresh_digest("bulk", None, project)
    assert [e["id"] for e in digest.read_digest("bulk", project)] == before


def test_read_digest_without_chromadb_and_missing_files(project):
    im.learn("coder", "Quote every variable in shell scripts", "code_quality", 0.8)
    code = ("import sys, json; from kioku.lessons.digest import read_digest; "
            "print(json.dumps([len(read_digest('coder')), len(read_digest('ghost')), "
            "'chromadb' in sys.modules, 'numpy' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project, check=True)
    assert json.loads(out.stdout) == [1, 0, False, False]


def test_damaged_digest_is_ignored(project):
    im.learn("coder", "Quote every variable in shell scripts", "code_quality", 0.8)
    path = Path(digest.digest_path("coder", "global", project))
    for junk in ("{not json", '{"entries": "nope"}', '{"entries": [1, {"improvement": 3}, {"improvement": "x", "score": "bad"}]}'):
        path.write_text(junk)
        got = digest.read_digest("coder", project)
        assert all(isinstance(e["improvement"], str) for e in got)
    refresh_digest("coder", "global", project)
    assert [e["improvement"] for e in digest.read_digest("coder", project)] == ["Quote every variable in shell scripts"]


def test_agent_names_differing_by_dots_or_case_get_their_own_digest(project):
    groups = [("a", "a."), ("a..b", "a_b", "a.b"), ("Main", "main"), ("x_", "x")]
    for names in groups:
        paths = {digest.digest_path(name, "global", project) for name in names}
        assert len(paths) == len(names), names
        assert len({p.lower() for p in paths}) == len(names)  # a case-insensitive file system too
        for name in names:
            im.learn(name, f"Lesson that only {name} learned about caching", "code_quality", 0.8, scope="global")
        for name in names:
            got = [e["improvement"] for e in digest.read_digest(name, project)]
            assert got == [f"Lesson that only {name} learned about caching"], (name, got)
    assert Path(digest.digest_path("code-finder", "global", project)).name == "code-finder.json"


def test_a_digest_written_for_another_agent_is_ignored(project):
    im.learn("a.", "Lesson of the dotted agent", "code_quality", 0.8, scope="global")
    data = json.loads(Path(digest.digest_path("a.", "global", project)).read_text())
    path = Path(digest.digest_path("a", "global", project))
    path.write_text(json.dumps(data))  # the file of "a" holds "a."'s lessons
    assert digest.read_digest("a", project) == []
    # a digest under the earlier naming is read while it names the same agent, and replaced by
    # the current file at the next refresh
    legacy = path.parent / "Old.json"
    legacy.write_text(json.dumps({**data, "agent": "Old"}))
    assert Path(digest.digest_path("Old", "global", project)) != legacy
    assert [e["improvement"] for e in digest.read_digest("Old", project)] == ["Lesson of the dotted agent"]
    legacy.write_text(json.dumps({**data, "agent": "OLD"}))
    assert digest.read_digest("Old", project) == []
    legacy.write_text(json.dumps({**data, "agent": "Old"}))
    im.learn("Old", "Lesson of the old agent", "code_quality", 0.8, scope="global")
    assert not legacy.exists()
    assert [e["improvement"] for e in digest.read_digest("Old", project)] == ["Lesson of the old agent"]


def test_agents_whose_names_differ_only_in_dots_keep_their_own_files() -> None:
    from kioku.lessons import maintenance, usage
    from kioku.infra.names import agent_file_stem

    names = ["a", "a.", "a..b", "a_b", "Main", "main", "code-finder"]
    assert len({agent_file_stem(n) for n in names}) == len(names)
    assert len({str(maintenance.stamp_path(n)) for n in names}) == len(names)
    assert len({usage.usage_lock(n) for n in names}) == len(names)
    assert agent_file_stem("code-finder") == "code-finder"  # plain names keep their files
