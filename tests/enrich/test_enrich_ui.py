"""The web app shows each memory's search enrichment apart from its text, escaped, and says when a
search hit came through it; an edit there queues the enrichment again."""

from __future__ import annotations

from pathlib import Path

from enrich_fakes import FakeModel
from kioku.enrich import targets
from kioku.enrich.run import enrich
from kioku.infra import enrich_queue
from kioku.memory.api import remember
from kioku.ui import data
from kioku.ui.pages import memory_page

FLY = "Production runs on Fly.io in the Tokyo region"


def test_the_memory_page_shows_the_enrichment_and_why_a_hit_matched(fake_model: FakeModel, project: Path) -> None:
    fake_model.answers({"Fly.io": {"questions": ["Where is the app hosted?", "<script>alert(1)</script> what?",
                                                 "どこで動いている？"],
                                   "keywords": {"en": ["hosting"], "ja": ["ホスティング"]}, "topic": "hosting"}})
    remember(FLY, type="project", project_root=project)
    remember("Releases are cut every second Tuesday", type="project", project_root=project)
    enrich(targets.memory_items(project)[:1])
    memories = data.memories(project)
    states = {m["text"]: m["enrichment"]["state"] for m in memories}
    assert states == {FLY: "enriched", "Releases are cut every second Tuesday": "none"}
    hits, nearest = data.search_memories("where is the app hosted", project)
    page = memory_page(memories, "token", "where is the app hosted", hits, nearest)
    assert "Search enrichment (written by" in page and "Where is the app hosted?" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "found through its search enrichment: Where is the app hosted?" in page
    assert "no search enrichment yet" in page


def test_an_edit_from_the_web_app_marks_the_memory_again(fake_model: FakeModel, project: Path) -> None:
    from kioku.memory.edit import edit_memory

    result = remember(FLY, type="project", project_root=project)
    for path, _data in enrich_queue.pending():
        enrich_queue.done(path)
    edit_memory(result.id, type="reference", project_root=project)    # no new text: nothing to redo
    assert enrich_queue.pending() == []
    edit_memory(result.id, text="Production runs on Render", project_root=project)
    assert [d["id"] for _p, d in enrich_queue.pending()] == [result.id]
