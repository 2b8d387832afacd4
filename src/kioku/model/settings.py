"""Which model Kioku may call, how, within which caps, and whether it may call one at all.

Read from the user's ``<KIOKU_HOME>/config.toml``::

    [model]
    backend = "auto"          # auto | claude | anthropic | command | heuristic
    model = "haiku"           # an alias the claude CLI knows, or a full model id
    command = "llm -m local"  # backend = "command": reads the request on stdin, prints JSON
    claude_bin = "claude"     # the Claude Code binary (default: found on PATH)
    daily_calls = 200         # calls a day, all purposes together
    daily_tokens = 1500000    # input + output tokens a day
    max_usd_per_call = 0.05   # a dollar cap per call where the backend supports one
    timeout_s = 180
    [judge]
    enabled = true            # kioku judge on / off
    [enrich]
    enabled = true

A project's committed ``.agents/kioku.toml`` may only turn a purpose off (``[judge] enabled =
false``): it can never choose a backend, a command or a model, nor turn on what the user turned
off. ``auto`` is the claude CLI where it is found and the rules otherwise; the API-key backend is
used only when the user chose it, so Kioku never switches silently between a subscription and a key.
Environment: ``KIOKU_MODEL_BACKEND`` overrides ``backend``, ``KIOKU_CLAUDE_BIN`` the binary.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kioku.infra import paths
from kioku.infra.config import ConfigError, config_files, read_toml

BACKENDS = ("auto", "claude", "anthropic", "command", "heuristic")
PURPOSES = ("judge", "enrich")
DEFAULTS: dict[str, Any] = {
    "backend": "auto", "model": "haiku", "command": "", "claude_bin": "",
    "daily_calls": 200, "daily_tokens": 1_500_000, "max_usd_per_call": 0.05, "timeout_s": 180.0,
    # list prices per million tokens, for the estimates shown when a backend reports no cost
    "price_input_per_mtok": 1.0, "price_output_per_mtok": 5.0,
}
# Where Claude Code's installer and npm put the binary when it is not on PATH.
_CLAUDE_PLACES = (".claude/local/claude", ".local/bin/claude", ".npm-global/bin/claude")


@dataclass(frozen=True)
class ModelSettings:
    backend: str = "auto"                 # as configured
    model: str = "haiku"
    command: tuple[str, ...] = ()
    claude_bin: str = ""
    daily_calls: int = 200
    daily_tokens: int = 1_500_000
    max_usd_per_call: float = 0.05
    timeout_s: float = 180.0
    price_input_per_mtok: float = 1.0
    price_output_per_mtok: float = 5.0
    # purpose -> "" when allowed, else why not ("turned off by the user", ...)
    off: dict[str, str] = field(default_factory=dict)

    def allowed(self, purpose: str) -> bool:
        return not self.off.get(purpose)

    def resolved_backend(self) -> str:
        """The backend a call would use now: ``auto`` becomes ``claude`` or ``heuristic``."""
        if self.backend != "auto":
            return self.backend
        return "claude" if self.claude_path() else "heuristic"

    def claude_path(self) -> str:
        """The claude binary to run, or "" when none is found."""
        if self.claude_bin:
            found = shutil.which(self.claude_bin) or (self.claude_bin if os.path.isfile(self.claude_bin) else "")
            return found if found and os.access(found, os.X_OK) else ""
        found = shutil.which("claude")
        if found:
            return found
        home = paths.user_home()
        for place in _CLAUDE_PLACES:
            candidate = home / place
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
        return ""

    def estimate_cost(self, input_tokens: int, output_tokens: int) -> float:
        return round(input_tokens * self.price_input_per_mtok / 1e6 + output_tokens * self.price_output_per_mtok / 1e6, 6)


def _number(value: Any, key: str, kind: type, minimum: float) -> Any:
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"[model] {key} must be a number, not {value!r}") from None
    if number < minimum:
        raise ConfigError(f"[model] {key} must be at least {minimum}, not {value!r}")
    return number


def _enabled(table: Any, purpose: str, source: str) -> bool | None:
    if not isinstance(table, dict) or "enabled" not in table:
        return None
    value = table["enabled"]
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ("true", "on", "yes", "1"):
        return True
    if word in ("false", "off", "no", "0"):
        return False
    raise ConfigError(f"{source}: [{purpose}] enabled must be true or false, not {value!r}")


def load_settings(project_root: Path | None = None) -> ModelSettings:
    """The settings in force for ``project_root`` (raises ConfigError on a malformed file)."""
    user_file, project_file = config_files(project_root)
    user = read_toml(user_file)
    project = read_toml(project_file)
    table = user.get("model") if isinstance(user.get("model"), dict) else {}
    values = {**DEFAULTS, **{k: v for k, v in table.items() if k in DEFAULTS}}
    backend = str(os.environ.get("KIOKU_MODEL_BACKEND") or values["backend"]).strip().lower()
    if backend not in BACKENDS:
        raise ConfigError(f"[model] backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    off: dict[str, str] = {}
    for purpose in PURPOSES:
        if _enabled(user.get(purpose), purpose, str(user_file)) is False:
            off[purpose] = f"turned off by the user (kioku {purpose} on turns it back on)"
        elif _enabled(project.get(purpose), purpose, str(project_file)) is False:
            off[purpose] = f"turned off for this project ({project_file.name})"
    command = values["command"]
    argv = tuple(shlex.split(command)) if isinstance(command, str) else tuple(str(c) for c in command or ())
    return ModelSettings(
        backend=backend, model=str(values["model"]).strip() or "haiku", command=argv,
        claude_bin=str(os.environ.get("KIOKU_CLAUDE_BIN") or values["claude_bin"] or ""),
        daily_calls=_number(values["daily_calls"], "daily_calls", int, 0),
        daily_tokens=_number(values["daily_tokens"], "daily_tokens", int, 0),
        max_usd_per_call=_number(values["max_usd_per_call"], "max_usd_per_call", float, 0.0),
        timeout_s=_number(values["timeout_s"], "timeout_s", float, 1.0),
        price_input_per_mtok=_number(values["price_input_per_mtok"], "price_input_per_mtok", float, 0.0),
        price_output_per_mtok=_number(values["price_output_per_mtok"], "price_output_per_mtok", float, 0.0),
        off=off,
    )
