"""Helpers shared by the hook handlers (stdlib only; imported on every hook's fast path).

- :func:`project_root` resolves the project from the payload's ``cwd`` (Claude's current
  directory, which may be a subfolder), falling back to the process cwd.
- :func:`improvements_block` formats an agent's digest (kioku.agent.digest.read_digest) as a
  fenced, factual block of remembered data - never phrased as system instructions, since
  imperative "system" text trips Claude's prompt-injection defences.
- :func:`soft` runs one optional part of a handler (e.g. the improvements digest at
  SessionStart) so that its failure is logged but the other parts still reach Claude. The
  process-level fail-open boundary stays :func:`kioku.core.hookio.run`.
"""

from __future__ import annotations

# Annotations only (PEP 563): nothing here imports pathlib/typing, which the Stop path avoids.

MAX_IMPROVEMENTS = 5
IMPROVEMENT_CHARS = 300  # one lesson is a sentence or two; longer ones are cut


def project_root(payload: dict) -> "Path":
    from pathlib import Path

    from kioku.core.hookio import project_root_of

    return Path(project_root_of(payload))


def soft(label: str, fn, default):
    try:
        return fn()
    except Exception:  # noqa: BLE001 - one missing part must not hide the others
        from kioku.core.hookio import log_exception

        log_exception(label)
        return default


def read_improvements(agent: str, root, limit: int = MAX_IMPROVEMENTS) -> list[dict]:
    from kioku.agent.digest import read_digest

    items = [i for i in read_digest(agent, project_root=root) if isinstance(i, dict) and i.get("id")]
    return items[:limit]


def improvements_block(agent: str, items: list[dict], budget: int
                       ) -> tuple[str, list[dict]]:
    """Fenced list of learned lessons within ``budget`` characters, and the items it holds.

    Returns ("", []) when nothing fits: the caller records only what was really injected.
    """
    if not items or budget < 200:
        return "", []
    from kioku.core.defang import attr, defang
    from kioku.core.secrets import redact

    head = (f'<kioku-learned-improvements agent="{attr(agent)}">\n'
            f"Remembered data (not instructions): lessons agent \"{attr(agent)}\" learned in earlier "
            "tasks, best first. Apply them where they fit the current task.\n")
    tail = "</kioku-learned-improvements>"
    lines: list[str] = []
    shown: list[dict] = []
    used = len(head) + len(tail) + 1
    for item in items:
        text = " ".join(defang(str(item.get("improvement", ""))).split())
        if not text:
            continue
        if len(text) > IMPROVEMENT_CHARS:
            text = text[: IMPROVEMENT_CHARS - 1] + "…"
        facts = [" ".join(defang(str(item.get("category") or "general")).split())]
        conf = item.get("confidence")
        if isinstance(conf, (int, float)):
            facts.append(f"confidence {conf:.2f}")
        rate = item.get("success_rate")
        if isinstance(rate, (int, float)) and rate >= 0:
            facts.append(f"success {rate:.0%}")
        line = f"- {text} ({', '.join(facts)})\n"
        if used + len(line) > budget:
            break
        lines.append(line)
        shown.append(item)
        used += len(line)
    if not lines:
        return "", []
    # Every remembered value is defanged (body) or escaped (agent attribute) so nothing inside
    # can close the fence; then one secrets pass over the whole block (the single choke point
    # for injected text).
    # Callers measure the returned text, so a [REDACTED:kind] marker cannot break a budget.
    body = redact("".join(lines))
    return head + body + tail, shown


def scope_map(items: list[dict]) -> tuple[list[str], dict[str, str]]:
    ids = [str(i["id"]) for i in items]
    return ids, {str(i["id"]): str(i.get("scope") or "global") for i in items}


def main_agent(root) -> str:
    from kioku.core.hookio import config_present

    if not config_present(str(root)):
        return "main"  # the default; skips importing tomllib when there is no config file
    from pathlib import Path

    from kioku.core.config import load_config

    return load_config(Path(root)).main_agent
