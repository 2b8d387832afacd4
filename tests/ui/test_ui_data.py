"""What the views read (kioku.ui.data) from real stores: absent fields stay absent, both
evaluation formats are understood, and the health view sees Chroma drift from the journal."""

from __future__ import annotations

from pathlib import Path

from kioku.ui import data


def test_lessons_keep_absent_evidence_absent(seeded: Path, agent_ids: dict[str, str]) -> None:
    by_id = {lesson["id"]: lesson for lesson in data.lessons("main", seeded)}
    evidence, plain = by_id[agent_ids["evidence"]], by_id[agent_ids["plain"]]
    assert (evidence["turns_given"], evidence["uplift_low"], evidence["usage_count"]) == (42, 0.02, 42)
    assert evidence["decision"] == "promoted" and evidence["success_count"] == 35
    for key in data.LESSON_EVIDENCE + ("success_rate", "wilson_lower"):
        assert plain[key] is None, key
    assert plain["decision"] == "active"


def test_evaluations_read_old_and_per_turn_records(seeded: Path, agent_ids: dict[str, str]) -> None:
    rows = data.evaluation_rows("main", seeded, limit=None)
    assert len(rows) == 24 and rows[0]["epoch"] >= rows[-1]["epoch"]
    turn = next(r for r in rows if r["task"] == "Add the export button 51")
    assert turn["outcome"] == "failed" and turn["reason"] == "the user rejected the edit"
    assert turn["tokens"] == {"input": 5200, "output": 830, "cache_write": 1000, "cache_read": 40000}
    assert turn["errors"]["user_rejections"] == 1 and turn["errors"]["tool_errors"] is None
    old = next(r for r in rows if r["task"] == "Fix the flaky test number 00")
    assert old["outcome"] == "failed" and old["active_s"] is None and old["tokens"] == {
        "input": None, "output": None, "cache_write": None, "cache_read": None, "total": 1200}
    trend = data.trends("main", seeded, evaluations=rows)
    assert len(trend["daily"]) == 8 and trend["daily"][-1]["success_rate"] == 1.0
    assert trend["weekly"] and sum(w["learned"] for w in trend["weekly"]) == 3


def test_health_reports_chroma_behind_the_journal(seeded: Path, agent_ids: dict[str, str]) -> None:
    from kioku.lessons import scopes as sc
    from kioku.lessons.store.chroma_server import load_chromadb

    report = data.health(seeded)
    assert {c["check"] for c in report["checks"]} >= {"python", "hook jobs"}
    rows = {(r["scope"], r["kind"]): r for r in report["stores"]}
    assert rows[("global", "improvements")]["store"] == rows[("global", "improvements")]["journal"] == 3
    assert rows[("global", "evaluations")]["store"] == rows[("global", "evaluations")]["journal"] == 24

    store = sc.open_scope("global", seeded)
    client = load_chromadb().PersistentClient(path=str(store.chroma_dir))
    client.get_collection(store.name("main", "evaluations")).delete(ids=["eval_ui_0_0"])  # drift behind Kioku's back
    sc.reset_store_cache()
    drifted = {(r["scope"], r["kind"]): r for r in data.health(seeded)["stores"]}
    assert drifted[("global", "evaluations")]["store"] == 23
    assert drifted[("global", "evaluations")]["journal"] == 24


def test_errors_by_blame_kept_as_names_are_shown_escaped() -> None:
    from kioku.ui.agent_views import _errors

    shown = _errors({"agent_errors": data._error_value(1), "user_rejections": data._error_value('["<b>no</b>"]'),
                     "hook_blocks": data._error_value(0), "cascade_errors": data._error_value(None)})
    assert shown == "agent errors 1, user rejections [&quot;&lt;b&gt;no&lt;/b&gt;&quot;]"
    assert _errors({"agent_errors": None}) == "no data" and _errors({"agent_errors": 0.0}) == "none"


def test_a_lessons_state_comes_from_its_flags_not_a_stale_decision_field(monkeypatch) -> None:
    from types import SimpleNamespace

    from kioku.lessons import improvements
    from kioku.ui import data as ui_data

    metas = {
        # restored by hand ("decision": "active"), then deprecated by the automatic lifecycle,
        # which sets the flags only
        "a": {"decision": "active", "deprecated": True, "confidence": 0.8},
        "b": {"decision": "deprecated", "deprecated": False, "promoted": True, "confidence": 0.85},
        "c": {"confidence": 0.6},
    }
    records = [("global", SimpleNamespace(id=i, document=f"lesson {i}", metadata=m)) for i, m in metas.items()]
    monkeypatch.setattr(improvements, "all_improvements", lambda agent, root=None: records)
    shown = {row["id"]: row["decision"] for row in ui_data.lessons("main")}
    assert shown == {"a": "deprecated", "b": "promoted", "c": "candidate"}


