"""Kioku's settings, from TOML files (stdlib ``tomllib``, so hooks can read them cheaply).

Files, later ones win key by key:
1. ``<KIOKU_HOME>/config.toml`` (user)
2. ``<project>/.agents/kioku.toml`` (project; committable)

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

from kioku.core import paths


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


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


def load_config(project_root: Path | None = None) -> Config:
    merged: dict[str, Any] = {}
    for path in config_files(project_root):
        for key, value in _read(path).items():
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


def kill_switch_set() -> bool:
    return os.environ.get("KIOKU_DISABLE", "").strip().lower() in {"1", "true", "yes", "on"}
