"""The plugin layout: manifests, hooks.json, the launcher under plugin variables, a second install.

The end-to-end run with the real binary is tests/e2e/test_e2e_plugin.py; these checks are fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kioku.install import doctor, plugin_env, settings, venv

REPO = Path(__file__).resolve().parents[2]
PLUGIN_HOOK = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/kioku_hook.py" '


def test_manifests_name_the_plugin_and_its_local_source() -> None:
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    assert plugin["name"] == "kioku" and plugin["version"]
    assert market["name"] == "kioku" and market["owner"]["name"]
    assert [(p["name"], p["source"]) for p in market["plugins"]] == [("kioku", "./")]
    pyproject = (REPO / "pyproject.toml").read_text()
    assert f'version = "{plugin["version"]}"' in pyproject  # one version for both ways of installing


def test_hooks_json_matches_what_install_py_writes() -> None:
    """Same events, matchers and timeouts as settings.json gets; one launcher taking the event."""
    data = json.loads((REPO / "hooks" / "hooks.json").read_text())
    want = settings.kioku_groups(lambda event: PLUGIN_HOOK + event)
    assert data["hooks"] == {event: [group] for event, group in want.items()}
    assert sorted(p.name for p in (REPO / "hooks").iterdir() if p.suffix == ".py") == ["kioku_hook.py"]
    assert os.access(REPO / "bin" / "kioku", os.X_OK)


def test_ready_stamp_is_the_one_venv_writes() -> None:
    assert plugin_env.READY_STAMP == venv.STAMP


def _plugin_env(home: Path, data: Path, project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOKU_", "CLAUDE", "PYTHON"))}
    env.update(HOME=str(home), KIOKU_USER_HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CLAUDE_PLUGIN_ROOT=str(REPO), CLAUDE_PLUGIN_DATA=str(data), CLAUDE_PROJECT_DIR=str(project),
               KIOKU_NO_WORKER="1")
    return env


def _hook(event: str, payload: dict, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "hooks" / "kioku_hook.py"), event], input=json.dumps(payload),
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_plugin_hooks_stand_aside_when_install_py_installed_kioku_too(isolated_home: Path, project: Path,
                                                                     tmp_path: Path) -> None:
    manifest = isolated_home / ".claude" / "kioku" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text("{}")
    data = tmp_path / "plugin-data"
    env = _plugin_env(isolated_home, data, project)
    base = {"session_id": "s1", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(project)}
    start_payload = {**base, "hook_event_name": "SessionStart", "source": "startup"}
    quiet = _hook("SessionStart", start_payload, {**env, "KIOKU_DISABLE": "1"}, project)
    assert quiet.returncode == 0 and quiet.stdout == ""  # the kill switch silences the warning too
    start = _hook("SessionStart", start_payload, env, project)
    assert start.returncode == 0, start.stderr
    message = json.loads(start.stdout)
    assert set(message) == {"systemMessage"} and "installed twice" in message["systemMessage"]
    saved = _hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit",
                                       "prompt": "remember that we always use bun"}, env, project)
    assert saved.returncode == 0 and saved.stdout == ""
    assert not (project / ".agents" / "memory").exists()  # the install.py hooks save it, once
    assert not data.exists()  # nor is a second environment prepared
    manifest.unlink()
    # An environment that looks ready, so this hook starts no background preparation (pip).
    (data / "venv" / "bin").mkdir(parents=True)
    (data / "venv" / "bin" / "python").symlink_to(sys.executable)
    (data / "venv" / venv.STAMP).write_text("{}")
    saved = _hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit",
                                       "prompt": "remember that we always use bun"}, env, project)
    assert json.loads(saved.stdout)["hookSpecificOutput"]["additionalContext"].startswith("Saved to memory: ")


def test_doctor_reports_the_plugin_environment_and_both_installs(isolated_home: Path, project: Path) -> None:
    plugins = isolated_home / ".claude" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "installed_plugins.json").write_text(json.dumps(
        {"version": 2, "plugins": {"kioku@kioku": [{"scope": "user"}], "other@x": [{"scope": "user"}]}}))
    data = plugins / "data" / "kioku-kioku"

    def checks() -> dict[str, dict]:
        return {c["check"]: c for c in doctor.run_checks(project)}

    found = checks()
    assert found["plugin kioku@kioku"]["warning"] and "not prepared yet" in found["plugin kioku@kioku"]["detail"]
    assert "install" not in found  # the plugin alone is an installation
    data.mkdir(parents=True)
    (data / plugin_env.FAILED_MARKER).write_text(json.dumps({"error": "pip: no network", "time": 0}))
    failed = checks()["plugin kioku@kioku"]
    assert not failed["ok"] and "pip: no network" in failed["detail"]
    (data / plugin_env.FAILED_MARKER).unlink()
    (data / "venv" / "bin").mkdir(parents=True)
    (data / "venv" / "bin" / "python").symlink_to(sys.executable)
    (data / "venv" / venv.STAMP).write_text("{}")
    ready = checks()["plugin kioku@kioku"]
    assert ready["ok"] and not ready["warning"] and "ready" in ready["detail"]
    manifest = isolated_home / ".claude" / "kioku" / "manifest.json"
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps({"files": {}}))
    twice = [c for c in doctor.run_checks(project) if c["check"] == "install" and c["warning"]]
    assert twice and "both as a Claude Code plugin and with install.py" in twice[0]["detail"]


def test_missing_dependencies_are_a_warning_while_the_plugin_environment_is_not_ready(
        isolated_home: Path, project: Path, monkeypatch) -> None:
    import importlib.util

    plugins = isolated_home / ".claude" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {"kioku@kioku": []}}))
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "chromadb" else real(name, *a))
    dep = {c["check"]: c for c in doctor.run_checks(project)}["dependency chromadb"]
    assert dep["ok"] and dep["warning"] and "not ready yet" in dep["detail"]


def test_auto_memory_turned_off_for_the_user_is_not_reported_for_a_project_install(
        isolated_home: Path, project: Path) -> None:
    from kioku.install.layout import Target

    (isolated_home / ".claude").mkdir(parents=True, exist_ok=True)
    (isolated_home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    assert doctor._auto_memory_setting(Target(project / ".claude", project), {}) is False
    assert doctor._auto_memory_setting(Target(project / ".claude", project), {"autoMemoryEnabled": True}) is True


def test_the_plugin_declares_its_mcp_server_through_its_own_kioku_command() -> None:
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["mcpServers"] == {"kioku": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/kioku", "args": ["mcp"]}}
    # no .mcp.json at the root: in this checkout it would also be read as the project's own servers
    assert not (REPO / ".mcp.json").exists()


def _mcp_without_sdk(env: dict[str, str], project: Path) -> subprocess.CompletedProcess[str]:
    """``kioku mcp`` as the plugin runs it before its environment exists: an interpreter that
    sees no third-party package (``-S``: no site-packages), the package from the plugin's src."""
    return subprocess.run([sys.executable, "-S", "-m", "kioku", "mcp"], cwd=project, input="", capture_output=True,
                          text=True, timeout=60, env={**env, "PYTHONPATH": str(REPO / "src")})


def test_the_plugins_mcp_server_before_the_environment_exists_says_it_is_being_prepared(
        isolated_home: Path, project: Path, tmp_path: Path) -> None:
    from kioku.infra import fsutil

    data = tmp_path / "plugin-data"
    env = _plugin_env(isolated_home, data, project)
    data.mkdir()
    with fsutil.try_lock(data / plugin_env.PREPARE_LOCK) as got:  # a preparation is running
        assert got
        waiting = _mcp_without_sdk(env, project)
    assert waiting.returncode == 1 and "is being prepared in the background" in waiting.stderr
    assert str(data / plugin_env.PREPARE_LOG) in waiting.stderr and "Traceback" not in waiting.stderr
    (data / plugin_env.FAILED_MARKER).write_text('{"error": "no network"}')
    failed = _mcp_without_sdk(env, project)
    assert failed.returncode == 1 and "failed" in failed.stderr and "kioku doctor" in failed.stderr
    outside = _mcp_without_sdk({k: v for k, v in env.items() if not k.startswith("CLAUDE_PLUGIN")}, project)
    assert outside.returncode == 1 and "needs the MCP SDK" in outside.stderr and "install.py" in outside.stderr
