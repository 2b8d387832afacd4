"""Rollback, clone, export/import round trips, and the agent's static .md staying untouched."""

from __future__ import annotations

import hashlib
import json
import time

import pytest

from kioku.lessons import consolidate as co
from kioku.lessons import improvements as im
from kioku.lessons.transfer import rollback as lifecycle
from kioku.lessons import maintenance
from kioku.learning import evidence
from kioku.learning import lifecycle as learning_lifecycle
from kioku.lessons.transfer.exchange import export_agent, parse_markdown
from kioku.lessons.transfer.importing import import_file
from kioku.infra.errors import SecretRejected, UsageError


def test_parse_timestamp():
    assert lifecycle.parse_timestamp("2026-01-02T03:04:05Z") == lifecycle.parse_timestamp("2026-01-02T03:04:05")
    assert lifecycle.parse_timestamp("1700000000.5") == 1700000000.5
    assert lifecycle.parse_timestamp("2026-01-02") == lifecycle.parse_timestamp("2026-01-02T00:00:00+00:00")
    with pytest.raises(UsageError):
        lifecycle.parse_timestamp("last tuesday")
    for odd in ("1e30", "nan", "inf", "-1e20", float("nan"), "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        with pytest.raises(UsageError, match="between the years"):
            lifecycle.parse_timestamp(odd)


def test_rollback_removes_later_lessons_archives_them_and_reverts_decisions(project, store_of, kioku):
    store = store_of("global")
    keep = im.learn("coder", "Quote every shell variable", "code_quality", 0.9)[0]
    both = im.learn("coder", "Deploy previews from the release branch", "deployment", 0.8)
    time.sleep(1.1)
    cut = time.time()
    time.sleep(0.1)
    later = im.learn("coder", "Rewrite modules from scratch", "code_quality", 0.8)[0]
    for n in range(20):  # 19/20 given turns succeed, 8/20 held-back turns: promoted after the cut
        evidence.write_turn("coder", f"s{n}", "t1", {keep: "global"}, {}, n > 0, 0.0)
        evidence.write_turn("coder", f"h{n}", "t1", {}, {keep: "global"}, n < 8, 0.0)
    assert learning_lifecycle.refresh("coder", {keep: "global"}, project) == {keep: "promoted"}
    assert store.get("coder", "improvements", ids=[keep])[0].metadata["confidence"] == 0.95
    res = kioku("lessons", "rollback", "--agent", "coder", "--to", str(cut), "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert [r["id"] for r in report["removed"]] == [later] and report["unpromoted"] == [keep]
    ids = {r.id for r in store.get("coder", "improvements")}
    assert ids == {keep, both[0]} and store_of("project").count("coder", "improvements") == 1
    m = store.get("coder", "improvements", ids=[keep])[0].metadata
    assert m["promoted"] is False and m["confidence"] == 0.9 and m["usage_count"] == 20
    rows = [json.loads(x) for x in open(report["archive"], encoding="utf-8")]
    assert [r["id"] for r in rows] == [later]
    import_file(report["archive"])  # nothing lost
    assert later in {r.id for r in store.get("coder", "improvements")}


def _turns(lesson: str, prefix: str, given: tuple[int, int], held: tuple[int, int]) -> None:
    """Credit ``lesson`` with (turns, successes) given and held back, one session per turn."""
    for n in range(given[0]):
        evidence.write_turn("coder", f"{prefix}g{n}", "t1", {lesson: "global"}, {}, n < given[1], 0.0)
    for n in range(held[0]):
        evidence.write_turn("coder", f"{prefix}h{n}", "t1", {}, {lesson: "global"}, n < held[1], 0.0)


def _moment_apart() -> float:
    """A time more than a second after what came before it and before what comes after it."""
    time.sleep(1.1)
    moment = time.time()
    time.sleep(0.1)
    return moment


def test_a_lesson_rollback_brings_back_stays_until_its_next_look(project, store_of, kioku):
    store = store_of("global")
    lesson = im.learn("coder", "Retry flaky tests three times before reporting", "code_quality", 0.8)[0]
    cut = _moment_apart()
    _turns(lesson, "a", (40, 10), (40, 30))  # 10/40 given against 30/40 held back: hurts, at the fourth look
    assert learning_lifecycle.refresh("coder", {lesson: "global"}, project) == {lesson: "deprecated"}
    report = json.loads(kioku("lessons", "rollback", "--agent", "coder", "--to", str(cut), "--json", cwd=project).stdout)
    assert report["undeprecated"] == [lesson]
    # one more credited turn, no look due: the evidence that retired it is not read again at once
    _turns(lesson, "b", (1, 1), (0, 0))
    assert learning_lifecycle.refresh("coder", {lesson: "global"}, project) == {lesson: "active"}
    assert store.get("coder", "improvements", ids=[lesson])[0].metadata["deprecated"] is False


def test_rollback_gives_back_a_promotion_withdrawn_after_the_cut(project, store_of, kioku):
    store = store_of("global")
    lesson = im.learn("coder", "Quote every shell variable", "code_quality", 0.9)[0]
    learned = _moment_apart()
    _turns(lesson, "a", (20, 19), (20, 8))
    assert learning_lifecycle.refresh("coder", {lesson: "global"}, project) == {lesson: "promoted"}
    promoted = dict(store.get("coder", "improvements", ids=[lesson])[0].metadata)
    cut = _moment_apart()
    _turns(lesson, "b", (20, 8), (20, 19))  # 27/40 on each side now: the promotion is withdrawn at a look
    assert learning_lifecycle.refresh("coder", {lesson: "global"}, project) == {lesson: "active"}
    withdrawn = store.get("coder", "improvements", ids=[lesson])[0].metadata
    assert withdrawn["decision_reason"].startswith("promotion withdrawn") and withdrawn["confidence"] == 0.9
    # cross-validated after the withdrawal: it recorded the lowered confidence, not the promoted one
    store.update_metadata("coder", "improvements", [lesson], [{
        "cross_validated": True, "cross_validated_at_epoch": time.time(), "validating_agents": "reviewer",
        "confidence_before_cross_validation": 0.9}])
    report = json.loads(kioku("lessons", "rollback", "--agent", "coder", "--to", str(cut), "--json", cwd=project).stdout)
    assert report["repromoted"] == [lesson] and report["unpromoted"] == []
    assert report["uncross_validated"] == [lesson]
    m = store.get("coder", "improvements", ids=[lesson])[0].metadata
    assert m["promoted"] is True and m["confidence"] == promoted["confidence"] == 0.95
    assert m["promoted_at_epoch"] == promoted["promoted_at_epoch"] <= cut
    # withdrawn, then promoted again after the cut: a rollback keeps the promotion that was in force
    store.update_metadata("coder", "improvements", [lesson], [{
        "promoted": True, "promoted_at": "later", "promoted_at_epoch": time.time(), "confidence": 0.97,
        "promotion_withdrawn_at_epoch": withdrawn["promotion_withdrawn_at_epoch"]}])
    report = json.loads(kioku("lessons", "rollback", "--agent", "coder", "--to", str(cut), "--json", cwd=project).stdout)
    assert report["unpromoted"] == [] and report["repromoted"] == [lesson]
    m = store.get("coder", "improvements", ids=[lesson])[0].metadata
    assert m["promoted"] is True and m["confidence"] == 0.95 and m["promoted_at_epoch"] == promoted["promoted_at_epoch"]
    # rolled back to before the promotion instead, it is simply not promoted
    report = json.loads(kioku("lessons", "rollback", "--agent", "coder", "--to", str(learned), "--json", cwd=project).stdout)
    assert report["unpromoted"] == [lesson] and report["repromoted"] == []
    m = store.get("coder", "improvements", ids=[lesson])[0].metadata
    assert m["promoted"] is False and m["confidence"] == 0.9


def test_clone_copies_every_kind_with_rekeyed_ids(project, store_of, evaluation_writer, kioku):
    store = store_of("global")
    a = im.learn("alpha", "Quote every shell variable", "code_quality", 0.9)[0]
    im.learn("alpha", "Services live in app/services", "architecture_patterns", 0.8)
    evaluation_writer(store, "alpha", "e1", success=True, quality=80)
    res = kioku("lessons", "clone", "--agent", "alpha", "--to", "beta", cwd=project)
    assert res.returncode == 0, res.stderr
    [copy] = store.get("beta", "improvements")
    assert copy.document == "Quote every shell variable" and copy.id != a
    assert copy.metadata["agent_name"] == "beta" and copy.metadata["cloned_from"] == "alpha"
    assert copy.metadata["original_id"] == a
    assert store_of("project").count("beta", "improvements") == 1
    assert [r.id for r in store.get("beta", "evaluations")] == ["e1"]
    # re-learning in the clone updates the copy, and the original is independent
    assert im.learn("beta", "Quote every shell variable", "code_quality", 0.95) == [copy.id]
    assert store.get("alpha", "improvements", ids=[a])[0].metadata["confidence"] == 0.9
    again = kioku("lessons", "clone", "--agent", "alpha", "--to", "beta", cwd=project)
    assert again.returncode == 2 and "already has memory" in again.stderr


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_export_import_round_trip(project, store_of, evaluation_writer, tmp_path, fmt):
    store = store_of("global")
    a = im.learn("coder", "Quote every shell variable --- even in loops", "code_quality", 0.9,
                 tags=["bash"])[0]
    p = im.learn("coder", "Services live in app/services\nand end with Service", "architecture_patterns", 0.8)[0]
    store.update_metadata("coder", "improvements", [a], [{"usage_count": 5, "success_count": 4,
                                                         "success_rate": 0.8, "tested": True,
                                                         "looked_at_epoch": 1.0, "withdrawn_confidence": 0.95,
                                                         "promotion_withdrawn_at_epoch": 2.0}])
    evaluation_writer(store, "coder", "e1", success=True, quality=80)
    out = tmp_path / f"coder.{fmt}"
    export_agent("coder", fmt, out)
    if fmt == "md":
        text = out.read_text()
        assert text.startswith("# Agent memory: coder") and "> Quote every shell variable" in text
        assert "4/5 successes" in text
    report = import_file(out, "reviewer")
    assert report["imported"]["global.improvements"] == 1 and report["imported"]["project.improvements"] == 1
    got = {r.document: r for r in store.get("reviewer", "improvements")}
    imported = got["Quote every shell variable --- even in loops"]
    # another agent's uses are not this one's: the lesson starts untested here
    assert "usage_count" not in imported.metadata and imported.metadata["tags"] == "bash"
    assert not {"looked_at_epoch", "withdrawn_confidence", "promotion_withdrawn_at_epoch"} & set(imported.metadata)
    assert imported.metadata["source"] == "transferred" and imported.metadata["original_id"] == a
    [proj] = store_of("project").get("reviewer", "improvements")
    assert proj.document == "Services live in app/services\nand end with Service"
    assert (len(store.get("reviewer", "evaluations")) == 1) == (fmt == "json")
    # importing again updates, never duplicates; into the same agent ids are identical
    import_file(out, "reviewer")
    assert store.count("reviewer", "improvements") == 1
    import_file(out)
    assert {r.id for r in store.get("coder", "improvements")} == {a}
    assert p in {r.id for r in store_of("project").get("coder", "improvements")}


def test_import_refuses_secrets_as_a_whole(project, store_of, tmp_path):
    data = {"format": "kioku-agent-memory", "version": 1, "agent": "coder", "improvements": [
        {"id": "x", "scope": "global", "improvement": "Fine lesson", "metadata": {"confidence": 0.8}},
        {"id": "y", "scope": "global", "improvement": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
         "metadata": {"confidence": 0.8}}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SecretRejected):
        import_file(path)
    assert store_of("global").count("coder", "improvements") == 0


@pytest.mark.parametrize("where", ["category", "deprecated_reason", "tags", "validating_agents", "task"])
def test_import_refuses_a_secret_in_any_field(project, store_of, tmp_path, where):
    token = "ghp_" + "Zq9XyW8vU7tS6rR5qP4oN3mL2kJ1iH0gF9eD"
    lesson = {"id": "x", "scope": "global", "improvement": "Fine lesson", "metadata": {"confidence": 0.8}}
    data = {"format": "kioku-agent-memory", "version": 1, "agent": "coder", "improvements": [lesson]}
    if where == "task":
        data["evaluations"] = [{"id": "e1", "scope": "global", "document": "ok", "metadata": {"task": token}}]
    elif where in ("tags", "validating_agents"):
        lesson["metadata"][where] = ["ok", f"note {token}"]
    else:
        lesson["metadata"][where] = token
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SecretRejected):
        import_file(path)
    assert store_of("global").count("coder", "improvements") == 0


@pytest.mark.parametrize("field,value,message", [("category", "</x>bad cat", "invalid category"),
                                                  ("confidence", 5, "confidence must be"),
                                                  ("scope", "weird", "scope must be")])
def test_import_applies_the_rules_of_learn(project, store_of, tmp_path, field, value, message):
    lesson = {"id": "x", "scope": "global", "improvement": "Fine lesson",
              "metadata": {"confidence": 0.8, "category": "code_quality"}}
    if field == "scope":
        lesson["scope"] = value
    else:
        lesson["metadata"][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "kioku-agent-memory", "version": 1, "agent": "coder",
                                "improvements": [lesson]}))
    with pytest.raises(UsageError, match=message):
        import_file(path)
    assert store_of("global").count("coder", "improvements") == 0


