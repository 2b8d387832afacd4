"""``python3 install.py``: install, upgrade or uninstall Kioku for Claude Code.

Contract (see ``--help``):
- Plans every change first (files to create/update/delete, the venv, the settings.json
  diff) and prints it; ``--dry-run`` stops there. Nothing is written when nothing would
  change ("nothing to change"), so a second install is a no-op.
- A malformed settings.json is refused before anything is written (exit 1).
- ``kioku/manifest.json`` lists every file written (with its hash) and the settings.json
  baseline (its exact bytes without Kioku), so ``--uninstall`` removes exactly those files
  and restores settings.json byte for byte when Kioku's entries were the only change since;
  otherwise it removes just Kioku's entries. Memories, Chroma data and runtime state are
  kept unless ``--purge``.
- The ``kioku mcp`` server is registered where Claude Code reads MCP servers and taken out
  again exactly (kioku.install.mcp_register).
- All writes are atomic; the whole run holds an exclusive lock on the Claude folder.

The uninstall is :mod:`kioku.install.uninstall`; file handling and the lock, :mod:`kioku.install.files`.
"""

from __future__ import annotations

import argparse
import base64
import compileall
import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Sequence

from kioku import __version__
from kioku.infra import clock, paths
from kioku.infra.errors import KiokuError
from kioku.install import layout, mcp_register, settings, venv
from kioku.install.files import (
    KEPT_MARKER, load_manifest, locked, print_diff, read_capped, refuse_unwritable_settings,
    write_preserving_mode, write_private,
)
from kioku.install.layout import Target
from kioku.install.uninstall import is_edited, uninstall


EXEC_FILES = ("kioku/bin/kioku",)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="install.py", description=(
        "Install Kioku (persistent memory for Claude Code) into ${CLAUDE_CONFIG_DIR:-~/.claude}, "
        "or into DIR/.claude with --project."))
    ap.add_argument("--project", metavar="DIR", help="install into DIR/.claude instead of the user folder")
    ap.add_argument("--dry-run", action="store_true", help="print every change without making it")
    ap.add_argument("--uninstall", action="store_true", help="remove exactly what Kioku installed")
    ap.add_argument("--purge", action="store_true",
                    help="with --uninstall: also delete memories, Chroma data and Kioku's state")
    ap.add_argument("--disable-auto-memory", action="store_true",
                    help='set "autoMemoryEnabled": false so Claude Code\'s built-in auto memory does '
                         "not keep a second copy of what Kioku saves (reverted on uninstall)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter used to create Kioku's venv (Python >= 3.11; default: this one)")
    ap.add_argument("--wheelhouse", default=os.environ.get("KIOKU_WHEELHOUSE"),
                    help="extra folder of wheels for pip (--find-links); env KIOKU_WHEELHOUSE")
    ap.add_argument("--offline", action="store_true", help="pip uses only --wheelhouse (--no-index)")
    ap.add_argument("--reuse-site-packages", action="store_true",
                    help="DEVELOPMENT/TESTS ONLY: instead of pip-installing the dependencies, let the venv "
                         "see this interpreter's site-packages (fast, not isolated)")
    return ap


def main(argv: Sequence[str] | None = None, source_root: Path | None = None) -> int:
    args = build_parser().parse_args(argv)
    root = source_root or Path(__file__).resolve().parents[3]
    if args.purge and not args.uninstall:
        print("install.py: error: --purge only goes with --uninstall", file=sys.stderr)
        return 2
    if args.project and not Path(args.project).expanduser().is_dir():
        # a mistyped or relative DIR would otherwise become a whole new install somewhere else
        print(f"install.py: error: --project {args.project}: no such folder (give the project's folder)",
              file=sys.stderr)
        return 2
    target = Target(Path(args.project).expanduser().resolve() / ".claude", Path(args.project).expanduser().resolve()) \
        if args.project else Target(paths.claude_dir().expanduser().absolute())
    if target.project and not args.uninstall and _same_folder(target.claude_dir, paths.claude_dir().expanduser()):
        # project hooks in the user's settings would run in every session, and the project's memory
        # folder would be the user-wide one
        print(f"install.py: error: --project {args.project}: its .claude is your user Claude folder;"
              " run install.py without --project to install for your user", file=sys.stderr)
        return 2
    args.claude_dir_existed = target.claude_dir.exists()
    try:
        with locked(target.claude_dir, create=not args.dry_run and not args.uninstall):
            if args.uninstall:
                return uninstall(target, args)
            return install(target, args, root)
    except KiokuError as exc:
        print(f"install.py: error: {exc}", file=sys.stderr)
        return 1


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


# --------------------------------------------------------------------------- install