def test_a_search_hit_in_the_archive_is_shown_with_its_folder() -> None:
    from kioku.ui.pages import memory_page

    hits = [{"scope": "project", "file": "/p/.agents/memory/archive/infra.md", "line": 10, "text": "old"},
            {"scope": "project", "file": "/p/.agents/memory/infra.md", "line": 10, "text": "current"}]
    page = memory_page([], "token", "deploy", hits)
    assert "archive/infra.md:10" in page and ">infra.md:10<" in page


def test_a_search_with_no_close_match_says_so_and_shows_the_nearest_apart() -> None:
    from kioku.ui.pages import memory_page

    nearest = [{"scope": "project", "file": "/p/.agents/memory/infra.md", "line": 4, "text": "Deploys run on Fridays"}]
    page = memory_page([], "token", "weather tomorrow", [], nearest)
    assert "No close match." in page and "below the relevance cut-off" in page and "Deploys run on Fridays" in page
    assert "no data</td>" not in page
    assert "No close match." in memory_page([], "token", "weather", [], [])


def test_a_defanged_text_is_shown_with_its_bracket_escaped_once_and_a_memory_as_written() -> None:
    from kioku.text.defang import defang
    from kioku.ui.html import e, e_defanged

    assert e_defanged(defang("fix the <Button> & a<b")) == "fix the &lt;Button&gt; &amp; a&lt;b"
    assert e_defanged("<script>") == "&lt;script&gt;"
    # a memory file's text is kept as written: a literal "&lt;" in it stays "&lt;" on the page
    assert e("In JSX write &lt;div&gt; as text") == "In JSX write &amp;lt;div&amp;gt; as text"


def test_a_day_without_turns_is_a_gap_in_the_trend_not_a_join() -> None:
    from kioku.ui import charts

    day = 86400.0
    rows = [{"epoch": 10 * day, "outcome": "success", "quality": 90.0},
            {"epoch": 12 * day, "outcome": "failed", "quality": 40.0},
            {"epoch": 13 * day, "outcome": "success", "quality": 80.0}]
    daily = data.trends("main", None, evaluations=rows, lesson_rows=[])["daily"]
    assert [d["turns"] for d in daily] == [1, 0, 1, 1] and daily[1]["quality"] is None
    chart = charts.line_chart("q", [d["day"] for d in daily], [("quality", [d["quality"] for d in daily])], 100.0)
    assert chart.count("<polyline") == 1 and chart.count('class="point"') == 3  # 11th day: no line across


def test_pages_fit_a_phone() -> None:
    from kioku.ui import pages

    html = pages.layout("memory", "<p>x</p>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert 'aria-current="page"' in html


def test_notes_written_by_hand_are_listed_redacted(project: Path) -> None:
    from kioku.memory import api
    from kioku.ui import pages

    api.remember("We use pnpm for installs")
    index = project / ".agents" / "memory" / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "- Ask Dana before touching billing\n"
                     "- the staging password is hunter2-XYZ-998\n", encoding="utf-8")
    notes = data.hand_notes(project)
    assert [n["text"] for n in notes][0] == "Ask Dana before touching billing"
    assert all("hunter2" not in n["text"] for n in notes)
    html = pages.memory_page(data.memories(project), "csrf", notes=notes)
    assert "Written by hand in MEMORY.md (2)" in html and "Ask Dana before touching billing" in html


def test_a_lesson_learned_into_both_scopes_is_one_row(project: Path) -> None:
    from kioku.lessons import improvements as im
    from kioku.learning import evidence
    from kioku.ui.lesson_actions import set_deprecated

    copies = im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    only_global = im.learn("coder", "Quote every variable in shell scripts", "code_quality", 0.8)[0]
    assert len(copies) == 2  # the deployment category is stored in both scopes
    global_copy = copies[0]
    # the hooks gave the global copy: its evidence is the one to show
    for n in range(3):
        evidence.write_turn("coder", f"s{n}", "t1", {global_copy: "global"}, {}, True, 0.0)
    from kioku.learning import lifecycle

    lifecycle.refresh("coder", {global_copy: "global"}, project)
    rows = data.lessons("coder", project)
    assert sorted(r["lesson"] for r in rows) == ["Deploy from the release branch",
                                                 "Quote every variable in shell scripts"]
    deploy = next(r for r in rows if r["lesson"].startswith("Deploy"))
    assert deploy["scope"] == "project + global" and deploy["id"] == global_copy and deploy["turns_given"] == 3
    assert next(r for r in rows if r["id"] == only_global)["scope"] == "global"
    set_deprecated("coder", deploy["id"], True, project)
    rows = data.lessons("coder", project)
    assert [r["decision"] for r in rows if r["lesson"].startswith("Deploy")] == ["deprecated"]
    assert {r["id"] for r in rows} == {global_copy, only_global}