@pytest.mark.slow
def test_static_agent_md_is_never_modified(project, store_of, kioku):
    agent_md = project / ".claude" / "agents" / "coder.md"
    agent_md.parent.mkdir(parents=True)
    agent_md.write_bytes(b"---\nname: coder\ndescription: writes code\n---\n\nYou write code.\n")
    before = hashlib.sha256(agent_md.read_bytes()).hexdigest()
    mtime = agent_md.stat().st_mtime_ns
    res = kioku("lessons", "learn", "--agent", "coder", "Quote every shell variable", "--category", "code_quality",
                "--confidence", "0.9", cwd=project)
    assert res.returncode == 0, res.stderr
    ids = im.learn("other", "Always quote shell variables", "code_quality", 0.9)
    evidence.write_turn("other", "s", "t1", {ids[0]: "global"}, {}, True, 0.0)
    learning_lifecycle.refresh("other", {ids[0]: "global"}, project)
    r = kioku("lessons", "maintain", "--agent", "coder", "--daily", cwd=project)
    assert r.returncode == 0, r.stderr
    maintenance.run_weekly("coder", project)
    maintenance.run_monthly("coder", project)
    im.learn("third", "Keep README headings in sentence case", "documentation_style", 0.8)
    report = co.consolidate(project_root=project)
    assert report["equivalent_groups"] and report["transfers"]  # writes happened for all three agents
    assert hashlib.sha256(agent_md.read_bytes()).hexdigest() == before
    assert agent_md.stat().st_mtime_ns == mtime


