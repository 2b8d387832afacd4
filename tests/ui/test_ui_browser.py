"""The web app and the static report in a real browser (Debian's Chromium, driven by Playwright).

Edits, forgets and restores are made by clicking through the UI, then the Markdown files are
compared byte for byte with a twin folder changed through the CLI or the memory API with the
same pinned clock: the UI must write exactly what the save path writes.

Set ``KIOKU_UI_SCREENSHOTS=DIR`` to also save screenshots of the main views (the README's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from uitest_support import HOSTILE_MEMORY, HOSTILE_TAG, RunningUI, memory_files, ui_env

SHOTS = os.environ.get("KIOKU_UI_SCREENSHOTS", "")


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


@pytest.fixture
def page(browser, ui: RunningUI):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.goto(ui.url)
    yield page
    context.close()


def twin(project: Path, home: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A second project and home holding byte-identical memory folders."""
    twin_project, twin_home = tmp_path / "twin-project", tmp_path / "twin-home"
    twin_project.mkdir()
    subprocess.run(["git", "init", "-q", str(twin_project)], check=True)
    shutil.copytree(project / ".agents", twin_project / ".agents")
    shutil.copytree(home / ".agents", twin_home / ".agents")
    return twin_project, twin_home


def twin_env(twin_home: Path) -> dict[str, str]:
    return ui_env({"HOME": str(twin_home), "KIOKU_USER_HOME": str(twin_home),
                   "CLAUDE_CONFIG_DIR": str(twin_home / ".claude"), "KIOKU_HOME": str(twin_home / ".claude" / "kioku")})


def memory_id(project: Path, words: str) -> str:
    from kioku.memory.api import memory_dirs

    return next(e.id for md in memory_dirs(project) for _n, e in md.active_entries(md.load_topics())
                if words in e.text)


def test_pages_load_with_the_token_and_are_refused_without(browser, page, ui: RunningUI, agent_ids) -> None:
    assert page.url == f"{ui.base}/memory"
    assert page.locator("h1").inner_text() == "Memory"
    assert page.locator("article.memory").count() == 5
    shot(page, "memory")
    expected = {"agents": "Run the focused test file", "evaluations": "Add the export button 72",
                "trends": "Success rate per day", "health": "kioku doctor"}
    for view, text in expected.items():
        page.click(f"#nav-{view}")
        page.wait_for_load_state()
        assert page.locator("h1").inner_text() == view.capitalize()
        assert text in page.locator("main").inner_text(), view
        shot(page, view)
    stranger = browser.new_context()
    try:
        response = stranger.new_page().goto(f"{ui.base}/memory")
        assert response.status == 401
        assert "Memory" not in response.text()
    finally:
        stranger.close()


def test_agent_view_shows_evidence_and_no_data_for_absent_fields(page, ui: RunningUI, agent_ids) -> None:
    page.goto(f"{ui.base}/agents?agent=main")
    evidence = page.locator(f'tr[data-lesson="{agent_ids["evidence"]}"]').inner_text()
    for text in ("promoted", "42", "12", "35 (83%)", "7 (58%)", "+25%", "+2% to +47%",
                 "uplift interval above zero"):
        assert text in evidence, text
    plain = page.locator(f'tr[data-lesson="{agent_ids["plain"]}"]')
    assert plain.locator("td[data-empty]").count() >= 5  # turns, successes, uplift: no data
    assert " 0 " not in f" {plain.inner_text()} ".replace("\t", " ")
    page.goto(f"{ui.base}/evaluations?agent=main")
    rows = page.locator("table.evaluations tbody tr")
    assert rows.count() == 24
    newest = rows.nth(0).inner_text()
    assert "Add the export button 70" in newest and "input 5,200" in newest and "40.5 s" in newest
    old = page.locator("tr", has_text="Fix the flaky test number 00").inner_text()
    assert "failed" in old and "tool errors 2" in old and "1,200 total" in old


