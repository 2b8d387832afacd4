"""Where an installation lives and what it consists of (no side effects here).

A user install targets ``${CLAUDE_CONFIG_DIR:-~/.claude}``; a project install targets
``DIR/.claude``. Inside the target:

    settings.json                       merged (see kioku.install.settings)
    skills/memory-system/, skills/agent-memory/   copied from the checkout
    kioku/hooks/kioku_hook.py           the launcher Claude Code runs (``kioku_hook.py EVENT``)
    kioku/bin/kioku                     the ``kioku`` command (runs the venv's python)
    kioku/venv/                         Kioku's isolated Python + a copy of the package
    kioku/manifest.json                 every file written, the settings baseline
    kioku/.gitignore                    project installs: keep the venv out of git

Runtime state (``kioku/state``, ``kioku/logs``) and memories are not part of the install.
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass
from pathlib import Path

SKILLS = ("memory-system", "agent-memory")
HOOK_LAUNCHER = "kioku_hook.py"  # one launcher for every event; the event name is its argument
PROJECT_REF = '"$CLAUDE_PROJECT_DIR"/.claude/kioku/'


@dataclass(frozen=True)
class Target:
    claude_dir: Path
    project: Path | None = None  # set for --project installs

    @property
    def kioku_dir(self) -> Path:
        return self.claude_dir / "kioku"

    @property
    def venv(self) -> Path:
        return self.kioku_dir / "venv"

    @property
    def settings(self) -> Path:
        return self.claude_dir / "settings.json"

    @property
    def manifest(self) -> Path:
        return self.kioku_dir / "manifest.json"

    @property
    def scope(self) -> str:
        return "project" if self.project else "user"

    def hook_command(self, event: str) -> str:
        """The shell command settings.json runs for one hook event."""
        if self.project:
            # settings.json is committed with the project: on a teammate's clone, which has no venv
            # (it is per machine and git-ignored), the hook does nothing instead of failing
            python = f"{PROJECT_REF}venv/bin/python"
            return f"[ -x {python} ] || exit 0; {python} {PROJECT_REF}hooks/{HOOK_LAUNCHER} {event}"
        launcher = shlex.quote(str(self.kioku_dir / "hooks" / HOOK_LAUNCHER))
        python = shlex.quote(str(self.venv / "bin" / "python"))
        # Kioku's environment removed or broken: the hook lets the session go on (exit 0) instead
        # of a "hook error" on every prompt, and SessionStart tells the user once what to run
        told = f"printf '%s\\n' {shlex.quote(_MISSING_VENV_NOTICE)}; " if event == "SessionStart" else ""
        return f"[ -x {python} ] || {{ {told}exit 0; }}; {python} {launcher} {event}"

    def marker(self) -> str:
        # The unquoted folder path is a substring of every command we write.
        if self.project:
            return ".claude/kioku/hooks/"
        return str(self.kioku_dir / "hooks") + "/"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def launcher_text(target: Target) -> str:
    lines = ["#!/bin/sh",
             "# The kioku command, installed by Kioku's install.py (removed by --uninstall).",
             "# It runs Kioku from its own environment, so the source checkout is not needed."]
    if target.project is not None:
        # A project folder can be moved or renamed (the venv still runs from its new place): the
        # environment is found next to this file, through a link to it too.
        lines += ['self=$(readlink -f -- "$0" 2>/dev/null) || self=$0',
                  'python="$(dirname -- "$self")/../venv/bin/python"',
                  _MISSING_VENV.format(python='"$python"', venv=".claude/kioku/venv"),
                  'exec "$python" -m kioku "$@"']
        return "\n".join(lines) + "\n"
    python = shlex.quote(str(target.venv / "bin" / "python"))
    default_claude = Path.home() / ".claude"
    if target.project is None and target.claude_dir != default_claude:
        # Same Claude folder as the hooks, even when run from a shell without the variable.
        # inside "${VAR:=word}" single quotes are literal: the default is written as a double-quoted
        # word, with the characters special there escaped
        folder = str(target.claude_dir)
        for special in ("\\", "\"", "$", "`"):
            folder = folder.replace(special, "\\" + special)
        lines.append(f': "${{CLAUDE_CONFIG_DIR:="{folder}"}}"')
        lines.append("export CLAUDE_CONFIG_DIR")
    lines.append(_MISSING_VENV.format(python=python, venv=str(target.venv).replace("'", "'\\''")))
    lines.append(f'exec {python} -m kioku "$@"')
    return "\n".join(lines) + "\n"


# What SessionStart shows the user (a documented hook output key) when the environment is gone.
_MISSING_VENV_NOTICE = ('{"systemMessage": "Kioku is not working: its Python environment is missing or broken. '
                        'Run install.py again to rebuild it (memories and lessons are kept)."}')
# One clear line instead of "not found" when Kioku's environment was removed or broken.
_MISSING_VENV = ("[ -x {python} ] || {{ echo 'kioku: its Python environment ({venv}) is missing or broken; "
                 "run install.py again to rebuild it (memories and lessons are kept)' >&2; exit 1; }}")


def source_files(source_root: Path) -> dict[str, bytes]:
    """Files Kioku copies, keyed by path relative to the Claude folder (venv part excluded)."""
    files: dict[str, bytes] = {}
    files[f"kioku/hooks/{HOOK_LAUNCHER}"] = (source_root / "hooks" / HOOK_LAUNCHER).read_bytes()
    for skill in SKILLS:
        base = source_root / "skills" / skill
        if not base.is_dir():
            continue
        for path in sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            files[f"skills/{skill}/{path.relative_to(base).as_posix()}"] = path.read_bytes()
    return files


def package_files(source_root: Path) -> dict[str, bytes]:
    """The kioku package (and its data files), keyed by path relative to site-packages."""
    pkg = source_root / "src" / "kioku"
    files = {f"kioku/{p.relative_to(pkg).as_posix()}": p.read_bytes()
             for p in sorted(pkg.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith((".pyc", ".pyo"))}
    # the Jinja templates of `kioku agent-section`, found by kioku.render.templating beside the package
    for p in sorted((source_root / "templates").glob("*.j2")):
        files[f"kioku/templates/{p.name}"] = p.read_bytes()
    return files