def test_editing_a_lesson_in_the_markdown_export_replaces_it(project, store_of, tmp_path):
    store = store_of("global")
    old = im.learn("coder", "Quote shell variables", "code_quality", 0.9)[0]
    keep = im.learn("coder", "Keep functions short", "code_quality", 0.8)[0]
    store.update_metadata("coder", "improvements", [old], [{"usage_count": 3, "success_count": 3,
                                                           "success_rate": 1.0, "tested": True}])
    out = tmp_path / "coder.md"
    export_agent("coder", "md", out)
    out.write_text(out.read_text().replace("> Quote shell variables", "> Quote every shell variable, always"))
    import_file(out)
    got = {r.document: r for r in store.get("coder", "improvements")}
    assert set(got) == {"Quote every shell variable, always", "Keep functions short"}
    assert got["Quote every shell variable, always"].metadata["usage_count"] == 3
    assert got["Keep functions short"].id == keep and old not in {r.id for r in got.values()}


def test_a_lesson_in_both_scopes_is_one_section_of_the_markdown_export_and_one_edit_changes_both(
        project, store_of, tmp_path):
    both = im.learn("coder", "Quote shell variables", "code_quality", 0.9, scope="both")
    im.learn("coder", "Keep functions short", "code_quality", 0.8, scope="global")
    assert len(both) == 2
    out = tmp_path / "coder.md"
    export_agent("coder", "md", out)
    text = out.read_text()
    assert "2 lessons in 3 records (1 stored in both scopes" in text
    assert text.count("> Quote shell variables") == 1 and text.count("kioku:improvement {") == 3
    assert "] global + project · confidence 0.90" in text
    out.write_text(text.replace("> Quote shell variables", "> Quote every shell variable, always"))
    report = import_file(out)
    assert report["updated"] == 2, report
    for scope in ("global", "project"):
        assert "Quote every shell variable, always" in {r.document for r in store_of(scope).get("coder", "improvements")}
        assert "Quote shell variables" not in {r.document for r in store_of(scope).get("coder", "improvements")}


