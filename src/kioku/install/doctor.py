"""``kioku doctor``: check that the installation, the hooks and the stores are usable.

Each check gives (name, ok, detail); the command exits 1 if any check failed. Checks:
the install manifest and its files, the Claude Code plugin and its environment, settings.json (valid, Kioku hooks present with timeouts,
pointing at existing files), the interpreter and heavy dependencies (located, not imported),
the kill switch / project opt-out, memory folders (and, in ``doctor_stores``, symlinks,
invalid UTF-8, leftover temp files, agent stores against their journals), project memories
withheld from the agent (``doctor_withheld``), pending and failed hook jobs,
and whether Claude Code's auto memory is on (a hint, not a failure).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from kioku.infra import paths
from kioku.install import layout, settings
from kioku.install.layout import Target


def run_checks(project_root: Path | None = None) -> list[dict[str, Any]]:
    root = project_root or paths.find_project_root()
    checks: list[dict[str, Any]] = []

    def add(name: str, ok: bool, detail: str, warn: bool = False) -> None:
        checks.append({"check": name, "ok": ok, "warning": warn, "detail": detail})

    targets = [Target(paths.claude_dir())]
    if (root / ".claude" / "kioku" / "manifest.json").exists():
        targets.append(Target(root / ".claude", root))
    found = False
    for target in targets:
        if not target.manifest.exists():
            continue
        found = True
        manifest = json.loads(target.manifest.read_text(encoding="utf-8"))
        missing = [r for r in manifest.get("files", {}) if not (target.claude_dir / r).exists()]
        add(f"install ({target.scope})", not missing,
            f"{target.claude_dir}: {len(manifest.get('files', {}))} files, Kioku {manifest.get('kioku_version')}"
            + (f"; missing: {', '.join(missing[:5])}" if missing else ""))
        _check_settings(target, add)
    if sum(t.manifest.exists() for t in targets) > 1:
        add("install", True, "Kioku is installed both for the user and in this project: every hook runs "
            "twice here; uninstall one (install.py --uninstall [--project DIR])", warn=True)
    plugin_found, plugin_pending = _check_plugin(add, installer_found=found)
    if not found and not plugin_found:
        add("install", False, f"no Kioku installation found in {paths.claude_dir()} or {root / '.claude'}")
    add("python", sys.version_info >= (3, 11), f"{sys.executable} {sys.version.split()[0]}")
    import importlib.metadata
    import importlib.util

    for module, dist in (("chromadb", "chromadb"), ("yaml", "pyyaml"), ("frontmatter", "python-frontmatter"),
                         ("jinja2", "jinja2")):
        # find_spec, not import: the doctor stays quick and never loads chromadb itself.
        found_spec = importlib.util.find_spec(module) is not None
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "installed" if found_spec else "missing"
        if not found_spec and plugin_pending:
            # the plugin's launcher runs with the system python3 until its environment is ready
            add(f"dependency {module}", True, "missing here; the plugin's environment that provides it "
                "is not ready yet (see the plugin line)", warn=True)
            continue
        add(f"dependency {module}", found_spec, version)
    from kioku.infra.config import ConfigError, load_config
    from kioku.infra.env import kill_switch_set

    try:
        cfg = load_config(root)
        add("config", True, f"main agent {cfg.main_agent!r}; hooks {'DISABLED for this project' if cfg.disabled else 'enabled'}",
            warn=cfg.disabled)
    except ConfigError as exc:
        add("config", False, str(exc))
    if kill_switch_set():
        add("kill switch", True, "KIOKU_DISABLE is set: every hook is a no-op", warn=True)
    for label, folder in (("project memory", paths.project_memory_dir(root)), ("user memory", paths.user_memory_dir())):
        probe = folder if folder.exists() else folder.parent
        while not probe.exists():
            probe = probe.parent
        add(label, os.access(probe, os.W_OK) and probe.is_dir(),
            f"{folder}{'' if folder.exists() else ' (not created yet)'}")
    from kioku.install.doctor_stores import run_store_checks

    run_store_checks(root, [("project memory", paths.project_memory_dir(root)),
                            ("user memory", paths.user_memory_dir())], add)
    from kioku.install.doctor_withheld import check_withheld

    check_withheld(root, add)  # project memories kept from the agent until `kioku trust`
    events = Path.home() / ".cache" / "Microsoft" / "DeveloperTools" / ".onnxruntime"
    if events.is_dir():
        add("onnxruntime usage events", True, f"{events} holds a device id and usage events that onnxruntime "
            "queues for upload; Kioku turns that off, but an older Kioku or another program left it: "
            "delete the folder if you like", warn=True)
    from kioku.infra import jobs

    failed = list(jobs.failed_dir().glob("*.json")) if jobs.failed_dir().is_dir() else []
    add("hook jobs", not failed, f"{len(jobs.pending())} pending, {len(failed)} failed"
        + (" (`kioku worker --retry-failed` runs them again)" if failed else "") + jobs.failed_reasons(failed),
        warn=bool(failed))
    return checks


def _check_settings(target: Target, add) -> None:
    try:
        raw = target.settings.read_bytes()
    except FileNotFoundError:
        add("settings.json", False, f"{target.settings} is missing")
        return
    try:
        data = settings.parse(raw, str(target.settings))
    except settings.SettingsError as exc:
        add("settings.json", False, str(exc))
        return
    want = settings.kioku_groups(target.hook_command)
    hooks = data.get("hooks", {})
    python = target.venv / "bin" / "python"
    runs = os.access(python, os.X_OK)
    if not runs:
        effect = "does nothing" if target.scope == "project" else "does nothing (SessionStart says so)"
        add("hook interpreter", False, f"{python} is missing: Kioku's environment was removed or broken, so "
            f"every hook {effect}; run install.py again to rebuild it (memories and lessons are kept)")
    for event, group in want.items():
        ours = [g for g in hooks.get(event, []) if isinstance(g, dict)
                and any(settings.is_kioku_handler(h, target.marker()) for h in g.get("hooks", []))]
        script = target.kioku_dir / "hooks" / layout.HOOK_LAUNCHER
        ok = ours == [group] and script.exists()
        add(f"hook {event}", ok and runs,
            (f"timeout {group['hooks'][0]['timeout']}s" if runs else "installed, but its interpreter is missing")
            if ok else f"entry missing or different from what install.py writes ({target.settings})")
    if _auto_memory_setting(target, data) is not False:
        add("auto memory", True, "Claude Code's auto memory is on; Kioku's save confirmation tells Claude "
            "not to save twice (install.py --disable-auto-memory turns it off)", warn=True)


def _auto_memory_setting(target: Target, data: dict) -> object:
    """The auto-memory setting Claude Code applies for this install: a project's own value, else
    the user's (Claude Code reads project settings over user settings)."""
    value = data.get(settings.AUTO_MEMORY_KEY)
    if value is None and target.scope == "project":
        try:
            user = settings.parse((paths.claude_dir() / "settings.json").read_bytes(), "user settings.json")
        except (OSError, settings.SettingsError):
            return None
        value = user.get(settings.AUTO_MEMORY_KEY)
    return value


