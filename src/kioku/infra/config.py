"""Kioku's settings, from TOML files (stdlib ``tomllib``, so hooks can read them cheaply).

Files, later ones win key by key:
1. ``<KIOKU_HOME>/config.toml`` (user)
2. ``<project>/.agents/kioku.toml`` (project; committable, so its ``[chroma]`` table is ignored:
   only the user decides where agent memory is stored)

Keys (all optional)::

    disabled = false          # true: every hook is a no-op for this project / user
    main_agent = "main"       # agent name used for the main session's self-evaluation
    relevance_threshold = 0.13  # cosine cut-off for improvements (calibrated; see agent.improvements)
    [chroma]
    host = "127.0.0.1"        # set host+port to use a shared `chroma run` server
    port = 8000

``KIOKU_DISABLE=1`` in the environment overrides everything.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kioku.infra import paths


class ConfigError(ValueError):
    """A config file exists but cannot be read; the message names it."""


@dataclass(frozen=True)
class Config:
    disabled: bool = False
    main_agent: str = "main"
    chroma_host: str | None = None
    chroma_port: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def config_files(project_root: Path | None = None) -> list[Path]:
    root = project_root or paths.find_project_root()
    return [paths.kioku_home() / "config.toml", root / ".agents" / "kioku.toml"]


MAX_CONFIG_BYTES = 64 * 1024  # a settings file is a few lines; a bigger one is not ours to parse


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML in ``path``; ``{}`` when there is none.

    Only a regular file of at most :data:`MAX_CONFIG_BYTES` is read (a link is followed to one):
    a FIFO would block every hook and a link to ``/dev/zero`` would fill memory.
    """
    from kioku.infra.fsutil import NotRegularFile, read_regular

    try:
        data = read_regular(path.resolve() if path.is_symlink() else path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    except (NotRegularFile, IsADirectoryError):
        raise ConfigError(f"cannot read {path}: not a regular file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"cannot read {path}: more than a settings file holds ({MAX_CONFIG_BYTES:,} bytes)")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


_TRUE_WORDS = {"true", "yes", "on", "1"}
_FALSE_WORDS = {"false", "no", "off", "0"}


def _flag(value: Any, key: str, path: str) -> bool:
    """A TOML boolean, or the usual spellings of one (``"true"``, ``"off"``, ``1``): ``"false"``
    written as a string must not count as true. Anything else is an error."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else ""
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise ConfigError(f"{path}: {key} must be true or false, not {value!r}")


def load_config(project_root: Path | None = None) -> Config:
    merged: dict[str, Any] = {}
    user_file, project_file = config_files(project_root)
    user = read_toml(user_file)
    project = read_toml(project_file)
    # Where lessons and evaluations are stored is the user's choice: a repository's committed
    # file must not send them (global-scope lessons included) to a server it names.
    project.pop("chroma", None)
    for source, data in ((user_file, user), (project_file, project)):
        if "disabled" in data:
            data["disabled"] = _flag(data["disabled"], "disabled", str(source))
        for key, value in data.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    chroma = merged.get("chroma") if isinstance(merged.get("chroma"), dict) else {}
    host = os.environ.get("KIOKU_CHROMA_HOST") or chroma.get("host")
    port = os.environ.get("KIOKU_CHROMA_PORT") or chroma.get("port")
    return Config(
        disabled=bool(merged.get("disabled", False)),
        main_agent=str(merged.get("main_agent", "main")),
        chroma_host=str(host) if host else None,
        chroma_port=int(port) if port else None,
        extra={k: v for k, v in merged.items() if k not in {"disabled", "main_agent", "chroma"}},
    )


def set_table_key(path: Path, table: str, key: str, value: bool) -> None:
    """Set ``[table] key = value`` in the TOML file at ``path``, keeping everything else as written.

    A line-level edit, so the user's comments and order survive; the result is parsed again
    before it replaces the file (atomically), and a file that is not valid TOML is refused."""
    from kioku.infra import fsutil

    read_toml(path)  # refuses a file we could not parse back
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    literal = "true" if value else "false"
    header = f"[{table}]"
    start = next((i for i, line in enumerate(lines) if line.strip() == header), None)
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [header, f"{key} = {literal}"]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        found = next((i for i in range(start + 1, end)
                      if lines[i].split("=", 1)[0].strip() == key and "=" in lines[i]), None)
        if found is None:
            lines.insert(start + 1, f"{key} = {literal}")
        else:
            lines[found] = f"{key} = {literal}"
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)
    fsutil.atomic_write_text(path, text)