@pytest.mark.parametrize("second_scope", ["global", "project"])  # project: written within a minute, in the other scope
def test_a_comment_left_behind_by_a_deleted_section_does_not_take_the_lesson_above_it(project, store_of, tmp_path,
                                                                                      second_scope):
    im.learn("coder", "Quote shell variables", "code_quality", 0.9, scope="global")
    im.learn("coder", "Keep functions short", "code_quality", 0.8, scope=second_scope)
    out = tmp_path / "coder.md"
    export_agent("coder", "md", out)
    text = out.read_text()
    assert "2 improvements" in text
    # a rendered Markdown editor hides the comments: deleting section 2 there leaves its comment
    head, second = text.split("\n## 2.", 1)
    out.write_text(head + "\n" + second[second.index("<!-- kioku:improvement"):])
    parsed = parse_markdown(out.read_text())["improvements"]
    assert [i["improvement"] for i in parsed] == ["Quote shell variables", ""]  # not the lesson above it
    import_file(out)
    docs = sorted(r.document for scope in ("global", "project") for r in store_of(scope).get("coder", "improvements"))
    assert docs == ["Keep functions short", "Quote shell variables"]


def _snapshot(store, agent: str) -> dict:
    return {kind: {r.id: (r.document, r.metadata) for r in store.get(agent, kind)}
            for kind in ("improvements", "evaluations")}


@pytest.mark.parametrize("fmt", ["md", "json"])
@pytest.mark.parametrize("to_stdout", [True, False])
def test_unedited_export_imports_back_without_any_change(project, store_of, evaluation_writer, tmp_path, kioku,
                                                         fmt, to_stdout):
    store = store_of("global")
    im.learn("coder", "Wrap <b>bold</b> words, never <script> tags", "code_quality", 0.9, scope="global")
    im.learn("coder", "Ｕｓｅ full-width ＜tags＞ only in Japanese docs", "documentation_style", 0.8)
    im.learn("coder", "Plain lesson about commits", "code_quality", 0.6, learned_from="user_feedback")
    evaluation_writer(store, "coder", "e1", success=True, quality=80)
    before, seq = _snapshot(store, "coder"), store.journal.last_seq()
    out = tmp_path / f"coder.{fmt}"
    if to_stdout:
        res = kioku("lessons", "export", "--agent", "coder", "--format", fmt, cwd=project)
        assert res.returncode == 0 and "<b>" not in res.stdout, res.stderr  # the printed copy is defanged
        out.write_text(res.stdout)
    else:
        assert kioku("lessons", "export", "--agent", "coder", "--format", fmt, "--out", str(out), cwd=project).returncode == 0
    res = kioku("lessons", "import", str(out), cwd=project)
    assert res.returncode == 0, res.stderr
    assert _snapshot(store, "coder") == before and store.journal.last_seq() == seq  # nothing written
    assert "nothing new; existing lessons: 0 updated, 3 unchanged" in res.stdout, res.stdout


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_reimporting_an_older_export_keeps_the_lessons_lifecycle(project, store_of, tmp_path, kioku, fmt):
    store = store_of("global")
    lesson = im.learn("coder", "Quote shell variables", "code_quality", 0.9, scope="global")[0]
    out = tmp_path / f"coder.{fmt}"
    export_agent("coder", fmt, out)
    later = {"deprecated": True, "deprecated_reason": "hurts", "decision": "deprecated",
             "decision_reason": "hurts: uplift -0.30", "usage_count": 12, "success_count": 2,
             "success_rate": 0.1667, "tested": True, "turns_given": 12, "turns_held_back": 10,
             "looks": 3, "confidence": 0.85}
    store.update_metadata("coder", "improvements", [lesson], [later])
    res = kioku("lessons", "import", str(out), cwd=project)
    [kept] = store.get("coder", "improvements")
    assert kept.id == lesson and {k: kept.metadata[k] for k in later} == later
    assert res.returncode == 0 and "0 updated, 1 unchanged" in res.stdout, res.stdout + res.stderr
    # an edited text is applied, the lifecycle and evidence still the store's
    edited = out.read_text().replace("Quote shell variables", "Quote every shell variable")
    out.write_text(edited)
    res = kioku("lessons", "import", str(out), cwd=project)
    assert res.returncode == 0 and "1 updated, 0 unchanged" in res.stdout, res.stdout + res.stderr
    [now_] = store.get("coder", "improvements")
    assert now_.document == "Quote every shell variable" and now_.id != lesson
    assert {k: now_.metadata[k] for k in later} == later


