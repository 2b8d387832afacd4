"""``kioku enrich`` through the real CLI: the dry run, a run, status, on/off, the export of the
requests and the import of answers written beside them, and ``kioku recall --verbose``."""

from __future__ import annotations

import json
from pathlib import Path

from enrich_fakes import FakeModel
from kioku.memory.api import build_recall, remember

FLY = "Production runs on Fly.io in the Tokyo region"


def seed(project: Path) -> None:
    remember(FLY, type="project", project_root=project)
    remember("My cat Mochi is a grey British shorthair", type="user", project_root=project)
    remember("Releases are cut every second Tuesday", type="project", project_root=project)


def test_dry_run_then_run_then_nothing_left(fake_model: FakeModel, project: Path, kioku) -> None:
    seed(project)
    dry = kioku("enrich", "--dry-run", "--json", cwd=project)
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout) == {**json.loads(dry.stdout), "calls": 1, "memories": 3, "lessons": 0}
    assert fake_model.calls() == []
    ran = kioku("enrich", cwd=project)
    assert ran.returncode == 0, ran.stderr
    assert "enriched 3 memories in 1 model call(s)" in ran.stdout and "3/3" in ran.stderr
    status = kioku("enrich", "status", cwd=project)
    assert "memories: 3 enriched, 0 stale, 0 failed, 0 none" in status.stdout
    assert "today: 1 enrichment call(s)" in status.stdout
    again = kioku("enrich", "--json", cwd=project)
    assert json.loads(again.stdout)["calls"] == 0 and len(fake_model.calls()) == 1


def test_max_calls_stops_the_run(fake_model: FakeModel, project: Path, kioku) -> None:
    for i in range(12):
        remember(f"The service number {i} is called Kite{i} and runs jobs", type="project", project_root=project)
    ran = kioku("enrich", "--max-calls", "1", "--json", cwd=project)
    data = json.loads(ran.stdout)
    assert data["enriched"] == 10 and data["left"] == 2 and "limit of 1 call" in data["stopped"]


def test_without_a_model_or_turned_off_nothing_is_called(fake_model: FakeModel, project: Path, kioku) -> None:
    seed(project)
    none = kioku("enrich", cwd=project, env={"KIOKU_MODEL_BACKEND": "heuristic"})
    assert none.returncode == 1 and "no model call now" in none.stdout
    off = kioku("enrich", "off", cwd=project)
    assert off.returncode == 0 and "search enrichment is off for you" in off.stdout
    refused = kioku("enrich", cwd=project)
    assert refused.returncode == 1 and "turned off by the user" in refused.stdout
    assert fake_model.calls() == []
    assert kioku("enrich", "on", cwd=project).returncode == 0
    assert kioku("enrich", cwd=project).returncode == 0 and len(fake_model.calls()) == 1


def answer_files(folder: Path, skip: set[str] = frozenset()) -> None:
    """Answers written by someone who sees only the request files."""
    import re

    for request_file in sorted(folder.glob("0*.json")):
        if request_file.name in skip:
            continue
        prompt = json.loads(request_file.read_text())["prompt"]
        items = []
        for alias, body in re.findall(r"^=== (m\d+) === \([^)]*\)\n(.*)$", prompt, re.M):
            hosted = "Fly.io" in body
            items.append({"id": alias, "topic": "hosting" if hosted else "other",
                          "questions": ["Where is the app hosted?" if hosted else f"what about {body[:20]}?",
                                        "Which cloud do we deploy to?", "アプリはどこで動いている？"],
                          "keywords": {"en": ["hosting", "cloud"] if hosted else ["note"], "ja": ["ホスティング"]}})
        (request_file.parent / f"{request_file.name}.answer").write_text(json.dumps({"items": items}))


def test_export_then_import_answers_written_beside_the_requests(fake_model: FakeModel, project: Path, kioku,
                                                               tmp_path: Path) -> None:
    seed(project)
    folder = tmp_path / "export"
    out = kioku("enrich", "--export-prompts", str(folder), cwd=project)
    assert out.returncode == 0 and "wrote 1 request file(s) for 3 memories" in out.stdout
    index = json.loads((folder / "index.json").read_text())
    request = json.loads((folder / index["calls"][0]["file"]).read_text())
    assert request["purpose"] == "enrich" and request["json_schema"]["required"] == ["items"]
    assert FLY in request["prompt"] and len(index["calls"][0]["items"]) == 3
    missing = kioku("enrich", "--import", str(folder), "--json", cwd=project)
    assert json.loads(missing.stdout)["missing"] == 1 and json.loads(missing.stdout)["enriched"] == 0
    answer_files(folder)
    done = kioku("enrich", "--import", str(folder), cwd=project)
    assert done.returncode == 0 and "enriched 3 memories" in done.stdout, done.stdout + done.stderr
    assert fake_model.calls() == []                       # answers came from the files, not a model
    found = kioku("search", "where", "is", "the", "app", "hosted", cwd=project)
    assert FLY in found.stdout and "found through its search enrichment" in found.stdout


def test_an_answer_is_not_read_for_notes_that_changed_since_the_export(fake_model: FakeModel, project: Path,
                                                                      kioku, tmp_path: Path) -> None:
    seed(project)
    folder = tmp_path / "export"
    kioku("enrich", "--export-prompts", str(folder), cwd=project)
    answer_files(folder)
    topic = project / ".agents" / "memory" / "infrastructure-notes.md"
    topic.write_text(topic.read_text().replace("Tokyo", "Osaka"))
    done = kioku("enrich", "--import", str(folder), "--json", cwd=project)
    assert json.loads(done.stdout)["skipped"] == 1 and json.loads(done.stdout)["enriched"] == 0
    bad = kioku("enrich", "--import", str(tmp_path), cwd=project)
    assert bad.returncode != 0 and "holds no enrichment export" in bad.stderr


def test_recall_verbose_shows_the_enrichment_and_recall_never_does(fake_model: FakeModel, project: Path,
                                                                  kioku) -> None:
    fake_model.answers({"Fly.io": {"questions": ["Where is the app hosted?", "Which cloud?", "どこで動いている？"],
                                   "keywords": {"en": ["hosting"], "ja": ["ホスティング"]}, "topic": "hosting"}})
    seed(project)
    kioku("enrich", cwd=project)
    verbose = kioku("recall", "--verbose", cwd=project)
    assert "Search enrichment" in verbose.stdout and "Where is the app hosted?" in verbose.stdout
    assert "keywords: hosting · ホスティング" in verbose.stdout
    plain = kioku("recall", cwd=project)
    assert plain.returncode == 0 and "Where is the app hosted?" not in plain.stdout
    assert "Where is the app hosted?" not in build_recall(project_root=project)
    (project / ".agents" / "memory" / "infrastructure-notes.md").write_text(
        (project / ".agents" / "memory" / "infrastructure-notes.md").read_text().replace("Tokyo", "Osaka"))
    assert "search enrichment stale" in kioku("recall", "--verbose", cwd=project).stdout


def test_the_first_session_says_that_memories_are_sent_for_enrichment(fake_model: FakeModel, project: Path) -> None:
    from enrich_fakes import write_config
    from kioku.hooks import session_start

    write_config("[judge]\nenabled = false\n")
    payload = {"session_id": "s1", "cwd": str(project), "source": "startup", "hook_event_name": "SessionStart"}
    first = session_start.handle(payload)
    assert first is not None and "each memory you save and each lesson it learns" in first.system_message
    assert "kioku enrich off" in first.system_message and "judges" not in first.system_message
    again = session_start.handle(payload)
    assert again is None or again.system_message is None
