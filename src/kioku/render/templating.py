"""The Jinja environment for Kioku's templates, and where the templates are found.

Templates live in the repository's top-level ``templates/``. An installed Kioku may not have
the source checkout any more, so the folder is searched in this order:

1. ``$KIOKU_TEMPLATES_DIR`` (tests, packagers);
2. the checkout this module was imported from (``src/kioku/render`` → ``../../../templates``);
3. ``kioku/templates`` inside the installed package (install.py copies ``templates/`` there,
   beside the package copy in Kioku's venv, so user and project installs both find it);
4. ``<kioku home>/templates``;
5. ``<sys.prefix>/share/kioku/templates`` (a wheel's data files).

``StrictUndefined`` makes a missing variable an error instead of an empty string: a section
with a silently blank collection name would be worse than no section.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from kioku.infra import paths
from kioku.infra.errors import KiokuError

SECTION_TEMPLATE = "agent_section.md.j2"
AGENT_FILE_TEMPLATE = "agent_file.md.j2"


def template_dirs() -> list[Path]:
    candidates: list[Path] = []
    override = os.environ.get("KIOKU_TEMPLATES_DIR")
    if override:
        candidates.append(Path(override).expanduser())
    here = Path(__file__).resolve()
    candidates.append(here.parents[3] / "templates")
    candidates.append(here.parents[1] / "templates")
    candidates.append(paths.kioku_home() / "templates")
    candidates.append(Path(sys.prefix) / "share" / "kioku" / "templates")
    return candidates


def templates_dir() -> Path:
    for candidate in template_dirs():
        if (candidate / SECTION_TEMPLATE).is_file():
            return candidate
    searched = ", ".join(str(c) for c in template_dirs())
    raise KiokuError(f"Kioku's templates are missing (looked in: {searched}); reinstall Kioku")


@lru_cache(maxsize=4)
def _environment(folder: str) -> Any:
    import jinja2  # lazily: commands register their parsers without paying for jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # Markdown, not HTML: escaping would corrupt backticks and tables
        trim_blocks=True,
        lstrip_blocks=True,
    )


def environment(folder: Path | None = None) -> Any:
    return _environment(str(folder or templates_dir()))


def render_template(name: str, context: dict[str, Any], folder: Path | None = None) -> str:
    """Render one template; an undefined variable raises ``jinja2.UndefinedError``."""
    return environment(folder).get_template(name).render(**context)
