"""Kioku's own Python environment: ``<kioku dir>/venv``, isolated from every other Python.

Default (what users get): ``python -m venv`` (no system site-packages), then ``pip install``
of Kioku's runtime dependencies as declared in pyproject.toml (``--wheelhouse DIR`` adds
``--find-links DIR``; ``--offline`` adds ``--no-index`` so a pre-filled wheelhouse is the
only source). Kioku itself is then *copied* into the venv's site-packages by the installer
(a pure-Python package: the copy is what a wheel install would unpack, and it needs no
build backend or network), so the source checkout can be moved or deleted afterwards.

Dev/test only: ``reuse_site_packages`` skips pip and writes a ``.pth`` file that appends
the installing interpreter's site-packages (where the deps already are) to the venv's
path. The venv is still a separate one, and Kioku's package copy in it is still found
first. Documented as a development option; never the default.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from kioku.infra.errors import KiokuError

STAMP = ".kioku-venv.json"
REUSE_PTH = "kioku-dev-reuse-site-packages.pth"


class VenvError(KiokuError):
    """Creating Kioku's environment failed; the message says what to do."""


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def runtime_deps(source_root: Path) -> list[str]:
    with (source_root / "pyproject.toml").open("rb") as handle:
        return list(tomllib.load(handle)["project"]["dependencies"])


def wanted_stamp(deps: list[str], base_python: str, reuse: bool) -> dict[str, object]:
    stamp: dict[str, object] = {"deps": sorted(deps), "base_python": base_python}
    if reuse:
        stamp["reuse_site_packages"] = sorted(_own_site_dirs())
    return stamp


def stamps_match(current: dict[str, object] | None, wanted: dict[str, object]) -> bool:
    """Whether the environment ``current`` describes is the one ``wanted``: the same
    interpreter however it is named (``python`` and ``python3`` of one venv are one)."""
    if current is None:
        return False

    def same(stamp: dict[str, object]) -> dict[str, object]:
        python = stamp.get("base_python")
        return {**stamp, "base_python": os.path.realpath(python) if isinstance(python, str) else python}

    return same(current) == same(wanted)


def current_stamp(venv: Path) -> dict[str, object] | None:
    try:
        data = json.loads((venv / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not python_of(venv).exists():
        return None
    return data if isinstance(data, dict) else None


def site_packages(venv: Path) -> Path:
    out = subprocess.run([str(python_of(venv)), "-c",
                          "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0 or not out.stdout.strip():
        raise VenvError(f"the Python in {venv} does not run: {out.stderr.strip()[:300]}")
    return Path(out.stdout.strip())


def create(venv: Path, base_python: str, deps: list[str], *, reuse: bool = False,
           wheelhouse: str | None = None, offline: bool = False, log=print,
           site_dirs: list[str] | None = None) -> None:
    """``site_dirs`` (development and tests) acts like ``reuse`` with those folders instead of
    this interpreter's site-packages."""
    reuse = reuse or bool(site_dirs)
    log(f"creating Kioku's Python environment in {venv} (python: {base_python})")
    cmd = [base_python, "-m", "venv", "--clear", *(["--without-pip"] if reuse else []), str(venv)]
    res = subprocess.run(cmd,
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise VenvError(
            f"could not create a virtual environment with {base_python}: "
            f"{(res.stderr or res.stdout).strip()[-500:]}\n"
            "On Debian/Ubuntu install the venv module (apt install python3-venv) or pass --python.")
    if reuse:
        site = site_packages(venv)
        reused = sorted(site_dirs) if site_dirs else sorted(_own_site_dirs())
        (site / REUSE_PTH).write_text("".join(f"{p}\n" for p in reused), encoding="utf-8")
    else:
        cmd = [str(python_of(venv)), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        if wheelhouse:
            cmd += ["--find-links", wheelhouse]
        if offline:
            cmd += ["--no-index"]
        log(f"installing dependencies: {', '.join(deps)}")
        res = subprocess.run(cmd + deps, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise VenvError("pip could not install Kioku's dependencies:\n"
                            f"{(res.stderr or res.stdout).strip()[-1500:]}")
    (venv / STAMP).write_text(json.dumps(wanted_stamp(deps, base_python, reuse), indent=2) + "\n",
                              encoding="utf-8")


def _own_site_dirs() -> set[str]:
    paths = sysconfig.get_paths()
    return {p for p in (paths.get("purelib"), paths.get("platlib")) if p and Path(p).is_dir()}


def default_python() -> str:
    return sys.executable
