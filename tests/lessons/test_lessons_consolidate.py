"""Consolidation across agents: calibration, cross-validation, conflicts, transfers, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kioku.lessons import consolidate as co
from kioku.lessons import improvements as im
from kioku.lessons import lesson_retrieval as lr
from kioku.retrieval.embedder import get_embedder

DATA = Path(__file__).parent / "data" / "equivalence_pairs.json"


def test_equivalence_threshold_separates_paraphrases_from_related_lessons():
    pairs = json.loads(DATA.read_text(encoding="utf-8"))["pairs"]
    y = np.array([p["equivalent"] for p in pairs])
    assert len(pairs) >= 30 and y.sum() >= 12 and (~y).sum() >= 12
    emb = get_embedder()
    cos = (emb.embed([p["a"] for p in pairs]) * emb.embed([p["b"] for p in pairs])).sum(1)
    lo, hi = float(cos[~y].max()), float(cos[y].min())
    assert lo < co.EQUIVALENCE_THRESHOLD < hi  # F1 = 1.0 on the labelled set
    assert abs((lo + hi) / 2 - co.EQUIVALENCE_THRESHOLD) <= 0.02


def test_polarity_and_subject():
    assert co.polarity("Always quote shell variables") == 1
    assert co.polarity("Never quote shell variables") == -1
    assert co.polarity("Avoid mocking the database") == -1
    assert co.polarity("Don't use tabs") == -1
    assert co.polarity("The linter runs in CI") == 0
    assert co.subject("Never quote shell variables") == co.subject("Always quote shell variables")


def test_one_place_differences_are_told_from_rewordings():
    for a, b in (("Use tabs for indentation in Python files", "Use spaces for indentation in Python files"),
                 ("Retry failed requests at most 3 times", "Retry failed requests at most 5 times"),
                 ("Use pnpm to install packages", "Use npm to install packages"),
                 ("Deploy on Tuesdays", "Deploy on Fridays"),
                 ("インデントはタブを使う", "インデントはスペースを使う"),
                 ("ビルドはサーバーで実行する", "ビルドはローカルで実行する"),  # both hold "ー"
                 ("Store logs compressed", "Store logs uncompressed"),
                 ("Use synchronous calls in the worker", "Use asynchronous calls in the worker"),
                 ("Encrypt the backup before upload", "Decrypt the backup before upload"),
                 ("Run pytest with -s", "Run pytest with -x"),
                 ("Pass -t to docker run", "Pass -d to docker run"),
                 ("Pin Node to v1.10", "Pin Node to v11.0"),
                 ("Run database migrations before deploying", "Run database migrations after deploying"),
                 ("Run lint before tests", "Run tests before lint"),
                 ("Run lint before tests in CI", "Run tests before lint in CI"),  # shared words after the swap
                 ("Merge main into your branch before pushing", "Merge your branch into main before pushing"),
                 ("Prefer tabs over spaces", "Prefer spaces over tabs"),
                 ("Use pytest instead of unittest", "Use unittest instead of pytest"),
                 ("Indent with tabs, not spaces", "Indent with spaces, not tabs"),
                 ("Copy the config from staging to production", "Copy the config from production to staging"),
                 ("Rebase more often than you merge", "Merge more often than you rebase"),
                 ("Use the same database for tests and development",
                  "Use a separate database for tests and development"),
                 ("Stage changes with git add -A", "Stage changes with git add -p"),
                 ("Serialize the payload before caching", "Deserialize the payload before caching"),
                 ("Merge feature branches with --ff-only", "Merge feature branches with --no-ff"),  # share "ff"
                 ("Run git pull --rebase before pushing", "Run git pull --no-rebase before pushing"),
                 ("Delete merged branches with git branch -d", "Delete merged branches with git branch -D"),
                 ("マージ済みのブランチは git branch -d で削除する", "マージ済みのブランチは git branch -D で削除する"),
                 ("Start the JVM with -Xmx512m", "Start the JVM with -Xmx215m"),
                 ("npmではなくyarnを使う", "yarnではなくnpmを使う"),  # swapped sides, short Japanese
                 ("タブではなくスペースを使う", "スペースではなくタブを使う"),
                 ("テストの前にlintを実行する", "lintの前にテストを実行する")):
        assert co.differ_in_one_place(a, b), (a, b)
    for a, b in (("Use 4 spaces for indentation", "Use spaces for indentation"),  # a refinement
                 ("Run the tests before you commit", "Run the tests before committing"),
                 ("Always squash commits before merging", "Always squash your commits before a merge"),
                 ("Make database migrations reversible", "Every database migration should be reversible"),
                 ("Use tabs for indentation", "Use tabs for indentation"),
                 ("Never hard-code secrets", "Never hardcode secrets"),
                 ("Set up a virtual environment first", "Setup a virtual environment first"),
                 ("Check the CI logs before re-running a failed job", "Check the CI logs before rerunning a failed job"),
                 ("Profile the code before optimizing it", "Profile the code before optimising it"),
                 ("Use postgres for new services", "Use postgresql for new services"),
                 ("Keep commits small and focused", "Keep commits focused and small"),
                 ("Run tests before you push", "Before pushing, run the tests"),
                 ("Rebase onto main before merging", "Before merging, rebase onto main"),
                 ("Run smoke tests after deploying", "After deploying, run smoke tests"),
                 ("Pass --use-feature=truststore to pip", "Always pass --use-feature=truststore to pip"),
                 ("npmではなくyarnを使う", "npmの代わりにyarnを使う"),  # two ways to say "instead of"
                 ("Remove build folders with rm -rf", "Remove build folders with rm -fr"),  # the same letters
                 ("ビルドフォルダは rm -rf で消す", "ビルドフォルダは rm -fr で消す"),
                 ("コミットする前に必ずテストを実行する", "コミット前に必ずテストを実行する"),
                 ("Start bash scripts with set -euo pipefail", "Bash scripts start with set -euo pipefail"),
                 # a dash is not Japanese: the stretch may still be 3 words at most
                 ("Before merging, run the full test suite locally and wait for green CI \u2014 it saves time",
                  "Before merging, ask a teammate to review the diff and wait for green CI \u2014 it saves time")):
        assert not co.differ_in_one_place(a, b), (a, b)
    pairs = json.loads(DATA.read_text(encoding="utf-8"))["pairs"]
    assert not [p for p in pairs if co.differ_in_one_place(p["a"], p["b"])]


def test_lessons_that_differ_in_one_value_are_a_conflict_not_a_shared_lesson(project, store_of):
    tabs = im.learn("alice", "Use tabs for indentation in Python files", "code_quality", 0.9)[0]
    spaces = im.learn("bob", "Use spaces for indentation in Python files", "code_quality", 0.8)[0]
    im.learn("carol", "Keep README headings in sentence case", "documentation_style", 0.8)
    report = co.consolidate(["alice", "bob", "carol"], project_root=project)
    assert report["equivalent_groups"] == [] and report["transfers"] == []
    [conflict] = report["conflicts"]
    assert conflict["kind"] == "different values" and {conflict["a"]["id"], conflict["b"]["id"]} == {tabs, spaces}
    assert store_of("global").count("carol", "improvements") == 1
    assert not store_of("global").get("alice", "improvements", ids=[tabs])[0].metadata["cross_validated"]


def test_a_paraphrase_joining_both_sides_of_a_conflict_confirms_neither(project, store_of, kioku):
    tabs = im.learn("alice", "Use tabs for indentation in Python files", "code_quality", 0.9)[0]
    spaces = im.learn("bob", "Use spaces for indentation in Python files", "code_quality", 0.8)[0]
    im.learn("carol", "Indent Python files with tabs, not spaces", "code_quality", 0.8)
    im.learn("dave", "Keep README headings in sentence case", "documentation_style", 0.8)
    res = kioku("lessons", "consolidate", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "CONFLICT (different values)" in res.stdout
    report = co.consolidate(["alice", "bob", "carol", "dave"], project_root=project)
    assert report["equivalent_groups"] and report["transfers"] == []  # carol's lesson joins both sides
    assert all(g["conflicted"] for g in report["equivalent_groups"])
    assert "(conflicted: neither marked nor transferred)" in res.stdout
    store = store_of("global")
    for agent, rid in (("alice", tabs), ("bob", spaces)):
        assert not store.get(agent, "improvements", ids=[rid])[0].metadata["cross_validated"]
    assert store.count("dave", "improvements") == 1


def test_an_opposite_in_other_words_still_conflicts_and_stops_the_transfer(project):
    im.learn("alice", "Always mock external APIs in unit tests", "testing_patterns", 0.9)
    im.learn("bob", "Always mock external APIs in every unit test", "testing_patterns", 0.8)
    im.learn("carol", "Never stub external APIs in unit tests", "testing_patterns", 0.8)
    report = co.consolidate(["alice", "bob", "carol"], dry_run=True, project_root=project)
    assert {c["kind"] for c in report["conflicts"]} == {"opposite"}
    assert report["equivalent_groups"] and report["transfers"] == []  # alice and bob agree
    assert all(g["conflicted"] for g in report["equivalent_groups"])


def _seed():
    a = im.learn("alice", "Run the failing test in isolation before changing any code", "testing_patterns", 0.9)[0]
    b = im.learn("bob", "Before editing code, run only the failing test on its own first", "testing_patterns", 0.8)[0]
    c1 = im.learn("carol", "Always mock the database in unit tests", "testing_patterns", 0.8)[0]
    b2 = im.learn("bob", "Never mock the database in unit tests", "testing_patterns", 0.8)[0]
    im.learn("carol", "Keep README headings in sentence case", "documentation_style", 0.8)
    return a, b, c1, b2


def test_consolidate_marks_transfers_and_flags_conflicts(project, store_of):
    a, b, c1, b2 = _seed()
    store = store_of("global")
    dry = co.consolidate(["alice", "bob", "carol"], dry_run=True, project_root=project)
    assert len(dry["equivalent_groups"]) == 1 and len(dry["transfers"]) == 1
    assert store.count("carol", "improvements") == 2  # dry run wrote nothing
    assert not store.get("alice", "improvements", ids=[a])[0].metadata["cross_validated"]

    report = co.consolidate(["alice", "bob", "carol"], project_root=project)
    [group] = report["equivalent_groups"]
    assert group["agents"] == ["alice", "bob"] and not group["conflicted"]
    for agent, rid in (("alice", a), ("bob", b)):
        m = store.get(agent, "improvements", ids=[rid])[0].metadata
        assert m["cross_validated"] is True and m["validating_agents"] == "alice,bob"
    [conflict] = report["conflicts"]
    assert {conflict["a"]["id"], conflict["b"]["id"]} == {c1, b2} and conflict["kind"] == "opposite"
    [transfer] = report["transfers"]
    assert transfer["to"] == "carol" and transfer["original_id"] == a
    [new_id] = transfer["ids"]
    got = store.get("carol", "improvements", ids=[new_id])[0]
    assert got.document == "Run the failing test in isolation before changing any code"
    m = got.metadata
    assert m["confidence"] == 0.81 and m["source"] == "system_principles"
    assert m["consolidation_eligible"] is False and m["cross_validated"] is True
    assert m["original_id"] == a and m["validating_agents"] == "alice,bob"
    assert m["tags"] == ""

    # idempotent: the transferred principle is not consolidated again and nothing echoes back;
    # a re-run writes nothing and so reports no transfer and no new cross-validation
    seq = store.journal.last_seq()
    again = co.consolidate(["alice", "bob", "carol"], project_root=project)
    assert again["transfers"] == [] and again["cross_validated"] == 0 and len(again["equivalent_groups"]) == 1
    assert store.journal.last_seq() == seq
    assert store.count("carol", "improvements") == 3 and store.count("alice", "improvements") == 1
    assert new_id not in [r.id for r in co.consolidatable("carol")]


def test_conflicting_group_is_not_transferred(project):
    im.learn("alice", "Always squash commits before merging", "code_quality", 0.8)
    im.learn("bob", "Always squash your commits before a merge", "code_quality", 0.8)
    im.learn("carol", "Never squash commits before merging", "code_quality", 0.8)
    report = co.consolidate(["alice", "bob", "carol"], project_root=project)
    assert report["conflicts"] and all(g["conflicted"] for g in report["equivalent_groups"])
    assert report["transfers"] == []


def test_cli_consolidate_text(project, kioku):
    _seed()
    res = kioku("lessons", "consolidate", "--dry-run", cwd=project)  # all agents found in the store
    assert res.returncode == 0, res.stderr
    assert "(dry run)" in res.stdout and "CONFLICT (opposite)" in res.stdout and "-> carol" in res.stdout


def test_cross_validation_activates_a_user_feedback_candidate(project, store_of):
    im.learn("alice", "Run the failing test in isolation before changing any code", "testing_patterns", 0.9)
    [cand] = im.learn("bob", "Before editing code, run only the failing test on its own first",
                      "testing_patterns", 0.6, learned_from="user_feedback")
    assert lr.retrieve("bob", "fix the failing test") == []  # a candidate is not injected
    co.consolidate(["alice", "bob"], project_root=project)
    m = store_of("global").get("bob", "improvements", ids=[cand])[0].metadata
    assert m["cross_validated"] is True and m["confidence"] == 0.7
    assert [h.id for h in lr.retrieve("bob", "fix the failing test")] == [cand]


def test_a_clone_does_not_confirm_its_original(project, store_of):
    from kioku.lessons.transfer import rollback as lifecycle

    store = store_of("global")
    a = im.learn("alice", "Run the failing test in isolation before changing any code", "testing_patterns", 0.9)[0]
    lifecycle.clone("alice", "bob", project)
    lifecycle.clone("bob", "dave", project)  # a clone of a clone keeps the first original
    report = co.consolidate(["alice", "bob", "dave"], project_root=project)
    assert report["equivalent_groups"] == [] and report["cross_validated"] == 0 and report["transfers"] == []
    assert not store.get("alice", "improvements", ids=[a])[0].metadata["cross_validated"]
    # an agent that learned the lesson on its own is an independent confirmation
    im.learn("carol", "Before editing code, run only the failing test on its own first", "testing_patterns", 0.8)
    report = co.consolidate(["alice", "bob", "carol", "dave"], project_root=project)
    [group] = report["equivalent_groups"]
    assert group["agents"] == ["alice", "bob", "carol", "dave"] and report["cross_validated"] == 4


def test_two_clones_of_one_lesson_do_not_confirm_each_other(project):
    from kioku.lessons.transfer import rollback as lifecycle

    im.learn("alice", "Run the failing test in isolation before changing any code", "testing_patterns", 0.9)
    lifecycle.clone("alice", "bob", project)
    lifecycle.clone("alice", "carol", project)
    report = co.consolidate(["bob", "carol"], project_root=project)  # both point at alice's lesson
    assert report["equivalent_groups"] == [] and report["cross_validated"] == 0