def test_the_cli_dashboard_lists_a_lesson_in_both_scopes_once(project: Path) -> None:
    from kioku.lessons import improvements as im
    from kioku.lessons.dashboard import build_dashboard

    im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    board = build_dashboard("coder", project)
    assert [(e["improvement"], e["scope"]) for e in board["lessons"]] == [
        ("Deploy from the release branch", "project + global")]
    assert board["total_improvements"] == 1 and board["by_scope"] == {"project": 1, "global": 1}
    assert [e["scope"] for e in board["top_improvements"]] == ["project + global"]


def test_the_lifecycle_deprecates_a_lessons_copy_in_the_other_scope_too(project: Path) -> None:
    """The hooks give the copy with more credited turns; once it is deprecated, its twin would be
    given in its place with no evidence at all, so the twin takes the same deprecation."""
    from kioku.lessons import digest
    from kioku.lessons import improvements as im
    from kioku.learning import evidence, lifecycle

    global_copy, project_copy = im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    for n in range(10):  # 10 failed turns given against 10 successful ones held back
        evidence.write_turn("coder", f"s{n}", "t1", {global_copy: "global"}, {}, False, 0.0)
        evidence.write_turn("coder", f"h{n}", "t1", {}, {global_copy: "global"}, True, 0.0)
    assert lifecycle.refresh("coder", {global_copy: "global"}, project) == {global_copy: "deprecated"}
    assert "Deploy from the release branch" not in [e["improvement"] for e in digest.read_digest("coder", project)]
    rows = [r for r in data.lessons("coder", project) if r["lesson"].startswith("Deploy")]
    assert [(r["scope"], r["decision"], r["id"]) for r in rows] == [("project + global", "deprecated", global_copy)]
    twin = next(r for s, r in im.all_improvements("coder", project) if r.id == project_copy)
    assert twin.metadata["deprecated"] is True and "hurts" in twin.metadata["deprecated_reason"]
    assert not twin.metadata.get("turns_given")  # the decision is copied, not the evidence


def test_copies_in_different_states_stay_two_rows(project: Path) -> None:
    from kioku.lessons import improvements as im
    from kioku.lessons import scopes as sc

    global_copy, _project_copy = im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    # a store written before twins were deprecated together: only one copy deprecated
    sc.open_scope("global", project).update_metadata("coder", "improvements", [global_copy], [{"deprecated": True}])
    rows = sorted((r["scope"], r["decision"]) for r in data.lessons("coder", project))
    assert rows == [("global", "deprecated"), ("project", "active")]


def test_a_twin_refreshed_in_the_same_call_takes_the_deprecation_too(project: Path) -> None:
    from kioku.lessons import digest
    from kioku.lessons import improvements as im
    from kioku.learning import evidence, lifecycle

    global_copy, project_copy = im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    for n in range(10):
        evidence.write_turn("coder", f"s{n}", "t1", {global_copy: "global"}, {}, False, 0.0)
        evidence.write_turn("coder", f"h{n}", "t1", {}, {global_copy: "global"}, True, 0.0)
    both = {global_copy: "global", project_copy: "project"}
    assert lifecycle.refresh("coder", both, project)[global_copy] == "deprecated"
    assert "Deploy from the release branch" not in [e["improvement"] for e in digest.read_digest("coder", project)]
    twin = next(r for s, r in im.all_improvements("coder", project) if r.id == project_copy)
    assert twin.metadata["deprecated"] is True


def test_an_unreadable_other_scope_does_not_cost_the_lessons_own_deprecation(project: Path, monkeypatch) -> None:
    from kioku.lessons import improvements as im
    from kioku.lessons import lesson_state
    from kioku.learning import evidence, lifecycle

    global_copy, _project_copy = im.learn("coder", "Deploy from the release branch", "deployment", 0.75)
    for n in range(10):
        evidence.write_turn("coder", f"s{n}", "t1", {global_copy: "global"}, {}, False, 0.0)
        evidence.write_turn("coder", f"h{n}", "t1", {}, {global_copy: "global"}, True, 0.0)

    def unreadable(*_args, **_kwargs):
        raise OSError("the project store cannot be read")

    monkeypatch.setattr(lesson_state, "twins_of", unreadable)
    assert lifecycle.refresh("coder", {global_copy: "global"}, project) == {global_copy: "deprecated"}
    meta = next(r for s, r in im.all_improvements("coder", project) if r.id == global_copy).metadata
    assert meta["deprecated"] is True and meta["turns_given"] == 10
