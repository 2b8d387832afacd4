"""A failed tool call as one plain message, never a traceback.

- A refusal or a mistake of the caller (a secret, an unknown id, a bad topic name: Kioku's
  ``UsageError``, ``SecretRejected``, ``MemoryRejected``, an unknown lesson) is its own sentence.
- Anything else means the store itself is busy or broken: the answer is the error's own line,
  followed by what ``kioku doctor`` says about that store (its failed and warned checks of the
  memory folders, or of the agent-memory stores, worded as the doctor prints them), so the fix
  it names is the same wherever the user meets the fault.
- An unexpected exception's traceback goes to ``<logs>/mcp.log``; the reply names the file.

Every message is defanged: an error can quote a memory's summary.
"""

from __future__ import annotations

from pathlib import Path

from kioku.infra.errors import KiokuError, SecretRejected, UsageError
from kioku.text.defang import defang_line

MAX_FINDINGS = 4


def _caller_errors() -> tuple[type[BaseException], ...]:
    from kioku.lessons.lesson_state import LessonNotFound
    from kioku.memory.guard import MemoryRejected

    return (UsageError, SecretRejected, MemoryRejected, LessonNotFound)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, KiokuError):
        return " ".join(str(exc).split())
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        return f"{exc.strerror}{where}; the call did not complete"
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def doctor_findings(store: str, project_root: Path) -> list[str]:
    """The failed and warned ``kioku doctor`` checks of one store ("memory" or "lessons"),
    as ``[FAIL] check: detail`` lines."""
    from kioku.infra import paths
    from kioku.install import doctor_stores

    checks: list[tuple[str, bool, str, bool]] = []

    def add(name: str, ok: bool, detail: str, warn: bool = False) -> None:
        checks.append((name, ok, detail, warn))

    if store == "memory":
        for label, folder in (("project memory", paths.project_memory_dir(project_root)),
                              ("user memory", paths.user_memory_dir())):
            doctor_stores.check_memory_folder(label, folder, add)
    else:
        for scope in ("global", "project"):
            doctor_stores.check_agent_store(scope, project_root, add)
    return [f"[{'warn' if ok else 'FAIL'}] {name}: {detail}" for name, ok, detail, warn in checks if not ok or warn]


def explain(exc: BaseException, store: str, project_root: Path) -> str:
    """The reply for a tool call that raised ``exc``."""
    if isinstance(exc, _caller_errors()):
        return defang_line(_one_line(exc))
    message = _one_line(exc)
    if not isinstance(exc, (KiokuError, OSError)):
        message += f" (details in {log_traceback(exc)})"
    try:
        findings = doctor_findings(store, project_root)
    except Exception:  # noqa: BLE001 - the doctor's view is extra; the error itself is the answer
        findings = []
    if findings:
        message += "\nkioku doctor says:\n" + "\n".join(findings[:MAX_FINDINGS])
    return "\n".join(defang_line(line) for line in message.splitlines())


def log_traceback(exc: BaseException) -> str:
    """Append ``exc``'s traceback to ``<logs>/mcp.log``; returns where."""
    from kioku.infra.tracelog import append_traceback

    return append_traceback("mcp.log", "kioku mcp", exc)
