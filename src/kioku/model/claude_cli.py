"""The ``claude`` backend: one non-interactive ``claude -p`` run per request, with the user's login.

The run loads nothing of its own: no hooks (``--settings {"disableAllHooks": true}``, and
``--safe-mode`` where the binary has it, which also leaves out CLAUDE.md, skills, plugins and
MCP servers while keeping the login), no tools (``--tools ""``), no MCP servers
(``--strict-mcp-config``), no session file (``--no-session-persistence``), Kioku's short system
prompt instead of Claude Code's (``--system-prompt``), structured output (``--json-schema``) and a
dollar cap (``--max-budget-usd``). It runs in an empty folder of Kioku's state, so no project's
files (a ``.env`` among them) are in reach, with the environment the hooks had (the same login the
user's Claude Code uses: nothing is added or taken away) plus :data:`kioku.infra.env.NESTED_RUN`,
which every Kioku hook checks first, so nothing recurses even if a setting leaks. A timeout kills
the run's whole process group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from kioku.infra import fsutil, paths
from kioku.infra.env import NESTED_RUN
from kioku.model.request import CallCapReached, ModelOutputError, ModelReply, ModelRequest, ModelUnavailable
from kioku.model.settings import ModelSettings

# Environment for the run: Kioku's guard, and no traffic beyond the model request itself.
RUN_ENV = {NESTED_RUN: "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1"}
_AUTH_WORDS = ("not logged in", "please run /login", "invalid api key", "authentication", "unauthorized",
               "oauth", "credit balance is too low", "login")
_MAX_STDOUT = 4 * 1024 * 1024


def run_folder() -> Path:
    return fsutil.ensure_private_dir(paths.state_dir() / "model" / "run")


def supports_safe_mode(binary: str) -> bool:
    """Whether this binary has ``--safe-mode`` (read once from its ``--help``, cached by file)."""
    try:
        st = os.stat(binary)
    except OSError:
        return False
    cache = paths.state_dir() / "model" / "claude-flags.json"
    key = f"{os.path.realpath(binary)}:{st.st_size}:{int(st.st_mtime)}"
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("key") == key:
            return bool(data.get("safe_mode"))
    except (OSError, ValueError):
        pass
    try:
        out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30,
                             env={**os.environ, **RUN_ENV}, cwd=str(run_folder()), stdin=subprocess.DEVNULL)
        safe = "--safe-mode" in out.stdout
    except (OSError, subprocess.SubprocessError):
        return False
    try:
        fsutil.atomic_write_text(cache, json.dumps({"key": key, "safe_mode": safe}))
    except OSError:
        pass
    return safe


def argv(binary: str, request: ModelRequest, settings: ModelSettings, *, safe_mode: bool) -> list[str]:
    args = [binary, "-p"]
    if safe_mode:
        args.append("--safe-mode")
    args += ["--settings", json.dumps({"disableAllHooks": True}), "--tools", "", "--strict-mcp-config",
             "--no-session-persistence", "--output-format", "json", "--model", settings.model,
             "--system-prompt", request.system, "--json-schema", json.dumps(request.schema, separators=(",", ":"))]
    if settings.max_usd_per_call > 0:
        args += ["--max-budget-usd", f"{settings.max_usd_per_call:g}"]
    return args


def run_process(args: list[str], stdin_text: str, timeout: float, env: dict[str, str], cwd: str) -> tuple[int, str, str]:
    """Run ``args`` in a new process group; on timeout the whole group is killed."""
    try:
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=cwd, start_new_session=True)
    except OSError as exc:
        raise ModelUnavailable(f"cannot run {args[0]}: {exc.strerror or exc}", transient=False) from exc
    try:
        out, err = proc.communicate(stdin_text.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise ModelUnavailable(f"no answer within {timeout:.0f}s; the run was stopped", transient=True) from None
    except BaseException:
        kill_group(proc)
        raise
    return proc.returncode, out[:_MAX_STDOUT].decode("utf-8", "replace"), err[-4000:].decode("utf-8", "replace")


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def complete(request: ModelRequest, settings: ModelSettings) -> ModelReply:
    binary = settings.claude_path()
    if not binary:
        raise ModelUnavailable("the claude CLI was not found (set [model] claude_bin)", transient=False)
    args = argv(binary, request, settings, safe_mode=supports_safe_mode(binary))
    env = {**os.environ, **RUN_ENV}
    code, out, err = run_process(args, request.prompt, settings.timeout_s, env, str(run_folder()))
    return parse_output(code, out, err, settings.model)


def _is_auth(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _AUTH_WORDS)


def parse_output(code: int, out: str, err: str, model: str) -> ModelReply:
    """The reply from ``--output-format json`` (or the error it stands for)."""
    try:
        result: Any = json.loads(out) if out.strip() else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        message = " ".join((err or out or f"exit code {code}").split())[:200]
        raise ModelUnavailable(f"claude exited with code {code}: {message}", transient=not _is_auth(message))
    usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    tokens_in = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                     "cache_read_input_tokens"))
    cost = result.get("total_cost_usd")
    models = result.get("modelUsage") if isinstance(result.get("modelUsage"), dict) else {}
    reply = ModelReply(text=str(result.get("result") or ""), data=result.get("structured_output"),
                       model=next(iter(models), model), input_tokens=tokens_in,
                       output_tokens=int(usage.get("output_tokens") or 0),
                       cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
                       extra={"subtype": result.get("subtype")})
    subtype = str(result.get("subtype") or "")
    if result.get("is_error") or subtype != "success":
        status = result.get("api_error_status")
        detail = " ".join(str(result.get("result") or subtype or "error").split())[:200]
        if subtype == "error_max_budget_usd":
            raise CallCapReached(f"the run stopped at the per-call cap ([model] max_usd_per_call): {detail}")
        if status in (401, 403) or _is_auth(detail):
            raise ModelUnavailable(f"claude could not log in: {detail}", transient=False)
        if status is not None or "error_during_execution" in subtype or "api" in detail.lower():
            raise ModelUnavailable(f"the API answered with an error ({status or subtype}): {detail}", transient=True)
        raise ModelOutputError(f"the run ended without an answer ({subtype or 'error'}): {detail}")
    if reply.data is None and not reply.text.strip():
        raise ModelOutputError("the run ended without an answer")
    return reply