def test_markdown_export_names_a_candidate_lesson_as_the_dashboard_does(project, tmp_path):
    im.learn("coder", "Prefer small commits", "code_quality", 0.6, learned_from="user_feedback", scope="global")
    text, _ = export_agent("coder", "md", None, project)
    heading = next(line for line in text.splitlines() if line.startswith("## 1."))
    assert heading.endswith("· candidate"), heading


def test_clone_of_an_agent_without_memory_is_an_error(project, store_of, kioku):
    im.learn("alpha", "Quote every shell variable", "code_quality", 0.9)
    seq = store_of("global").journal.last_seq()
    res = kioku("lessons", "clone", "--agent", "nonexist", "--to", "zz", cwd=project)
    assert res.returncode != 0 and res.stderr.startswith("kioku: error: agent 'nonexist' has no memory"), res.stderr
    assert res.stdout == "" and store_of("global").journal.last_seq() == seq


def test_cli_restore_resets_the_decision_the_ui_shows(project, store_of, kioku):
    from kioku.lessons import stats
    from kioku.ui import data as ui_data
    from kioku.ui.lesson_actions import set_deprecated

    lesson = im.learn("coder", "Quote every shell variable", "code_quality", 0.9, scope="global")[0]
    set_deprecated("coder", lesson, True, project)  # deprecated by hand in the UI
    assert [row["decision"] for row in ui_data.lessons("coder", project)] == ["deprecated"]
    res = kioku("lessons", "restore", "--agent", "coder", lesson, cwd=project)
    assert res.returncode == 0, res.stderr
    meta = store_of("global").get("coder", "improvements", ids=[lesson])[0].metadata
    assert meta["deprecated"] is False and meta["decision"] == "active" == stats.decision_of(meta)
    assert [row["decision"] for row in ui_data.lessons("coder", project)] == ["active"]
    board = json.loads(kioku("dashboard", "--agent", "coder", "--json", cwd=project).stdout)
    assert board["lessons"][0]["decision"] == "active"
    # errors go through the CLI's error path like every other command's
    again = kioku("lessons", "restore", "--agent", "coder", lesson, cwd=project)
    assert again.returncode == 1 and again.stderr.startswith("kioku: error: ") and "already active" in again.stderr
    missing = kioku("lessons", "restore", "--agent", "coder", "imp_nope", cwd=project)
    assert missing.returncode == 1 and missing.stderr.startswith("kioku: error: ") and "no lesson" in missing.stderr


def test_learning_a_deprecated_lesson_again_says_it_stays_deprecated(project, store_of, kioku):
    lesson = im.learn("coder", "Rewrite modules from scratch", "code_quality", 0.8, scope="global")[0]
    store_of("global").update_metadata("coder", "improvements", [lesson], [
        {"deprecated": True, "deprecated_reason": "hurts", "decision_reason": "hurts: uplift -0.40"}])
    res = kioku("lessons", "learn", "--agent", "coder", "Rewrite modules from scratch", "--category", "code_quality",
                "--confidence", "0.9", "--scope", "global", cwd=project)
    assert res.returncode == 0, res.stderr
    [line] = res.stdout.splitlines()
    assert "learned" not in line and f"already known and deprecated: {lesson}" in line
    assert f"kioku lessons restore --agent coder {lesson}" in line and "hurts: uplift -0.40" in line
    assert store_of("global").get("coder", "improvements", ids=[lesson])[0].metadata["deprecated"] is True


def test_a_ui_action_that_changes_nothing_is_an_error_and_restore_names_the_state(project, kioku):
    from kioku.infra.errors import KiokuError
    from kioku.ui.lesson_actions import set_deprecated

    lesson = im.learn("coder", "Ask before deleting branches", "code_quality", 0.6,
                      learned_from="user_feedback", scope="global")[0]  # a candidate (below 0.7)
    set_deprecated("coder", lesson, True, project)
    with pytest.raises(KiokuError, match="already deprecated"):
        set_deprecated("coder", lesson, True, project)  # a stale page, a second click
    res = kioku("lessons", "restore", "--agent", "coder", lesson, cwd=project)
    assert res.returncode == 0 and "candidate again" in res.stdout, res.stdout + res.stderr
    with pytest.raises(KiokuError, match="already active"):
        set_deprecated("coder", lesson, False, project)