def install(target: Target, args: argparse.Namespace, root: Path) -> int:
    if not (root / "src" / "kioku" / "__init__.py").is_file():
        raise KiokuError(f"{root} is not a Kioku source checkout (no src/kioku)")
    raw = read_capped(target.settings)
    data = settings.parse(raw, str(target.settings))  # refuse malformed before any change
    old = load_manifest(target)
    files = layout.source_files(root)
    files["kioku/bin/kioku"] = layout.launcher_text(target).encode()
    if target.project:
        files["kioku/.gitignore"] = b"# Kioku's installed files and venv are per machine; do not commit.\n*\n"
    for skill in layout.SKILLS:
        if not any(k.startswith(f"skills/{skill}/") for k in files):
            print(f"warning: skills/{skill} is missing from the checkout; not installed", file=sys.stderr)
    adopted = _refuse_foreign_skills(target, files, old, settings.has_kioku(data, target.marker()))

    deps = venv.runtime_deps(root)
    stamp_ok = venv.stamps_match(venv.current_stamp(target.venv),
                                 venv.wanted_stamp(deps, args.python, args.reuse_site_packages))
    pkg = layout.package_files(root)
    site_rel = _site_rel(target, args.python)
    pkg_files = {f"kioku/venv/{site_rel}/{k}": v for k, v in pkg.items()}
    all_files = {**files, **pkg_files}

    actions: list[str] = []
    for rel, content in all_files.items():
        path = target.claude_dir / rel
        if not path.exists():
            actions.append(f"create  {path}")
        elif path.read_bytes() != content:
            actions.append(f"update  {path}")
    stale = sorted(set(old.get("files", {})) - set(all_files)) if old else []
    actions += [f"delete  {target.claude_dir / rel}" for rel in stale]
    if not stamp_ok:
        how = ("reusing this interpreter's site-packages (dev option)" if args.reuse_site_packages
               else f"pip install {' '.join(deps)}")
        actions.insert(0, f"venv    {target.venv} ({how})")

    new_data = settings.merge(data, settings.kioku_groups(target.hook_command), target.marker())
    auto = dict(old.get("auto_memory", {})) if old else {}
    if args.disable_auto_memory and new_data.get(settings.AUTO_MEMORY_KEY) is not False:
        auto = {"set_by_kioku": True, "had_key": settings.AUTO_MEMORY_KEY in data,
                "previous": data.get(settings.AUTO_MEMORY_KEY)}
        new_data = {**new_data, settings.AUTO_MEMORY_KEY: False}
    new_raw = raw if new_data == data and raw is not None else settings.dumps(new_data, raw)
    settings_changes = new_raw != raw
    if settings_changes:
        actions.append(f"merge   {target.settings}")
        # refused now, before any file is written, rather than after the files are in place
        # without a manifest (which a later install would then take for someone else's)
        refuse_unwritable_settings(target, "install")
    mcp = mcp_register.plan(target, old.get("mcp") if old else None)
    if mcp.warning:
        print(f"install.py: warning: {mcp.warning}", file=sys.stderr)
    if mcp.new_raw is not None:
        actions.append(f"mcp     {mcp.path}: {mcp_register.describe(target)}")

    if not actions:
        print(f"Kioku {__version__} is already installed in {target.claude_dir}: nothing to change.")
        return 0
    print(("Would make" if args.dry_run else "Installing Kioku: ") + f" {len(actions)} change(s) in {target.claude_dir}:")
    for line in actions:
        print(f"  {line}")
    if settings_changes:
        print_diff(raw, new_raw, str(target.settings))
    if args.dry_run:
        print("Dry run: nothing was changed.")
        return 0

    created_dirs = list(old.get("created_dirs", [])) if old else []
    if not args.claude_dir_existed and "." not in created_dirs:
        created_dirs.append(".")  # the Claude folder itself: removed again if left empty
    for d in (target.kioku_dir, target.claude_dir / "skills"):
        if not d.exists() and str(d.relative_to(target.claude_dir)) not in created_dirs:
            created_dirs.append(str(d.relative_to(target.claude_dir)))
    if not stamp_ok:
        # the working environment waits beside the new one until that one is complete: a failed
        # pip install must not leave an upgrade without any environment
        previous = target.venv.with_name("venv.previous")
        if previous.exists() and venv.current_stamp(target.venv) is None:
            # an earlier install was killed while building: the kept environment is the good one
            shutil.rmtree(target.venv, ignore_errors=True)
            os.replace(previous, target.venv)
        if target.venv.exists():
            shutil.rmtree(previous, ignore_errors=True)
            os.replace(target.venv, previous)
        try:
            venv.create(target.venv, args.python, deps, reuse=args.reuse_site_packages,
                        wheelhouse=args.wheelhouse, offline=args.offline, log=lambda m: print(f"  {m}"))
        except BaseException:
            shutil.rmtree(target.venv, ignore_errors=True)
            if previous.exists():
                os.replace(previous, target.venv)
            raise
        shutil.rmtree(previous, ignore_errors=True)
    known = old.get("files", {}) if old else {}
    for rel, content in all_files.items():
        path = target.claude_dir / rel
        if not path.exists() or path.read_bytes() != content:
            if rel.startswith("skills/") and path.is_file() and (rel not in known or is_edited(path, known.get(rel))):
                # a skill file the user changed since Kioku wrote it is kept beside the new one
                kept = path.with_name(f"{path.name}.edited-{clock.compact_z()}")
                shutil.copy2(path, kept)
                print(f"  kept your edited {path} as {kept.name}")
            write_private(path, content, 0o700 if rel in EXEC_FILES or rel.startswith("kioku/hooks/") else 0o600)
    for rel in stale:
        with contextlib.suppress(FileNotFoundError):
            (target.claude_dir / rel).unlink()
    for marker in adopted:
        marker.unlink(missing_ok=True)
    site = target.claude_dir / "kioku" / "venv" / site_rel
    compileall.compile_dir(str(site / "kioku"), quiet=1)  # hooks start faster with .pyc ready

    baseline = _baseline(old, raw, data, target)
    if settings_changes:
        write_preserving_mode(target.settings, new_raw)
    if mcp.new_raw is not None:
        mcp_register.write(mcp.path, mcp.new_raw)
    manifest = {
        "kioku_version": __version__, "scope": target.scope,
        "claude_dir": str(target.claude_dir), "project": str(target.project) if target.project else None,
        "python": args.python, "site_packages": site_rel,
        "files": {rel: layout.sha256(content) for rel, content in all_files.items()},
        "created_dirs": created_dirs,
        "settings": {**baseline, "written_sha256": layout.sha256(new_raw) if new_raw is not None else None},
        "auto_memory": auto,
        "mcp": mcp.record,
    }
    write_private(target.manifest, (json.dumps(manifest, indent=2) + "\n").encode(), 0o600)
    print(f"Kioku {__version__} installed in {target.claude_dir}.")
    print(f"  command: {target.kioku_dir / 'bin' / 'kioku'}   hooks: {target.kioku_dir / 'hooks'}")
    if target.project and Target(paths.claude_dir().expanduser()).manifest.exists():
        print("install.py: warning: Kioku is also installed for your user, so every hook runs twice in this "
              "project; uninstall one (install.py --uninstall [--project DIR])", file=sys.stderr)
    return 0


