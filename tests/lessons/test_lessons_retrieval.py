"""Hybrid retrieval of improvements: filters, threshold, scopes, cross-validation boost, CLI."""

from __future__ import annotations

import json

from kioku.lessons import improvements as im
from kioku.lessons import lesson_retrieval as lr
from kioku.learning import ledger

LESSONS = [
    ("Run the failing test in isolation with -x before changing code", "testing_patterns"),
    ("Retry network calls with exponential backoff and jitter", "error_handling"),
    ("Order Dockerfile steps so dependency installation is cached", "code_quality"),
    ("Use British spelling in user-facing text", "documentation_style"),
]


def _seed(agent="coder"):
    return {lesson: im.learn(agent, lesson, cat, 0.8)[0] for lesson, cat in LESSONS}


def test_relevant_lesson_first_and_unrelated_ones_filtered(project):
    _seed()
    hits = lr.retrieve("coder", "Fix the failing unit tests in the payment module", limit=5)
    assert hits and hits[0].improvement.startswith("Run the failing test")
    assert all(h.relevance >= lr.RELEVANCE_THRESHOLD for h in hits)
    assert "Use British spelling in user-facing text" not in [h.improvement for h in hits]
    d = hits[0].to_dict()
    assert {"id", "improvement", "relevance", "metadata", "scope", "wilson_lower"} <= set(d)


def test_a_short_mixed_request_gets_no_japanese_lesson_for_its_script_alone(project):
    # "CIは？" is mostly ASCII, but its cosine to any Japanese lesson is that of two Japanese texts
    _seed()
    im.learn("coder", "本番のデプロイは金曜日に行わない", "workflow", 0.8)
    im.learn("coder", "pytestは -x を付けて実行する", "testing_patterns", 0.8)
    for task in ("CIは？", "Gitは？", "Slackは？", "Dockerは？"):  # a lone は in both is no shared word
        assert lr.retrieve("coder", task) == [], task
    assert "本番のデプロイは金曜日に行わない" in [h.improvement for h in lr.retrieve("coder", "本番のデプロイはいつ？")]
    assert [h.improvement for h in lr.retrieve("coder", "pytestの実行方法は？")][:1] == ["pytestは -x を付けて実行する"]
    # what stands for a word counts as the word ("DB" and データベース); a shared number does not
    im.learn("coder", "本番のデータベースは毎晩バックアップを取る", "workflow", 0.8)
    im.learn("coder", "コミットメッセージの一行目は50文字以内にする", "workflow", 0.8)
    assert [h.improvement for h in lr.retrieve("coder", "DBは？")][:1] == ["本番のデータベースは毎晩バックアップを取る"]
    assert "コミットメッセージの一行目は50文字以内にする" not in [
        h.improvement for h in lr.retrieve("coder", "50 filesの差分を確認")]


def test_filters_deprecated_and_low_confidence_but_not_low_success(project, store_of):
    ids = _seed()
    store = store_of("global")
    task = "add retry logic to the HTTP client"
    rid = ids["Retry network calls with exponential backoff and jitter"]
    assert [h.id for h in lr.retrieve("coder", task)][:1] == [rid]
    store.update_metadata("coder", "improvements", [rid], [{"success_rate": 0.5, "tested": True,
                                                            "usage_count": 4, "success_count": 2}])
    # a low absolute success rate is no evidence against the lesson (uplift decides)
    assert rid in [h.id for h in lr.retrieve("coder", task)]
    store.update_metadata("coder", "improvements", [rid], [{"deprecated": True}])
    assert rid not in [h.id for h in lr.retrieve("coder", task)]
    store.update_metadata("coder", "improvements", [rid], [{"deprecated": False, "confidence": 0.69}])
    assert rid not in [h.id for h in lr.retrieve("coder", task)]


def test_cross_validated_items_rank_higher(project, store_of):
    a = im.learn("coder", "Check the CI log of the failed job before re-running it", "error_handling", 0.8)[0]
    b = im.learn("coder", "When a CI job fails, read its log first instead of retrying", "error_handling", 0.8)[0]
    task = "The CI job failed, find out why"
    before = lr.retrieve("coder", task)
    assert {h.id for h in before} >= {a, b}
    loser = before[1].id
    store_of("global").update_metadata("coder", "improvements", [loser], [{"cross_validated": True}])
    after = lr.retrieve("coder", task)
    assert after[0].id == loser
    assert abs(after[0].score - before[1].score * 1.2) < 1e-6