def _given_turns(agent: str, lesson_id: str, project) -> int:
    from kioku.lessons.improvements import all_improvements

    meta = {r.id: r.metadata or {} for _s, r in all_improvements(agent, project)}
    return int(meta[lesson_id].get("turns_given", 0) or 0)


def test_edited_cloned_and_transferred_lessons_keep_only_the_evidence_that_is_theirs(project, store_of, tmp_path,
                                                                                    kioku):
    [rid] = im.learn("coder", "Quote shell variables", "code_quality", 0.9)
    for n in range(3):
        evidence.write_turn("coder", f"s{n}", "t1", {rid: "global"}, {}, True, 0.0, {rid: 0.9})
    evidence.write_turn("coder", "s9", "t1", {}, {rid: "global"}, False, 0.0, {rid: 0.9})
    learning_lifecycle.refresh("coder", {rid: "global"}, project)
    assert _given_turns("coder", rid, project) == 3
    # edited in the Markdown export and imported back: a new id, the same evidence
    out = tmp_path / "coder.md"
    assert kioku("lessons", "export", "--agent", "coder", "--out", str(out)).returncode == 0
    out.write_text(out.read_text().replace("Quote shell variables", "Quote every shell variable"))
    assert kioku("lessons", "import", str(out)).returncode == 0
    [edited] = [r.id for r in store_of("global").get("coder", "improvements")]
    assert edited != rid
    evidence.write_turn("coder", "s10", "t1", {edited: "global"}, {}, True, 0.0, {edited: 0.9})
    learning_lifecycle.refresh("coder", {edited: "global"}, project)
    assert _given_turns("coder", edited, project) == 4  # 3 earned before the edit + 1
    # a clone keeps it too
    assert kioku("lessons", "clone", "--agent", "coder", "--to", "coder-b").returncode == 0
    [cloned] = [r.id for r in store_of("global").get("coder-b", "improvements")]
    evidence.write_turn("coder-b", "s11", "t1", {cloned: "global"}, {}, True, 0.0, {cloned: 0.9})
    learning_lifecycle.refresh("coder-b", {cloned: "global"}, project)
    assert _given_turns("coder-b", cloned, project) == 5
    # imported into another agent, it starts untested there
    assert kioku("lessons", "import", str(out), "--agent", "reviewer").returncode == 0
    [moved] = store_of("global").get("reviewer", "improvements")
    assert int((moved.metadata or {}).get("turns_given", 0) or 0) == 0
    assert "untested here" in str((moved.metadata or {}).get("decision_reason"))


def test_a_lesson_quoting_the_export_marker_survives_a_markdown_round_trip(project, store_of, tmp_path):
    store = store_of("global")
    text = 'Mark generated blocks with <!-- kioku:improvement {"id":"imp_fake"} --> never by hand'
    im.learn("coder", text, "code_quality", 0.9)
    im.learn("coder", "Keep functions short", "code_quality", 0.8)
    out = tmp_path / "coder.md"
    export_agent("coder", "md", out)
    for rec in store.get("coder", "improvements"):
        store.delete("coder", "improvements", [rec.id])
    report = import_file(out)
    docs = sorted(r.document for r in store.get("coder", "improvements"))
    assert len(docs) == 2 and "Keep functions short" in docs, (docs, report)
    assert any("never by hand" in d for d in docs)


def test_deprecating_a_lesson_stored_in_both_scopes_deprecates_both_copies(project, store_of):
    from kioku.lessons.improvements import all_improvements
    from kioku.ui import data
    from kioku.ui.lesson_actions import set_deprecated

    ids = im.learn("coder", "Quote file names before passing them to the shell", "shell", 0.8, project_root=project)
    assert len(ids) == 2  # a category of its own: one copy in each scope
    set_deprecated("coder", ids[0], True, project)
    states = {rec.id: bool((rec.metadata or {}).get("deprecated")) for _s, rec in all_improvements("coder", project)}
    assert states == {ids[0]: True, ids[1]: True}
    assert [w["learned"] for w in data.trends("coder", project, evaluations=[])["weekly"]] == [1]
    set_deprecated("coder", ids[1], False, project)
    states = {rec.id: bool((rec.metadata or {}).get("deprecated")) for _s, rec in all_improvements("coder", project)}
    assert states == {ids[0]: False, ids[1]: False}


@pytest.mark.parametrize("field,value", [("usage_count", "lots"), ("created_at_epoch", "yesterday"),
                                         ("deprecated", "no"), ("uplift", float("nan")), ("tags", ["a"])])
def test_import_refuses_metadata_of_the_wrong_kind(project, store_of, tmp_path, field, value):
    """A stored "usage_count": "lots" failed the agent's dashboard, export and maintenance for good."""
    lesson = {"scope": "global", "improvement": "Hostile metadata lesson about docker layer caching",
              "metadata": {"category": "search_strategy", "confidence": 0.9, field: value}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "kioku-agent-memory", "version": 1, "agent": "eps",
                                "improvements": [lesson]}))
    with pytest.raises(UsageError, match=f"metadata {field} must be"):
        import_file(path)
    assert store_of("global").count("eps", "improvements") == 0


