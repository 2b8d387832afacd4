"""The worker enriches what the save paths marked, through the command backend and a stand-in model:
a paraphrase then finds the memory or lesson; malformed answers, an edit (stale enrichment), the
daily budget, a rate limit and the opt-out each end as they must."""

from __future__ import annotations

from pathlib import Path

import pytest

from enrich_fakes import FakeModel, write_config
from kioku.enrich import targets
from kioku.infra import enrich_queue, jobs
from kioku.memory.api import remember
from kioku.memory.edit import edit_memory
from kioku.memory.search import search
from kioku.model import usage
from kioku.retrieval.enrichment import default_store
from kioku.worker import drain

FLY = "Production runs on Fly.io in the Tokyo region"
FLY_ENRICHMENT = {"questions": ["Where is the app hosted?", "Which cloud runs production?", "アプリはどこでホストしている？"],
                  "keywords": {"en": ["hosting", "cloud provider"], "ja": ["ホスティング", "本番環境"]},
                  "topic": "hosting"}


def states() -> dict[str, str]:
    return {s.item.text: s.state for s in targets.states(targets.memory_items())}


def run_worker() -> dict:
    report = drain.drain(wait=True, lag_wait=0)
    assert report is not None and report["failed"] == 0, report
    return report["enrichment"]


def test_a_saved_memory_is_enriched_by_the_worker_and_found_by_a_paraphrase(fake_model: FakeModel, project: Path) -> None:
    fake_model.answers({"Fly.io": FLY_ENRICHMENT})
    remember(FLY, type="project", project_root=project)
    remember("My cat Mochi is a grey British shorthair", type="user", project_root=project)
    assert len(enrich_queue.pending()) == 2
    assert search("where is the app hosted", project_root=project) == []
    summary = run_worker()
    assert summary["enriched"] == 2 and summary["calls"] == 1 and enrich_queue.pending() == []
    assert fake_model.calls() == ["m1 m2 nested=1"]          # one batch, inside Kioku's guard
    hits = search("where is the app hosted", project_root=project)
    assert hits and FLY in hits[0].text and hits[0].enrichment == "Where is the app hosted?"
    assert search("where is the app hosted", project_root=project, enrichment=False) == []
    assert search("what is the capital of Peru", project_root=project) == []
    assert usage.totals(usage.today(), "enrich").calls == 1
    assert run_worker() == {}                                # nothing marked: no call
    assert len(fake_model.calls()) == 1


def test_a_new_lesson_is_enriched_and_retrieved_by_a_paraphrase(fake_model: FakeModel, project: Path) -> None:
    from kioku.lessons.improvements import learn
    from kioku.lessons.lesson_retrieval import retrieve

    fake_model.answers({"lock file": {
        "questions": ["the dependency snapshot shows <<<<<<< markers after a pull",
                      "how do I fix conflict markers in pnpm-lock.yaml", "ロックファイルの競合を直したい"],
        "keywords": {"en": ["conflict markers", "dependency snapshot", "pnpm-lock.yaml", "pull"],
                     "ja": ["競合", "ロックファイル"]},
        "topic": "lock file conflicts"}})
    learn("main", "On a merge conflict in a lock file, regenerate the lock file instead of editing it by hand",
          "error_handling", 0.9, scope="global", project_root=project)
    learn("main", "Keep functions under forty lines; extract a helper when a block needs a comment", "code_quality",
          0.9, scope="global", project_root=project)
    task = "the dependency snapshot shows <<<<<<< markers after a pull"
    assert not retrieve("main", task, project_root=project)
    assert run_worker()["enriched"] == 2
    hits = retrieve("main", task, project_root=project)
    assert hits and "lock file" in hits[0].improvement and hits[0].extra.get("via_enrichment")
    assert not retrieve("main", task, project_root=project, enrichment=False)
    assert not retrieve("main", "tell me a joke about penguins", project_root=project)


def test_a_malformed_answer_is_asked_again_and_the_good_one_kept(fake_model: FakeModel, project: Path) -> None:
    fake_model.mode("malformed", "good")
    remember(FLY, type="project", project_root=project)
    summary = run_worker()
    assert summary["enriched"] == 1 and summary["calls"] == 2
    assert states() == {FLY: "enriched"}


def test_an_answer_in_one_language_is_asked_again(fake_model: FakeModel, project: Path) -> None:
    fake_model.mode("english", "good")
    remember(FLY, type="project", project_root=project)
    assert run_worker()["calls"] == 2 and states() == {FLY: "enriched"}