def test_both_scopes_merged_deduplicated_project_first(project):
    ids = im.learn("coder", "Name migration files with a timestamp prefix", "naming_conventions", 0.8,
                   scope="both")
    im.learn("coder", "Keep migrations reversible", "code_quality", 0.8)  # global only
    hits = lr.retrieve("coder", "write a database migration file")
    texts = [h.improvement for h in hits]
    assert texts.count("Name migration files with a timestamp prefix") == 1
    hit = hits[texts.index("Name migration files with a timestamp prefix")]
    assert hit.scope == "project" and hit.id == ids[1]
    assert {h.scope for h in hits} == {"project", "global"}


def test_lexical_match_is_found_even_for_rare_identifiers(project):
    _seed()
    rid = im.learn("coder", "The FooBarWidget factory must be built with build_widget_v2", "api_usage", 0.8)[0]
    hits = lr.retrieve("coder", "construct a FooBarWidget", limit=3)
    assert hits[0].id == rid


def test_missing_collection_is_empty_and_cli_exits_zero(project, kioku):
    assert lr.retrieve("nobody", "anything at all") == []
    res = kioku("lessons", "search", "--agent", "nobody", "anything", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == []
    assert not (project / ".claude" / "chroma_data").exists()  # reading created no store


def test_cli_json_and_session_recording(project, kioku):
    _seed()
    res = kioku("lessons", "search", "--agent", "coder", "Fix the failing unit tests", "--limit", "2",
                "--json", "--session", "sess-1", cwd=project)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert 1 <= len(out) <= 2
    for item in out:
        assert {"id", "improvement", "relevance", "metadata", "scope"} <= set(item)
        assert item["metadata"]["agent_name"] == "coder"
    assert set(ledger.given_in_session("sess-1", "coder")) == {i["id"] for i in out}
    assert {"turns_given", "uplift", "decision", "suspension"} <= set(out[0])
    text = kioku("lessons", "search", "--agent", "coder", "Fix the failing unit tests", cwd=project)
    assert text.returncode == 0 and "Run the failing test" in text.stdout


def test_config_can_override_the_threshold(project):
    from kioku.infra import paths

    _seed()
    task = "Fix the failing unit tests in the payment module"
    assert lr.retrieve("coder", task)
    cfg = paths.kioku_home() / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("relevance_threshold = 0.95\n")
    assert lr.relevance_threshold() == 0.95
    assert lr.retrieve("coder", task) == []


def test_lexical_only_candidates_get_their_cosine_from_stored_vectors(project):
    from kioku.lessons import scopes as sc
    from kioku.retrieval.hybrid import embed_cached

    ids = _seed()
    store = sc.open_scope("global")
    task = "a test keeps failing, how should I debug it"
    vec = embed_cached([task])[0]
    dense = {r.id: 1.0 - r.distance for r in store.query_vector("coder", im.KIND, vec.tolist(), n_results=10)}
    wanted = list(ids.values())
    records = {r.id: ("global", r) for r in store.get("coder", im.KIND, ids=wanted)}
    cosine: dict[str, float] = {}
    lr._fill_cosines(vec, store, "coder", wanted, records, cosine)
    assert set(cosine) == set(wanted)
    for rec_id in wanted:
        assert abs(cosine[rec_id] - dense[rec_id]) < 1e-4
    assert max(cosine, key=cosine.get) == ids[LESSONS[0][0]]


def test_a_new_project_copy_does_not_hide_the_measured_global_lesson(project):
    from kioku.lessons import scopes as sc
    from kioku.lessons.digest import read_digest

    [global_id] = im.learn("coder", "Name migration files with a timestamp prefix", "naming_conventions", 0.9,
                           scope="global")
    sc.open_scope("global", project).update_metadata("coder", "improvements", [global_id], [
        {"turns_given": 12, "turns_held_back": 3, "promoted": True}])
    im.learn("coder", "Name migration files with a timestamp prefix", "naming_conventions", 0.8, scope="both")
    [hit] = [h for h in lr.retrieve("coder", "write a database migration file") if "migration" in h.improvement]
    assert hit.id == global_id and hit.scope == "global"
    [entry] = [e for e in read_digest("coder", project_root=project) if "migration" in e["improvement"]]
    assert entry["id"] == global_id