@pytest.mark.slow
@pytest.mark.parametrize("copy_first", [False, True])
def test_a_section_copied_in_the_markdown_export_is_a_new_lesson(project, store_of, tmp_path, copy_first):
    store = store_of("global")
    old = im.learn("coder", "Quote shell variables", "code_quality", 0.9)[0]
    store.update_metadata("coder", "improvements", [old], [{"usage_count": 3, "success_count": 3,
                                                           "success_rate": 1.0, "tested": True}])
    out = tmp_path / "coder.md"
    export_agent("coder", "md", out)
    text = out.read_text()
    head, section = text.split("\n## 1.", 1)
    copy = "\n## 1." + section.replace("> Quote shell variables", "> Quote shell variables in Makefiles too")
    out.write_text(head + (copy + "\n## 1." + section if copy_first else "\n## 1." + section + copy))
    import_file(out)
    got = {r.document: r for r in store.get("coder", "improvements")}
    assert set(got) == {"Quote shell variables", "Quote shell variables in Makefiles too"}
    assert got["Quote shell variables"].id == old and got["Quote shell variables"].metadata["usage_count"] == 3
    assert not got["Quote shell variables in Makefiles too"].metadata.get("usage_count")  # not its evidence


@pytest.mark.slow
def test_a_lesson_edited_in_an_export_printed_to_stdout_keeps_its_angle_brackets(project, store_of, tmp_path, kioku):
    im.learn("coder", "Prefer List<String> over raw List types in Java generics", "code_quality", 0.8)
    printed = kioku("lessons", "export", "--agent", "coder", "--format", "md", cwd=project)
    assert printed.returncode == 0 and "List&lt;String>" in printed.stdout  # inert for a reader
    path = tmp_path / "coder.md"
    path.write_text(printed.stdout.replace("over raw List types", "over raw List and Map types"))
    assert kioku("lessons", "import", str(path), cwd=project).returncode == 0
    docs = {r.document for r in store_of("global").get("coder", "improvements")}
    assert docs == {"Prefer List<String> over raw List and Map types in Java generics"}


@pytest.mark.parametrize("scope", ["project", "both"])
def test_learning_a_deprecated_lesson_into_the_other_scope_keeps_it_deprecated(project, store_of, kioku, scope):
    text = "Edit config files in place with sed"
    lesson = im.learn("coder", text, "code_quality", 0.8, scope="global")[0]
    store_of("global").update_metadata("coder", "improvements", [lesson], [
        {"deprecated": True, "deprecated_reason": "hurts", "decision_reason": "hurts: uplift -0.40"}])
    res = kioku("lessons", "learn", "--agent", "coder", text, "--category", "code_quality", "--confidence", "0.9",
                "--scope", scope, cwd=project)
    assert res.returncode == 0, res.stderr
    assert "learned" not in res.stdout and res.stdout.count("already known and deprecated") == (2 if scope == "both" else 1)
    [copy] = store_of("project").get("coder", "improvements")
    assert copy.metadata["deprecated"] is True and copy.metadata["decision_reason"] == "hurts: uplift -0.40"
    hits = kioku("lessons", "search", "--agent", "coder", "in-place edits of config files with sed", "--json", cwd=project)
    assert json.loads(hits.stdout) == []


def test_weekly_review_lists_only_helpful_lessons_at_the_top(project, store_of, kioku):
    store = store_of("global")
    ids = {name: im.learn("coder", text, "code_quality", 0.8, scope="global")[0] for name, text in (
        ("good", "Run the linter before committing"), ("bad", "Rewrite modules from scratch"),
        ("worse", "Skip the tests when in a hurry"))}
    for name, uplift in (("good", 0.2), ("bad", -0.73), ("worse", -0.97)):
        store.update_metadata("coder", "improvements", [ids[name]], [
            {"turns_given": 20, "turns_held_back": 10, "uplift": uplift, "uplift_low": uplift - 0.1,
             "uplift_high": uplift + 0.1}])
    report = maintenance.run_weekly("coder", project)
    assert [r["id"] for r in report["top_improvements"]] == [ids["good"]]
    assert [r["id"] for r in report["bottom_improvements"]] == [ids["worse"], ids["bad"]]
    store.delete("coder", "improvements", [ids["good"]])
    out = kioku("lessons", "maintain", "--agent", "coder", "--weekly", cwd=project)
    assert "no measured lesson has helped so far" in out.stdout and "no lesson has both" not in out.stdout
    assert all(f"uplift {u:+.2f}" in out.stdout for u in (-0.73, -0.97))


@pytest.mark.parametrize("name,content,message", [
    ("a.json", b"[]\n", "not a Kioku agent-memory export"), ("e.md", b"", "not a Kioku agent-memory export"),
    ("b.md", b"\xff\xfe# Agent memory: x", "not UTF-8"), ("d.jsonl", b'{"id": "x", "document": "d"}\n5\n',
                                                          "line 2 is not a JSON object")])
