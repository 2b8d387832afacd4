"""The one-time notice at the first SessionStart where a model will judge turns or enrich memories.

It says what is sent, to which model, within which caps, and how to see the use and turn it
off. It is shown once per Kioku home (``<state_dir>/notices/model-judge``); checking whether it
was shown costs the hook one ``os.path.exists``. While no model may be called, that finding is
kept beside the marker with what it depends on (the config files' times, the backend variable,
PATH, the day), so the hook reads the config again only when one of them changes.
"""

from __future__ import annotations

import os

from kioku.infra import clock, pathstr


def marker_path() -> str:
    return os.path.join(pathstr.state_dir(), "notices", "model-judge")


def _no_model_signature(project_root: str) -> str:
    """What the "no model may be called" finding depends on, in a line (os.stat only)."""
    stamps = []
    for path in (os.path.join(pathstr.kioku_home(), "config.toml"), os.path.join(project_root, ".agents", "kioku.toml")):
        try:
            stamps.append(str(os.stat(path).st_mtime_ns))
        except OSError:
            stamps.append("-")
    day = clock.utc_day()
    return "|".join([*stamps, os.environ.get("KIOKU_MODEL_BACKEND", ""), os.environ.get("KIOKU_CLAUDE_BIN", ""),
                     os.environ.get("PATH", ""), day])


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(65536)
    except (OSError, UnicodeDecodeError):
        return ""


def pending_notice(project_root: str) -> str:
    """The notice, if it is due now (and marks it shown); "" otherwise."""
    marker = marker_path()
    if os.path.exists(marker):
        return ""
    no_model = marker + ".no-model"
    signature = _no_model_signature(project_root)
    if _read(no_model) == signature:
        return ""  # found before: no model may be called, and nothing it depends on has changed
    from pathlib import Path

    from kioku.infra import fsutil
    from kioku.model.client import unavailable_reason
    from kioku.model.settings import load_settings

    try:
        settings = load_settings(Path(project_root))
    except Exception:  # noqa: BLE001 - a broken config is reported by doctor, not by a notice
        return ""
    judging = not unavailable_reason("judge", settings)
    enriching = not unavailable_reason("enrich", settings)
    if not judging and not enriching:
        try:  # no model will be called: nothing to tell yet, nor to look up again while this holds
            fsutil.atomic_write_text(no_model, signature)
        except OSError:
            pass
        return ""
    backend = settings.resolved_backend()
    where = {"claude": "the claude CLI, with your Claude Code login", "anthropic": "the Anthropic API, with your "
             "ANTHROPIC_API_KEY", "command": f"your command {settings.command[0] if settings.command else ''}"}[backend]
    caps = (f"at most {settings.daily_calls} calls and {settings.daily_tokens:,} tokens a day"
            + (f", ${settings.max_usd_per_call:g} a call" if backend == "claude" and settings.max_usd_per_call else ""))
    enrichment = ("the redacted text of each memory you save and each lesson it learns, once, to write search aids "
                  "(questions and keywords in English and Japanese; `kioku enrich off` turns that off)")
    if judging:
        text = (f"Kioku judges each finished turn with a model ({settings.model}, through {where}): it sends a "
                f"condensed, redacted copy of the turn (your prompt, the answer, tool calls cut short, your next "
                f"prompt)" + (f", and {enrichment}" if enriching else "") + f", {caps}. "
                "`kioku judge status` shows the use; `kioku judge off` turns judging off.")
    else:
        text = (f"Kioku sends a model ({settings.model}, through {where}) {enrichment}, {caps}. "
                "`kioku enrich status` shows what was enriched.")
    try:
        fsutil.atomic_write_text(marker, text + "\n")
    except OSError:
        return ""  # shown when it can be recorded, so it is never shown at every start
    return text
