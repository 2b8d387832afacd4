"""A throw-away Kioku home and project for the benchmarks that store lessons, and their report."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def throwaway_project(prefix: str, **env: str) -> Iterator[Path]:
    """A fresh temporary folder as HOME, KIOKU_HOME and CLAUDE_CONFIG_DIR (background maintenance
    off, plus ``env``), yielding a project in it; the folder is removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        os.environ.update(KIOKU_HOME=str(tmp / "kioku"), CLAUDE_CONFIG_DIR=str(tmp / "claude"), HOME=str(tmp),
                          KIOKU_BACKGROUND_MAINTENANCE="0", **env)
        project = tmp / "project"
        (project / ".agents").mkdir(parents=True)
        yield project
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def emit(report: object, json_out: Path | None, *, show: bool = True) -> None:
    """Write ``report`` as JSON to ``json_out`` (if given) and, with ``show``, to standard output."""
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if json_out:
        json_out.write_text(text + "\n", encoding="utf-8")
    if show:
        print(text)