def installed_plugins() -> dict[str, Path]:
    """Kioku plugin installations Claude Code records: ``kioku@<marketplace>`` -> its data folder."""
    plugins_dir = paths.claude_dir() / "plugins"
    try:
        data = json.loads((plugins_dir / "installed_plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entries = data.get("plugins", {}) if isinstance(data, dict) else {}
    return {key: plugins_dir / "data" / key.replace("@", "-", 1)
            for key in entries if isinstance(key, str) and key.startswith("kioku@")}


def _check_plugin(add, installer_found: bool) -> tuple[bool, bool]:
    """The plugin's environment (ready, being prepared, failed) and a second install.py copy;
    returns (a plugin is installed, one's environment is still to be prepared)."""
    from kioku.install import plugin_env

    plugins = installed_plugins()
    pending = False
    for key, data_dir in plugins.items():
        log = data_dir / plugin_env.PREPARE_LOG
        failed = data_dir / plugin_env.FAILED_MARKER
        if plugin_env.is_ready(str(data_dir)):
            add(f"plugin {key}", True, f"environment ready (Chroma, the model): {plugin_env.venv_python(str(data_dir))}")
        elif plugin_env.prepare_running(str(data_dir)):
            pending = True
            add(f"plugin {key}", True, f"environment being prepared in the background (log: {log}); "
                "memories are saved and recalled meanwhile", warn=True)
        elif failed.exists():
            try:
                error = json.loads(failed.read_text(encoding="utf-8")).get("error", "")
            except (OSError, ValueError):
                error = ""
            add(f"plugin {key}", False, f"preparing the environment failed (log: {log}): {error[-300:]}; "
                f"it is retried an hour later, or now after deleting {failed}")
        else:
            pending = True
            add(f"plugin {key}", True, "environment not prepared yet: the next Claude Code session starts it",
                warn=True)
    if plugins and installer_found:
        add("install", True, "Kioku is installed both as a Claude Code plugin and with install.py: the plugin's "
            "hooks stand aside so nothing runs twice; remove one (`claude plugin uninstall kioku@...` or "
            "`python3 install.py --uninstall`)", warn=True)
    return bool(plugins), pending