def test_import_of_a_file_that_is_not_an_export_is_one_clear_line(project, tmp_path, kioku, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    out = kioku("lessons", "import", str(path), cwd=project)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_import_never_reads_a_device(project, kioku):
    out = kioku("lessons", "import", "/dev/zero", cwd=project, timeout=60)
    assert out.returncode == 2 and "not a regular file" in out.stderr


@pytest.mark.slow
def test_rollback_undoes_a_clone_an_import_and_a_cross_validation(project, store_of, tmp_path, kioku):
    store = store_of("global")
    im.learn("alpha", "Quote every shell variable", "code_quality", 0.9, scope="global")
    k1 = im.learn("k1", "Read the CHANGELOG before upgrading a dependency major version", "code_quality", 0.6,
                  learned_from="user_feedback", scope="global")[0]
    im.learn("k2", "Read the CHANGELOG before upgrading a dependency major version", "code_quality", 0.8,
             scope="global")
    export_agent("alpha", "json", tmp_path / "alpha.json")
    time.sleep(1.1)
    cut = time.time()
    time.sleep(0.1)
    assert kioku("lessons", "clone", "--agent", "alpha", "--to", "gamma", cwd=project).returncode == 0
    import_file(tmp_path / "alpha.json", "delta")
    co.consolidate(["k1", "k2"], dry_run=False)
    assert store.get("k1", "improvements", ids=[k1])[0].metadata["confidence"] == 0.7  # raised: now active
    for agent in ("gamma", "delta"):
        out = kioku("lessons", "rollback", "--agent", agent, "--to", str(cut), cwd=project)
        assert out.returncode == 0 and "removed 1 improvements" in out.stdout, out.stdout + out.stderr
        assert store.count(agent, "improvements") == 0
    out = kioku("lessons", "rollback", "--agent", "k1", "--to", str(cut), cwd=project)
    assert "1 cross-validations" in out.stdout
    m = store.get("k1", "improvements", ids=[k1])[0].metadata
    assert m["cross_validated"] is False and m["confidence"] == 0.6


@pytest.mark.slow
def test_a_rollback_archive_imports_back_unchanged_and_stays_before_a_later_rollback(project, store_of, kioku):
    store = store_of("global")
    kept = im.learn("coder", "Wrap the settings in <config> tags before saving", "code_quality", 0.8,
                    learned_from="self_evaluation", scope="global")[0]
    stored = store.get("coder", "improvements", ids=[kept])[0].document
    assert "&lt;config>" in stored  # taken from a transcript: stored inert
    time.sleep(1.1)
    t1 = time.time()
    first = json.loads(kioku("lessons", "rollback", "--agent", "coder", "--to", "2000-01-01", "--json", cwd=project).stdout)
    assert kioku("lessons", "import", first["archive"], cwd=project).returncode == 0  # the mistake undone
    assert {r.id: r.document for r in store.get("coder", "improvements")} == {kept: stored}
    time.sleep(0.1)
    im.learn("coder", "Rewrite modules from scratch", "code_quality", 0.8, scope="global")
    later = json.loads(kioku("lessons", "rollback", "--agent", "coder", "--to", str(t1), "--dry-run", "--json",
                             cwd=project).stdout)
    assert [r["improvement"] for r in later["removed"]] == ["Rewrite modules from scratch"]


@pytest.mark.slow
def test_only_an_export_printed_to_stdout_has_its_escaped_brackets_undone(project, store_of, tmp_path, kioku):
    html = "In XML attributes escape < as &lt; before saving"
    im.learn("coder", html, "code_quality", 0.8, scope="global")
    out = tmp_path / "coder.md"
    assert kioku("lessons", "export", "--agent", "coder", "--format", "md", "--out", str(out), cwd=project).returncode == 0
    out.write_text(out.read_text().replace("before saving", "before writing"))
    assert kioku("lessons", "import", str(out), cwd=project).returncode == 0
    assert {r.document for r in store_of("global").get("coder", "improvements")} == {
        "In XML attributes escape < as &lt; before writing"}


def test_import_follows_a_link_to_an_export(project, store_of, tmp_path, kioku):
    im.learn("coder", "Quote every shell variable", "code_quality", 0.9, scope="global")
    real = tmp_path / "exp.json"
    export_agent("coder", "json", real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    out = kioku("lessons", "import", str(link), "--agent", "rev3", cwd=project)
    assert out.returncode == 0, out.stderr
    assert store_of("global").count("rev3", "improvements") == 1


@pytest.mark.slow
def test_a_copied_section_does_not_keep_the_confidence_its_original_was_raised_to(project, store_of, tmp_path):
    store = store_of("global")
    text = "Read the CHANGELOG before upgrading a dependency major version"
    a = im.learn("k1", text, "code_quality", 0.6, learned_from="user_feedback", scope="global")[0]
    im.learn("k2", text, "code_quality", 0.8, scope="global")
    co.consolidate(["k1", "k2"], dry_run=False)
    assert store.get("k1", "improvements", ids=[a])[0].metadata["confidence"] == 0.7
    out = tmp_path / "k1.md"
    export_agent("k1", "md", out)
    head, section = out.read_text().split("\n## 1.", 1)
    copy = "\n## 1." + section.replace(f"> {text}", "> Read the release notes before upgrading a framework")
    out.write_text(head + "\n## 1." + section + copy)
    import_file(out)
    new = next(r for r in store.get("k1", "improvements") if r.id != a)
    assert new.metadata["confidence"] == 0.6 and not new.metadata.get("cross_validated")
    assert new.metadata["created_at_epoch"] > store.get("k1", "improvements", ids=[a])[0].metadata["created_at_epoch"]
