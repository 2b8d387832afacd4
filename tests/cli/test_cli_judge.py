"""``kioku judge status | on | off`` and the one-time notice at the first SessionStart with a model judge."""

from __future__ import annotations

import json
from pathlib import Path

from kioku.infra import paths
from kioku.model import usage


def test_status_shows_backend_use_budget_and_the_last_error(kioku, project: Path) -> None:
    usage.record_call("judge", 1200, 300, 0.0042, 0.0027)
    usage.record_failure("judge", "the API answered with an error (529): overloaded", transient=True)
    out = kioku("judge", "status", "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["backend"] == "heuristic" and report["uses"] == "heuristic" and report["model"] == "haiku"
    assert report["today"]["calls"] == 1 and report["today"]["tokens"] == 1500
    assert report["today"]["cost_usd"] == 0.0042 and report["month"]["calls"] == 1
    assert report["budget_left"] == {"calls": 199, "tokens": 1_500_000 - 1500}
    assert "overloaded" in report["last_error"]["message"]
    text = kioku("judge", "status", cwd=project).stdout
    assert "today: 1 call(s), 1,500 tokens, $0.0042" in text and "left today: 199 calls" in text


def test_off_and_on_for_the_user_and_for_a_project(kioku, project: Path) -> None:
    out = kioku("judge", "off", cwd=project)
    assert out.returncode == 0 and "off for you" in out.stdout
    assert "enabled = false" in (paths.kioku_home() / "config.toml").read_text()
    assert json.loads(kioku("judge", "status", "--json", cwd=project).stdout)["enabled"] is False
    kioku("judge", "on", cwd=project)
    out = kioku("judge", "off", "--project", cwd=project)
    assert (project / ".agents" / "kioku.toml").read_text() == "[judge]\nenabled = false\n"
    assert json.loads(kioku("judge", "status", "--json", cwd=project).stdout)["unavailable"].startswith(
        "turned off for this project")


def test_the_notice_is_shown_once_when_a_model_will_judge(project: Path, monkeypatch, tmp_path: Path) -> None:
    from kioku.hooks import session_start

    monkeypatch.setenv("KIOKU_MODEL_BACKEND", "command")
    config = paths.kioku_home() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[model]\ncommand = "true"\ndaily_calls = 50\n', encoding="utf-8")
    payload = {"session_id": "s1", "cwd": str(project), "source": "startup", "hook_event_name": "SessionStart"}
    first = session_start.handle(payload)
    assert first is not None and first.system_message.startswith("Kioku: Kioku judges each finished turn")
    assert "at most 50 calls" in first.system_message and "kioku judge off" in first.system_message
    assert "kioku enrich off" in first.system_message
    again = session_start.handle(payload)
    assert again is None or again.system_message is None


def test_no_notice_while_only_the_rules_judge(project: Path) -> None:
    from kioku.hooks import session_start

    result = session_start.handle({"session_id": "s1", "cwd": str(project), "source": "startup"})
    assert result is None or result.system_message is None


def test_without_a_model_later_starts_read_no_config_until_it_changes(project: Path, monkeypatch) -> None:
    """The "no model may be called" finding is kept: the next start does not load the settings
    again; once the config changes so that a model may be called, the notice is shown."""
    import os

    from kioku.model import notice, settings

    config = paths.kioku_home() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[model]\nbackend = "heuristic"\n', encoding="utf-8")
    monkeypatch.delenv("KIOKU_MODEL_BACKEND", raising=False)
    assert notice.pending_notice(str(project)) == ""
    loads = []
    real = settings.load_settings
    monkeypatch.setattr(settings, "load_settings", lambda *a, **k: loads.append(1) or real(*a, **k))
    assert notice.pending_notice(str(project)) == "" and loads == []
    config.write_text('[model]\nbackend = "command"\ncommand = "true"\n', encoding="utf-8")
    os.utime(config, ns=(1, 1))  # a new time even within the file system's clock resolution
    shown = notice.pending_notice(str(project))
    assert loads == [1] and shown.startswith("Kioku judges each finished turn")


def test_the_dashboard_and_the_web_apps_health_page_show_the_same_figures(kioku, project: Path) -> None:
    from kioku.ui import data, pages

    usage.record_call("judge", 700, 100, None, 0.0012)
    dashboard = json.loads(kioku("dashboard", "--agent", "main", "--json", cwd=project).stdout)
    assert dashboard["judge"]["today"]["calls"] == 1 and dashboard["judge"]["today"]["estimated_usd"] == 0.0012
    page = pages.health_page(data.health(project))
    assert '<section id="judge">' in page and "today: 1 call(s), 800 tokens, $0.0012 (estimated)" in page
