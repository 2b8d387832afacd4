"""install.py end to end (real subprocess, real files; the venv uses the dev reuse option).

The default isolated venv (pip) is exercised by tests/e2e, which installs for real.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRE = (b'{\n  "model": "opus",\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"type": "command", '
       b'"command": "notify-send done", "timeout": 5}]}\n    ],\n    "PreToolUse": [{"matcher": "Bash", '
       b'"hooks": [{"type": "command", "command": "guard.sh"}]}]\n  }\n}\n')


def install(*args: str, source: Path = REPO, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(source / "install.py"), "--reuse-site-packages", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(root.rglob("*")) if not p.is_symlink()} if root.exists() else {}


@pytest.fixture
def claude(isolated_home: Path) -> Path:
    return isolated_home / ".claude"


def test_install_twice_then_uninstall_restores_settings_byte_for_byte(tmp_path, claude, project):
    # A frozen copy of the checkout: "nothing to change" must not depend on concurrent edits.
    src = _copy_checkout(tmp_path / "checkout")
    claude.mkdir()
    (claude / "settings.json").write_bytes(PRE)
    os.chmod(claude / "settings.json", 0o640)
    first = install(source=src)
    assert first.returncode == 0, first.stderr
    data = json.loads((claude / "settings.json").read_text())
    assert data["model"] == "opus" and data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "guard.sh"
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert data["hooks"]["Stop"][1]["hooks"][0]["command"].endswith(f"{claude / 'kioku' / 'hooks' / 'kioku_hook.py'} Stop")
    assert stat.S_IMODE((claude / "settings.json").stat().st_mode) == 0o640
    kioku = claude / "kioku" / "bin" / "kioku"
    assert os.access(kioku, os.X_OK)
    assert subprocess.run([str(kioku), "--version"], capture_output=True, text=True).stdout.startswith("kioku ")
    manifest = json.loads((claude / "kioku" / "manifest.json").read_text())
    for rel in manifest["files"]:
        assert (claude / rel).is_file()
    assert [rel for rel in manifest["files"] if rel.startswith("kioku/hooks/")] == ["kioku/hooks/kioku_hook.py"]

    before = (claude / "settings.json").stat().st_mtime_ns, snapshot(claude / "kioku")
    second = install(source=src)
    assert second.returncode == 0 and "nothing to change" in second.stdout
    assert ((claude / "settings.json").stat().st_mtime_ns, snapshot(claude / "kioku")) == before

    gone = install("--uninstall", source=src)
    assert gone.returncode == 0, gone.stderr
    assert (claude / "settings.json").read_bytes() == PRE
    assert stat.S_IMODE((claude / "settings.json").stat().st_mode) == 0o640
    assert not (claude / "kioku").exists() and sorted(p.name for p in claude.iterdir()) == ["settings.json"]
    assert "nothing to remove" in install("--uninstall").stdout


def test_uninstall_restores_settings_with_an_empty_event_list_byte_for_byte(claude, project):
    raw = b'{\n  "model": "opus",\n  "hooks": {"Stop": [], "PreToolUse": [{"matcher": "Bash", "hooks": []}]}\n}\n'
    claude.mkdir()
    (claude / "settings.json").write_bytes(raw)
    assert install().returncode == 0
    res = install("--uninstall")
    assert res.returncode == 0, res.stderr
    assert (claude / "settings.json").read_bytes() == raw


def test_settings_created_by_kioku_are_removed_on_uninstall(claude, project):
    assert install().returncode == 0
    assert (claude / "settings.json").exists()
    assert install("--uninstall").returncode == 0
    assert not (claude / "settings.json").exists()


def test_dry_run_prints_changes_and_changes_nothing(claude, project):
    claude.mkdir()
    (claude / "settings.json").write_bytes(PRE)
    before = snapshot(claude)
    dry = install("--dry-run")
    assert dry.returncode == 0 and "Dry run: nothing was changed." in dry.stdout
    assert "create" in dry.stdout and "+" in dry.stdout and "kioku_hook.py UserPromptSubmit" in dry.stdout
    assert snapshot(claude) == before
    assert install().returncode == 0
    installed = snapshot(claude)
    dry = install("--uninstall", "--dry-run")
    assert dry.returncode == 0 and "delete" in dry.stdout and snapshot(claude) == installed


def test_malformed_settings_are_refused_untouched(claude, project):
    claude.mkdir()
    bad = b'{"model": "opus",}\n'
    (claude / "settings.json").write_bytes(bad)
    res = install()
    assert res.returncode == 1 and "not valid JSON" in res.stderr and "did not change it" in res.stderr
    assert (claude / "settings.json").read_bytes() == bad and not (claude / "kioku").exists()


def test_disable_auto_memory_is_reverted_even_after_user_edits(claude, project):
    claude.mkdir()
    (claude / "settings.json").write_text('{"autoMemoryEnabled": true}\n')
    assert install("--disable-auto-memory").returncode == 0
    assert json.loads((claude / "settings.json").read_text())["autoMemoryEnabled"] is False
    data = json.loads((claude / "settings.json").read_text())
    data["theme"] = "dark"  # the user edits the file after installing
    (claude / "settings.json").write_text(json.dumps(data, indent=2) + "\n")
    assert install("--uninstall").returncode == 0
    assert json.loads((claude / "settings.json").read_text()) == {"autoMemoryEnabled": True, "theme": "dark"}


def test_project_install_uses_project_dir_variable(tmp_path, project, claude):
    res = install("--project", str(project))
    assert res.returncode == 0, res.stderr
    assert "runs twice" not in res.stderr
    data = json.loads((project / ".claude" / "settings.json").read_text())
    cmd = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert '"$CLAUDE_PROJECT_DIR"/.claude/kioku/venv/bin/python' in cmd and str(project) not in cmd
    assert (project / ".claude" / "kioku" / ".gitignore").read_text().strip().endswith("*")
    assert not claude.exists()  # the user folder is not touched
    payload = json.dumps({"prompt": "remember that the staging db is on port 5433", "cwd": str(project)})
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "KIOKU_NO_WORKER": "1"}
    ran = subprocess.run(["sh", "-c", cmd], input=payload, text=True, capture_output=True, env=env, cwd=project)
    assert ran.returncode == 0 and "Saved to memory" in ran.stdout, ran.stderr
    # a teammate's clone has the committed settings.json but not the per-machine venv
    clone = tmp_path / "clone"
    shutil.copytree(project, clone, ignore=shutil.ignore_patterns("kioku"))
    ran = subprocess.run(["sh", "-c", cmd], input=payload, text=True, capture_output=True,
                         env={**env, "CLAUDE_PROJECT_DIR": str(clone)}, cwd=clone)
    assert ran.returncode == 0 and ran.stdout == "" and ran.stderr == "", ran.stderr
    assert install("--project", str(project), "--uninstall").returncode == 0
    assert not (project / ".claude").exists()
    assert "5433" in (project / ".agents" / "memory" / "MEMORY.md").read_text()  # memories kept


def _copy_checkout(dst: Path) -> Path:
    dst.mkdir(parents=True)
    for name in ("install.py", "pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, dst / name)
    for name in ("src", "hooks", "skills"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, dst / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return dst


def test_upgrade_replaces_only_changed_files_and_checkout_can_be_deleted(tmp_path, claude, project):
    src = _copy_checkout(tmp_path / "checkout")
    assert install(source=src).returncode == 0
    (src / "hooks" / "kioku_hook.py").write_text((src / "hooks" / "kioku_hook.py").read_text() + "# upgraded\n")
    extra = src / "src" / "kioku" / "hooks" / "_obsolete_probe.py"
    extra.write_text("X = 1\n")
    assert install(source=src).returncode == 0
    extra.unlink()
    res = install(source=src)
    assert res.returncode == 0 and res.stdout.count("delete") == 1 and "_obsolete_probe.py" in res.stdout
    upgraded = install(source=src)
    assert "nothing to change" in upgraded.stdout
    assert (claude / "kioku" / "hooks" / "kioku_hook.py").read_text().endswith("# upgraded\n")
    shutil.rmtree(src)  # the checkout is gone: Kioku keeps working from its own copy
    cmd = json.loads((claude / "settings.json").read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    env = {**os.environ, "KIOKU_NO_WORKER": "1"}
    payload = json.dumps({"prompt": "remember that releases happen on Tuesdays", "cwd": str(project)})
    ran = subprocess.run(["sh", "-c", cmd], input=payload, text=True, capture_output=True, env=env, cwd=project)
    assert "Saved to memory" in ran.stdout, ran.stderr
    recall = subprocess.run([str(claude / "kioku" / "bin" / "kioku"), "recall"], capture_output=True, text=True,
                            cwd=project, env=env)
    assert recall.returncode == 0 and "Tuesdays" in recall.stdout, recall.stderr


def test_purge_deletes_memories_plain_uninstall_keeps_them(claude, project, isolated_home):
    assert install().returncode == 0
    kioku = claude / "kioku" / "bin" / "kioku"
    saved = subprocess.run([str(kioku), "remember", "I prefer short commit messages", "--type", "user"],
                           capture_output=True, text=True, cwd=project)
    assert saved.returncode == 0, saved.stderr
    user_mem = isolated_home / ".agents" / "memory"
    assert user_mem.exists()
    rollback = claude / "kioku" / "archive" / "main" / "rollback-2026-01-01.jsonl"  # lesson text a rollback removed
    rollback.parent.mkdir(parents=True)
    rollback.write_text('{"document": "a lesson"}\n')
    res = install("--uninstall")
    assert res.returncode == 0 and user_mem.exists() and "--purge" in res.stdout and "archive" in res.stdout
    assert install().returncode == 0
    assert install("--uninstall", "--purge").returncode == 0
    assert not user_mem.exists() and not (claude / "kioku").exists()
    assert not user_mem.parent.exists()  # the .agents folder it left empty
    (user_mem.parent / "other-tool").mkdir(parents=True)
    assert install().returncode == 0
    assert subprocess.run([str(kioku), "remember", "I prefer short commit messages", "--type", "user"],
                          capture_output=True, text=True, cwd=project).returncode == 0
    assert install("--uninstall", "--purge").returncode == 0
    assert not user_mem.exists() and (user_mem.parent / "other-tool").is_dir()  # a .agents still in use stays


def test_purge_deletes_the_agent_store_and_its_journal_beside_it(claude, project):
    assert install().returncode == 0
    kioku = claude / "kioku" / "bin" / "kioku"
    learned = subprocess.run([str(kioku), "lessons", "learn", "--agent", "main", "Run the linter before committing",
                              "--category", "code_quality", "--confidence", "0.9", "--scope", "global"],
                             capture_output=True, text=True, cwd=project)
    assert learned.returncode == 0, learned.stderr
    store, journal = claude / "chroma_data", claude / "chroma_data.kioku-journal"
    assert store.is_dir() and journal.is_dir()
    res = install("--uninstall")
    assert res.returncode == 0 and str(journal) in res.stdout and journal.is_dir()  # listed as kept
    assert install().returncode == 0
    # copies Kioku set aside itself go with a purge; a folder it did not make stays
    aside = [claude / "chroma_data.broken-1700000000", claude / "chroma_data.kioku-journal.legacy-1700000000"]
    for folder in aside:
        folder.mkdir()
        (folder / "data").write_text("old copy")
    foreign = claude / "chroma_data_mine"
    foreign.mkdir()
    res = install("--uninstall", "--purge")
    assert res.returncode == 0 and f"purge   {journal}" in res.stdout, res.stdout
    assert all(f"purge   {folder}" in res.stdout for folder in aside), res.stdout
    assert not store.exists() and not journal.exists() and not any(folder.exists() for folder in aside)
    assert foreign.is_dir()


def test_purge_needs_uninstall(claude):
    assert install("--purge").returncode == 2


def test_foreign_skill_folder_is_not_overwritten(claude, project):
    mine = claude / "skills" / "memory-system" / "SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own skill\n")
    res = install()
    assert res.returncode == 1 and "not installed by Kioku" in res.stderr
    assert mine.read_text() == "my own skill\n" and not (claude / "kioku").exists()


def test_uninstall_without_manifest_still_removes_kioku_entries(claude, project):
    claude.mkdir()
    (claude / "settings.json").write_bytes(PRE)
    assert install().returncode == 0
    (claude / "kioku" / "manifest.json").unlink()  # e.g. deleted by hand
    res = install("--uninstall")
    assert res.returncode == 0, res.stderr
    data = json.loads((claude / "settings.json").read_text())
    assert data == json.loads(PRE) and not (claude / "kioku" / "venv").exists()


def test_a_project_folder_that_does_not_exist_is_an_error_and_nothing_is_installed(tmp_path):
    out = install("--project", "proj", cwd=tmp_path)  # relative and mistyped: tmp_path/proj is not there
    assert out.returncode == 2 and "no such folder" in out.stderr
    assert not (tmp_path / "proj").exists()


def test_a_project_install_into_the_user_claude_folder_is_refused(claude, isolated_home):
    claude.mkdir(exist_ok=True)
    (claude / "settings.json").write_bytes(PRE)
    before = snapshot(isolated_home)
    out = install("--project", str(isolated_home))
    assert out.returncode == 2 and "is your user Claude folder" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert snapshot(isolated_home) == before


def test_purge_removes_the_state_kioku_home_moved(claude, project, isolated_home, monkeypatch):
    moved = isolated_home / "kh"
    monkeypatch.setenv("KIOKU_HOME", str(moved))
    assert install().returncode == 0
    (moved / "state").mkdir(parents=True)
    (moved / "state" / "queue.json").write_text("{}")
    (moved / "logs").mkdir()
    res = install("--uninstall", "--purge")
    assert res.returncode == 0 and f"purge   {moved / 'state'}" in res.stdout, res.stdout
    assert not (moved / "state").exists() and not (moved / "logs").exists()


def test_a_user_install_is_seen_by_the_plugin_whatever_kioku_home_says(claude, isolated_home, monkeypatch):
    from kioku.install.plugin_env import installer_manifests

    monkeypatch.setenv("KIOKU_HOME", str(isolated_home / "kh"))
    assert install().returncode == 0
    assert installer_manifests(None) == [str(claude / "kioku" / "manifest.json")]


def test_an_edited_skill_file_is_kept_on_uninstall_and_upgrade(tmp_path, claude, project):
    src = _copy_checkout(tmp_path / "checkout")
    assert install(source=src).returncode == 0
    skill = claude / "skills" / "memory-system" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own note.\n")
    (src / "skills" / "memory-system" / "SKILL.md").write_text(
        (src / "skills" / "memory-system" / "SKILL.md").read_text() + "\nupgraded\n")
    res = install(source=src)
    assert res.returncode == 0 and "kept your edited" in res.stdout
    [kept] = skill.parent.glob("SKILL.md.edited-*")
    assert "My own note." in kept.read_text() and skill.read_text().endswith("upgraded\n")
    skill.write_text(skill.read_text() + "\nanother note\n")
    res = install("--uninstall", source=src)
    assert res.returncode == 0 and "edited since install" in res.stdout
    assert skill.exists() and "another note" in skill.read_text()
    # installing again takes the folder back, keeping the edited file beside the new one
    again = install(source=src)
    assert again.returncode == 0, again.stdout + again.stderr
    assert any("another note" in p.read_text() for p in skill.parent.glob("SKILL.md.edited-*"))


def test_reinstall_after_uninstall_keeps_the_copy_an_upgrade_set_aside(tmp_path, claude, project):
    src = _copy_checkout(tmp_path / "checkout")
    assert install(source=src).returncode == 0
    skill = claude / "skills" / "agent-memory" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own note.\n")
    assert "kept your edited" in install(source=src).stdout  # back to Kioku's text, the edit set aside
    assert install("--uninstall", source=src).returncode == 0
    [kept] = skill.parent.glob("SKILL.md.edited-*")
    again = install(source=src)
    assert again.returncode == 0, again.stdout + again.stderr
    assert kept.exists() and "My own note." in kept.read_text() and skill.exists()


def test_a_teammate_installs_into_a_clone_of_a_committed_project_install(tmp_path, claude):
    alice = tmp_path / "alice"
    alice.mkdir()
    subprocess.run(["git", "init", "-q", str(alice)], check=True)
    assert install("--project", str(alice)).returncode == 0
    subprocess.run(["git", "-C", str(alice), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(alice), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "kioku"],
                   check=True)
    bob = tmp_path / "bob"
    subprocess.run(["git", "clone", "-q", str(alice), str(bob)], check=True)
    assert (bob / ".claude" / "skills" / "memory-system" / "SKILL.md").exists()
    assert not (bob / ".claude" / "kioku").exists()  # per machine: git-ignored
    res = install("--project", str(bob))
    assert res.returncode == 0, res.stdout + res.stderr
    assert (bob / ".claude" / "kioku" / "venv" / "bin" / "python").exists()
    assert subprocess.run(["git", "-C", str(bob), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""  # nothing committed changes


def test_a_failed_environment_rebuild_keeps_the_working_one(tmp_path, claude, project):
    assert install().returncode == 0
    kioku = claude / "kioku" / "bin" / "kioku"
    assert subprocess.run([str(kioku), "--version"], capture_output=True, text=True).returncode == 0
    # another interpreter name for the same python is the same environment: nothing to rebuild
    same = install("--python", str(Path(sys.executable).parent / Path(sys.executable).name))
    assert same.returncode == 0
    # a rebuild that fails (here: an interpreter whose venv module fails) leaves the installed
    # environment working
    broken = tmp_path / "python-without-venv"
    broken.write_text(f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "venv" ]; then echo "no venv" >&2; exit 1; fi\n'
                      f'exec "{sys.executable}" "$@"\n')
    broken.chmod(0o755)
    failed = install("--python", str(broken))
    assert failed.returncode != 0 and "no venv" in failed.stdout + failed.stderr
    assert subprocess.run([str(kioku), "--version"], capture_output=True, text=True).returncode == 0
    assert not (claude / "kioku" / "venv.previous").exists()


def test_a_project_install_beside_a_user_install_warns_that_hooks_run_twice(claude, project):
    assert install().returncode == 0
    res = install("--project", str(project))
    assert res.returncode == 0 and "every hook runs twice" in res.stderr


def test_uninstall_with_an_unwritable_settings_folder_is_one_line_and_changes_nothing(claude, project, monkeypatch,
                                                                                     capsys):
    from kioku.install import installer

    claude.mkdir()
    (claude / "settings.json").write_bytes(PRE)
    assert install().returncode == 0
    before = snapshot(claude)
    real_access = os.access
    # as root every folder is writable: stand in for a user whose Claude folder is read-only
    monkeypatch.setattr(installer.os, "access", lambda p, mode: False if Path(p) == claude else real_access(p, mode))
    assert installer.main(["--uninstall"], source_root=REPO) == 1
    err = capsys.readouterr().err
    assert "refusing to uninstall" in err and "Traceback" not in err
    assert snapshot(claude) == before


def test_the_same_claude_folder_by_another_path_gets_no_second_set_of_hooks(tmp_path, claude, project):
    claude.mkdir()
    link = tmp_path / "link"
    link.symlink_to(claude.parent, target_is_directory=True)
    assert install().returncode == 0
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(link / ".claude"))
    again = subprocess.run([sys.executable, str(REPO / "install.py"), "--reuse-site-packages"], env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    hooks = json.loads((claude / "settings.json").read_text())["hooks"]
    assert {event: len(groups) for event, groups in hooks.items()} == dict.fromkeys(
        ("SessionStart", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop"), 1)


def test_purge_leaves_no_kioku_folder_behind_after_the_plugin_was_used(claude, project):
    # the plugin records where its environment is in Kioku's home; it is Kioku's state too
    claude.mkdir()
    assert install().returncode == 0
    (claude / "kioku" / "plugin-env.json").write_text('{"python": "/gone/venv/bin/python"}\n')
    res = install("--uninstall", "--purge")
    assert res.returncode == 0, res.stderr
    assert not (claude / "kioku").exists(), sorted(p.name for p in (claude / "kioku").iterdir())