def test_malformed_twice_records_a_failure_and_search_works_as_before(fake_model: FakeModel, project: Path) -> None:
    fake_model.mode("malformed")
    remember(FLY, type="project", project_root=project)
    summary = run_worker()
    assert summary == {**summary, "enriched": 0, "failed": 1, "calls": 2, "waiting": 0}
    assert enrich_queue.pending() == [] and states() == {FLY: "failed"}
    assert usage.totals(usage.today(), "enrich").fallbacks == 1
    assert search("Fly.io", project_root=project)            # found by its text, as without enrichment


def test_an_edit_makes_the_enrichment_stale_and_the_worker_writes_it_again(fake_model: FakeModel,
                                                                           project: Path) -> None:
    fake_model.answers({"Fly.io": FLY_ENRICHMENT})
    result = remember(FLY, type="project", project_root=project)
    run_worker()
    moved = "Production runs on Render in Frankfurt"
    edit_memory(result.id, text=moved, project_root=project)
    assert states() == {moved: "stale"}
    assert search("where is the app hosted", project_root=project) == []   # the old text's enrichment is not used
    assert [d["id"] for _p, d in enrich_queue.pending()] == [result.id]
    assert run_worker()["enriched"] == 1 and states() == {moved: "enriched"}
    assert len(default_store().by_owner("memory", [result.id])) == 1
    rows = default_store().rows("memory", [targets.memory_items()[0].key])
    assert rows and "Render" in " ".join(rows[targets.memory_items()[0].key].enrichment.keywords_en)


def test_an_edit_by_hand_is_found_stale_when_the_folder_is_next_enriched(fake_model: FakeModel,
                                                                        project: Path) -> None:
    remember(FLY, type="project", project_root=project)
    run_worker()
    topic = Path(targets.memory_items()[0].where) / "infrastructure-notes.md"
    topic.write_text(topic.read_text().replace("Tokyo region", "Osaka region"))
    edited = FLY.replace("Tokyo", "Osaka")
    assert states() == {edited: "stale"}
    remember("Logs go to Grafana Loki and alerts page the on-call", type="project", project_root=project)
    assert run_worker()["enriched"] == 2 and set(states().values()) == {"enriched"}


def test_the_daily_budget_stops_the_run_and_the_rest_waits(fake_model: FakeModel, project: Path) -> None:
    write_config("daily_calls = 1\n")
    for i in range(12):
        remember(f"The service number {i} is called Kite{i} and runs jobs", type="project", project_root=project)
    summary = run_worker()
    assert summary["enriched"] == 10 and summary["calls"] == 1 and summary["waiting"] == 2
    assert "daily_calls" in summary["reason"]
    assert len(enrich_queue.pending()) == 2 and usage.totals(usage.today(), "enrich").calls == 1
    assert sorted(states().values()).count("none") == 2


def test_a_rate_limit_stores_nothing_and_the_items_wait(fake_model: FakeModel, project: Path) -> None:
    fake_model.mode("down", "good")
    remember(FLY, type="project", project_root=project)
    summary = run_worker()
    assert summary["enriched"] == 0 and summary["waiting"] == 1 and states() == {FLY: "none"}
    assert run_worker()["enriched"] == 1


@pytest.mark.parametrize("where", ["user", "project"])
def test_turned_off_no_call_is_made_and_nothing_waits(fake_model: FakeModel, project: Path, where: str) -> None:
    if where == "user":
        write_config("[enrich]\nenabled = false\n")
    else:
        (project / ".agents").mkdir()
        (project / ".agents" / "kioku.toml").write_text("[enrich]\nenabled = false\n")
    remember(FLY, type="project", project_root=project)
    summary = run_worker()
    assert summary["skipped"] == 1 and "turned off" in summary["reason"]
    assert fake_model.calls() == [] and enrich_queue.pending() == [] and states() == {FLY: "none"}


def test_without_a_model_saving_and_searching_are_as_before(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    remember(FLY, type="project", project_root=project)
    assert run_worker()["skipped"] == 1 and enrich_queue.pending() == []
    assert not (Path(default_store().path)).exists()
    assert [h.enrichment for h in search("Fly.io", project_root=project)] == [""]


def test_the_save_path_marks_and_starts_no_worker(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook's save only writes a marker: no worker, no model, no job."""
    def refuse() -> bool:
        raise AssertionError("the save path started a worker")

    monkeypatch.delenv("KIOKU_NO_WORKER", raising=False)
    monkeypatch.setattr(jobs, "spawn_worker", refuse)
    result = remember(FLY, type="project", project_root=project)
    marked = enrich_queue.pending()
    assert [d["id"] for _p, d in marked] == [result.id] and jobs.pending() == []
    assert marked[0][1]["project_root"] == str(project)
    monkeypatch.setenv("KIOKU_NESTED_RUN", "1")
    remember("Logs go to Grafana Loki", type="project", project_root=project)
    assert len(enrich_queue.pending()) == 1                 # nothing is marked inside a model run
