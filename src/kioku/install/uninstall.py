"""``install.py --uninstall [--purge]``: remove exactly the files the manifest lists (keeping edited
ones), restore settings.json byte for byte when Kioku's entries were the only change, and prune
the folders Kioku created."""

from __future__ import annotations

import argparse
import base64
import contextlib
import shutil
from pathlib import Path
from typing import Any

from kioku.infra import paths
from kioku.infra.errors import KiokuError
from kioku.install import layout, mcp_register, settings
from kioku.install.files import (
    KEPT_MARKER, load_manifest, print_diff, read_capped, refuse_unwritable_settings, write_preserving_mode,
    write_private,
)
from kioku.install.layout import Target


# --------------------------------------------------------------------------- uninstall

def uninstall(target: Target, args: argparse.Namespace) -> int:
    raw = read_capped(target.settings)
    data = settings.parse(raw, str(target.settings)) if raw is not None else {}
    manifest = load_manifest(target)
    actions: list[str] = []
    files = sorted(manifest.get("files", {})) if manifest else []
    venv_files = [r for r in files if r.startswith("kioku/venv/")]
    plain_files = [r for r in files if r not in venv_files]
    recorded = manifest.get("files", {}) if manifest else {}
    # a skill file the user edited since Kioku wrote it is theirs now: it stays
    edited = [r for r in plain_files if r.startswith("skills/") and is_edited(target.claude_dir / r, recorded.get(r))]
    plain_files = [r for r in plain_files if r not in edited]
    actions += [f"delete  {target.claude_dir / r}" for r in plain_files if (target.claude_dir / r).exists()]
    actions += [f"keep    {target.claude_dir / r} (edited since install)" for r in edited]
    if target.venv.exists():
        actions.append(f"delete  {target.venv}/ (Kioku's environment)")
    new_raw = _restored_settings(raw, data, manifest, target)
    if new_raw != raw:
        actions.append(f"{'remove ' if new_raw is None else 'restore'} {target.settings}")
    mcp = mcp_register.restored(manifest.get("mcp") if manifest else None)
    if mcp:
        actions.append(f"{'remove ' if mcp[1] is None else 'restore'} {mcp[0]} (the kioku MCP server's entry)")
    purge = _purge_targets(target) if args.purge else []
    actions += [f"purge   {p}" for p in purge]
    if manifest:
        actions.append(f"delete  {target.manifest}")
    if not actions:
        print(f"Kioku is not installed in {target.claude_dir}: nothing to remove.")
        return 0
    print(("Would make" if args.dry_run else "Uninstalling Kioku:") + f" {len(actions)} change(s):")
    for line in actions:
        print(f"  {line}")
    if new_raw != raw and new_raw is not None:
        print_diff(raw, new_raw, str(target.settings))
    if args.dry_run:
        print("Dry run: nothing was changed.")
        return 0
    if new_raw != raw:
        refuse_unwritable_settings(target, "uninstall")
        if new_raw is None and not target.settings.is_symlink():
            target.settings.unlink()
        elif new_raw is None:
            write_preserving_mode(target.settings, b"{}\n")  # the user's link stays
        else:
            write_preserving_mode(target.settings, new_raw)
    if mcp:
        mcp_register.write(*mcp)
    for rel in plain_files:
        with contextlib.suppress(FileNotFoundError):
            (target.claude_dir / rel).unlink()
    for skill in {r.split("/")[1] for r in edited}:
        # marks the folder as Kioku's, so a later install takes it back (keeping the edits)
        write_private(target.claude_dir / "skills" / skill / KEPT_MARKER,
                       "".join(f"{r}\n" for r in edited if r.split("/")[1] == skill).encode(), 0o600)
    shutil.rmtree(target.venv, ignore_errors=True)
    shutil.rmtree(target.venv.with_name("venv.previous"), ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        target.manifest.unlink()
    for p in purge:
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    if purge:
        _prune_memory_parents(target)
    _prune_dirs(target, plain_files, manifest.get("created_dirs", []) if manifest else [])
    kept = [] if args.purge else [p for p in _purge_targets(target) if p.exists()]
    print(f"Kioku removed from {target.claude_dir}.")
    if kept:
        print("Kept (delete with --uninstall --purge): " + ", ".join(str(p) for p in kept))
    return 0


def is_edited(path: Path, recorded_sha: str | None) -> bool:
    """Whether the installed file ``path`` differs from what Kioku recorded writing."""
    try:
        return bool(recorded_sha) and path.is_file() and layout.sha256(path.read_bytes()) != recorded_sha
    except OSError:
        return False


def _restored_settings(raw: bytes | None, data: dict[str, Any], manifest: dict[str, Any],
                       target: Target) -> bytes | None:
    if raw is None:
        return None
    info = manifest.get("settings", {}) if manifest else {}
    if info.get("baseline_b64") is not None and layout.sha256(raw) == info.get("written_sha256"):
        return base64.b64decode(info["baseline_b64"]) if info.get("existed") else None
    stripped = settings.strip_kioku(data, target.marker())
    auto = manifest.get("auto_memory", {}) if manifest else {}
    if auto.get("set_by_kioku") and stripped.get(settings.AUTO_MEMORY_KEY) is False:
        if auto.get("had_key"):
            stripped[settings.AUTO_MEMORY_KEY] = auto.get("previous")
        else:
            stripped.pop(settings.AUTO_MEMORY_KEY, None)
    if stripped.get("hooks") == {} and "hooks" in data and not _had_hooks_key(info):
        stripped.pop("hooks")
    if stripped == data:
        return raw
    if not stripped and info and not info.get("existed", True):
        return None
    return settings.dumps(stripped, raw)


def _had_hooks_key(info: dict[str, Any]) -> bool:
    b64 = info.get("baseline_b64")
    if not b64:
        return False
    with contextlib.suppress(ValueError, KiokuError):
        return "hooks" in settings.parse(base64.b64decode(b64), "baseline")
    return False


def _purge_targets(target: Target) -> list[Path]:
    from kioku.lessons.store.journal import journal_dir

    if target.project:
        chroma = target.project / ".claude" / "chroma_data"
        found = [target.project / ".agents" / "memory", chroma]
    else:
        chroma = target.claude_dir / "chroma_data"
        found = [paths.user_memory_dir(), chroma]
    # the agent-memory journal sits beside the Chroma folder (beside its target when chroma_data
    # is a link): it must outlive a deleted store
    journal = journal_dir(chroma)
    found.append(journal)
    # copies Kioku set aside itself: a damaged store moved out before its rebuild, an old
    # in-folder journal kept after it was merged
    found += sorted(chroma.parent.glob(f"{chroma.name}.broken-*"))
    found += sorted(chroma.parent.glob(f"{chroma.name}.replaced-*"))
    found += sorted(journal.parent.glob(f"{journal.name}.legacy-*"))
    # plugin-env.json: where the Claude Code plugin's environment was (kioku.install.plugin_env)
    state = ("state", "logs", "config.toml", "archive", "plugin-env.json")
    found += [target.kioku_dir / name for name in state]
    if target.project is None and paths.kioku_home() != target.kioku_dir:
        # KIOKU_HOME moved the state of this (user) installation elsewhere
        found += [paths.kioku_home() / name for name in state]
    return [p for p in found if p.exists()]


def _prune_memory_parents(target: Target) -> None:
    """Remove the ``.agents`` folder a purge left empty (one holding anything else stays)."""
    memory = (target.project / ".agents" / "memory") if target.project else paths.user_memory_dir()
    with contextlib.suppress(OSError):
        memory.parent.rmdir()


def _prune_dirs(target: Target, files: list[str], created: list[str]) -> None:
    """Remove folders left empty by the uninstall (never ones that still hold anything)."""
    dirs = {(target.claude_dir / r).parent for r in files}
    dirs |= {target.kioku_dir / "hooks", target.kioku_dir / "bin"}
    for rel in created:
        if rel != ".":
            dirs.add(target.claude_dir / rel)
    for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        while d != target.claude_dir and target.claude_dir in d.parents:
            try:
                d.rmdir()
            except OSError:
                break
            d = d.parent
    if "." in created:
        with contextlib.suppress(OSError):
            target.claude_dir.rmdir()