def test_edit_through_the_ui_writes_what_the_save_path_writes(page, ui: RunningUI, seeded: Path,
                                                               isolated_home: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    twin_project, twin_home = twin(seeded, isolated_home, tmp_path)
    entry_id = memory_id(seeded, "bun, never npm")
    card = page.locator(f'article[data-id="{entry_id}"]')
    card.locator("summary").click()
    card.locator("textarea").fill("We always use pnpm, never npm or yarn, in this repository")
    card.locator("select").select_option("feedback")
    card.locator("button", has_text="Save").click()
    page.wait_for_load_state()
    assert "Edited: We always use pnpm" in page.locator(".flash").inner_text()

    for key, value in twin_env(twin_home).items():
        monkeypatch.setenv(key, value)
    from kioku.memory.edit import edit_memory

    edit_memory(entry_id, "We always use pnpm, never npm or yarn, in this repository", "feedback",
                project_root=twin_project)
    after = memory_files(seeded, isolated_home)
    assert after == memory_files(twin_project, twin_home)
    assert b"[feedback] We always use pnpm" in after["project/MEMORY.md"]
    assert b"bun" not in after["project/project-conventions.md"]
    found = subprocess.run([sys.executable, "-m", "kioku", "search", "--lexical", "pnpm yarn"], cwd=seeded,
                           env=ui_env({"HOME": str(isolated_home)}), capture_output=True, text=True, timeout=120)
    assert "project-conventions.md" in found.stdout
    # a new type of "user" moves the memory out of the project: the message says where to
    card = page.locator(f'article[data-id="{entry_id}"]')
    card.locator("summary").click()
    card.locator("select").select_option("user")
    card.locator("button", has_text="Save").click()
    page.wait_for_load_state()
    assert "Moved to the user-wide memory (~/.agents/memory)" in page.locator(".flash").inner_text()


def _holding(files: dict[str, bytes], needle: bytes) -> list[str]:
    return sorted(name for name, data in files.items() if needle in data)


def test_forget_and_restore_through_the_ui_match_the_cli(page, ui: RunningUI, seeded: Path, isolated_home: Path,
                                                         tmp_path: Path) -> None:
    twin_project, twin_home = twin(seeded, isolated_home, tmp_path)
    entry_id = memory_id(seeded, "staging database")
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    page.locator(f'article[data-id="{entry_id}"] form.forget button').click()
    page.wait_for_load_state()
    assert dialogs == ["Move this memory to the archive?"]  # app.js ran: scripts work, yet data stays inert
    assert "Forgot:" in page.locator(".flash").inner_text()
    assert "msg=" not in page.url  # the one-time message is dropped from the address
    page.reload()
    assert page.locator(".flash").count() == 0  # so a reload does not repeat it
    cli = subprocess.run([sys.executable, "-m", "kioku", "forget", "--id", entry_id], cwd=twin_project,
                         env=twin_env(twin_home), capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    forgotten = memory_files(seeded, isolated_home)
    assert forgotten == memory_files(twin_project, twin_home)
    assert _holding(forgotten, b"staging database") == ["project/archive/infrastructure-notes.md"]

    page.locator(f'#archive article[data-id="{entry_id}"] form.restore button').click()
    page.wait_for_load_state()
    assert "Restored:" in page.locator(".flash").inner_text()
    restored = memory_files(seeded, isolated_home)
    assert _holding(restored, b"staging database") == ["project/MEMORY.md", "project/infrastructure-notes.md"]
    assert page.locator(f'#scope-project article[data-id="{entry_id}"]').count() == 1


def test_a_secret_typed_into_an_edit_is_refused_and_nothing_changes(page, ui: RunningUI, seeded: Path,
                                                                     isolated_home: Path) -> None:
    before = memory_files(seeded, isolated_home)
    entry_id = memory_id(seeded, "bun, never npm")
    card = page.locator(f'article[data-id="{entry_id}"]')
    card.locator("summary").click()
    card.locator("textarea").fill("deploy with ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    card.locator("button", has_text="Save").click()
    page.wait_for_load_state()
    flash = page.locator(".flash.error").inner_text()
    assert "GitHub token" in flash and "ghp_" not in flash
    assert memory_files(seeded, isolated_home) == before


def test_hostile_text_is_shown_as_text_and_never_runs(page, ui: RunningUI, agent_ids) -> None:
    for path in ("/memory", "/memory?q=hostile+note", "/agents?agent=main"):
        page.goto(ui.base + path)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.locator("main img").count() == 0
        assert page.locator("main script").count() == 0
    page.goto(f"{ui.base}/memory")
    assert HOSTILE_MEMORY in page.locator("main").inner_text()
    page.goto(f"{ui.base}/agents?agent=main")
    tags = page.locator(".tags", has_text="onmouseover")
    assert tags.inner_text() == HOSTILE_TAG
    assert tags.locator("b").count() == 0
    tags.hover()
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_search_is_the_cli_search(page, ui: RunningUI, seeded: Path, isolated_home: Path) -> None:
    page.fill('input[name="q"]', "bun npm")
    page.click('form.search button')
    page.wait_for_load_state()
    hits = page.locator("#search-results table tbody tr")
    assert hits.count() >= 1
    cli = subprocess.run([sys.executable, "-m", "kioku", "search", "--archive", "--json", "bun npm"], cwd=seeded,
                         env=ui_env(), capture_output=True, text=True, timeout=120)
    import json

    expected = json.loads(cli.stdout)
    assert expected and expected[0]["text"] in hits.nth(0).inner_text()


def test_deprecate_and_restore_a_lesson_by_hand(page, ui: RunningUI, agent_ids, seeded: Path) -> None:
    from kioku.lessons import scopes as sc
    from kioku.lessons.digest import read_digest

    lesson = agent_ids["plain"]
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{ui.base}/agents?agent=main")
    stale = page.context.new_page()
    stale.goto(f"{ui.base}/agents?agent=main")
    page.locator(f'tr[data-lesson="{lesson}"] form.lesson-deprecate button').click()
    page.wait_for_load_state()
    assert "deprecated" in page.locator(f'tr[data-lesson="{lesson}"] .decision').inner_text()
    sc.reset_store_cache()
    meta = sc.open_scope("global", seeded).get("main", "improvements", ids=[lesson])[0].metadata
    assert meta["deprecated"] is True and meta["decision"] == "deprecated"
    assert lesson not in {e["id"] for e in read_digest("main", seeded)}
    stale.on("dialog", lambda dialog: dialog.accept())
    stale.locator(f'tr[data-lesson="{lesson}"] form.lesson-deprecate button').click()  # a second tab, opened before
    stale.wait_for_load_state()
    assert "agent=main" in stale.url and "already deprecated" in stale.locator(".flash.error").inner_text()
    stale.close()
    page.locator(f'tr[data-lesson="{lesson}"] form.lesson-restore button').click()
    page.wait_for_load_state()
    assert "active" in page.locator(f'tr[data-lesson="{lesson}"] .decision').inner_text()
    sc.reset_store_cache()
    meta = sc.open_scope("global", seeded).get("main", "improvements", ids=[lesson])[0].metadata
    assert meta["deprecated"] is False
    assert lesson in {e["id"] for e in read_digest("main", seeded)}


def test_static_report_opens_from_file_without_javascript_and_draws_its_charts(browser, seeded: Path, agent_ids,
                                                                                 tmp_path: Path) -> None:
    out = tmp_path / "report" / "main.html"
    done = subprocess.run([sys.executable, "-m", "kioku", "dashboard", "--agent", "main", "--html", str(out)],
                          cwd=seeded, env=ui_env(), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 860})
    requests: list[str] = []
    try:
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.goto(out.as_uri())
        assert all(url.startswith("file://") for url in requests), requests
        assert page.locator("svg.chart").count() == 3
        header = page.locator("header").evaluate("h => getComputedStyle(h).backgroundColor")
        assert header == "rgb(31, 42, 55)"  # the inline stylesheet passed the report's hash-only CSP
        assert page.locator("svg.chart polyline.series").count() == 2  # success rate and quality lines
        assert page.locator("svg.chart circle.point").count() == 16  # 8 days x 2 charts
        assert page.locator("svg.chart rect.bar").count() >= 1
        box = page.locator("svg.chart").first.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100
        assert "Run the focused test file" in page.locator("#lessons").inner_text()
        assert page.locator(".tags b").count() == 0 and HOSTILE_TAG in page.locator("#lessons").inner_text()
        assert page.locator("form, button").count() == 0
        shot(page, "report")
    finally:
        context.close()