def _baseline(old: dict[str, Any], raw: bytes | None, data: dict[str, Any], target: Target) -> dict[str, Any]:
    """The settings.json bytes as they would be without Kioku, when known exactly."""
    marker = target.marker()
    prev = old.get("settings", {}) if old else {}
    if not settings.has_kioku(data, marker) and (not prev or raw is None or
                                                   layout.sha256(raw) != prev.get("written_sha256")):
        return {"existed": raw is not None, "baseline_b64": base64.b64encode(raw or b"").decode()}
    if prev and raw is not None and layout.sha256(raw) == prev.get("written_sha256"):
        return {k: v for k, v in prev.items() if k != "written_sha256"}
    # Someone edited the file while Kioku's entries were in it: fall back to removing ours.
    return {"existed": prev.get("existed", True), "baseline_b64": None}


def _refuse_foreign_skills(target: Target, files: dict[str, bytes], old: dict[str, Any],
                           hooks_present: bool = False) -> list[Path]:
    """KiokuError for a skill folder Kioku did not install; returns the markers of folders an
    uninstall left (the caller removes them once the install is written).

    A project install committed by a teammate has its skills and settings.json hooks in git but
    no manifest (``kioku/`` is git-ignored): its skill folders are Kioku's when they hold only
    Kioku's file names and either match this checkout byte for byte or the settings already run
    Kioku's hooks (a file that differs is then kept beside the new one as ``.edited-<time>``)."""
    adopted: list[Path] = []
    owned = set(old.get("files", {})) if old else set()
    for skill in layout.SKILLS:
        folder = target.claude_dir / "skills" / skill
        if folder.exists() and not any(r.startswith(f"skills/{skill}/") for r in owned):
            # what an uninstall left of Kioku's own skill (files the user had edited, and its
            # marker) is taken back
            ours = {r for r in files if r.startswith(f"skills/{skill}/")}
            present = {str(p.relative_to(target.claude_dir)) for p in folder.rglob("*") if p.is_file()}
            marker = f"skills/{skill}/{KEPT_MARKER}"
            # an upgrade keeps an edited file as <name>.edited-<time>, which no manifest lists: a
            # folder holding only such copies of Kioku's files is what an uninstall left
            leftovers = all(r == marker or (".edited-" in r and r.split(".edited-")[0] in ours) for r in present)
            committed = present and all(r in ours for r in present) and (
                hooks_present or all((target.claude_dir / r).read_bytes() == files[r] for r in present))
            if (marker not in present and not leftovers and not committed) or \
                    not all(r in ours or r == marker or ".edited-" in r for r in present):
                raise KiokuError(f"{folder} exists and was not installed by Kioku; move it aside and re-run.")
            adopted.append(folder / KEPT_MARKER)
    return adopted


def _site_rel(target: Target, python: str) -> str:
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        ver = f"{sys.version_info.major}.{sys.version_info.minor}"
    else:
        import subprocess

        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=False)
        ver = out.stdout.strip()
        if out.returncode != 0 or not ver:
            raise KiokuError(f"cannot run {python}")
    if tuple(int(x) for x in ver.split(".")) < (3, 11):
        raise KiokuError(f"Kioku needs Python 3.11 or newer; {python} is {ver}")
    return f"lib/python{ver}/site-packages"
