"""Kioku's Python environment when it runs as a Claude Code plugin.

A plugin's files (``${CLAUDE_PLUGIN_ROOT}``) are replaced on every update and Claude Code
installs no Python packages for it, so:

- the hooks run with the system ``python3`` and the package in ``<plugin root>/src``: the
  memory paths (remember, recall, the queue) need only the standard library, so the first
  session after installing already saves and recalls;
- what needs the full dependencies (Chroma, the embedding model: evaluations, lessons,
  search) runs in a virtual environment under ``${CLAUDE_PLUGIN_DATA}/venv``, kept across
  updates. The first hook that finds it missing starts :func:`prepare` as a detached process
  and never waits for it; jobs queued meanwhile (self-evaluations) stay queued and are run
  when the environment is ready;
- memories and Kioku's state stay where ``install.py`` keeps them (``.agents/memory``,
  Kioku's home, the Chroma folders), so uninstalling or updating the plugin keeps them.

:func:`before_plugin_hook` is on every plugin hook's path: it imports only ``os`` and ``sys``
at load time and costs a few ``stat`` calls. When ``install.py`` has installed Kioku too, the
plugin's hooks do nothing (the settings-file hooks already run) and SessionStart says so.

``python -m kioku.install.plugin_env prepare --data DIR --root DIR`` builds the environment;
``python -m kioku.install.plugin_env cli ARGS`` is the plugin's ``kioku`` command.
"""

from __future__ import annotations

import os
import sys

VENV_DIR = "venv"
READY_STAMP = ".kioku-venv.json"  # written last by kioku.install.venv.create
FAILED_MARKER = "prepare-failed.json"
PREPARE_LOCK = "prepare.lock"
PREPARE_LOG = "prepare.log"
POINTER_FILE = "plugin-env.json"  # in Kioku's home: where the plugin's environment is
RETRY_AFTER_S = 3600.0
REUSE_ENV = "KIOKU_PLUGIN_REUSE_SITE_PACKAGES"  # development and tests: no pip, see prepare()
TWICE_MESSAGE = ("Kioku is installed twice: as a Claude Code plugin and with install.py ({where}). "
                 "The plugin's hooks stand aside so nothing runs twice; remove one of the two "
                 "(`claude plugin uninstall kioku@<marketplace>` or `python3 install.py --uninstall`).")


def venv_python(data_dir: str) -> str:
    return os.path.join(data_dir, VENV_DIR, "bin", "python")


def is_ready(data_dir: str) -> bool:
    return (os.path.isfile(os.path.join(data_dir, VENV_DIR, READY_STAMP))
            and os.path.exists(venv_python(data_dir)))


def installer_manifests(project_dir: str | None) -> list[str]:
    """The manifests of ``install.py`` installations that are active for this session."""
    from kioku.infra.pathstr import claude_dir

    # install.py writes its manifest into <claude dir>/kioku whatever KIOKU_HOME says (that
    # variable moves Kioku's state, not the installation)
    found = [os.path.join(claude_dir(), "kioku", "manifest.json")]
    if project_dir:
        found.append(os.path.join(project_dir, ".claude", "kioku", "manifest.json"))
    return [path for path in found if os.path.isfile(path)]


def before_plugin_hook(event: str) -> bool:
    """Set up one plugin hook run; False when the hook must do nothing."""
    from kioku.infra.env import kill_switch_set

    if kill_switch_set():
        return False  # KIOKU_DISABLE: no message, no background work
    twice = installer_manifests(os.environ.get("CLAUDE_PROJECT_DIR"))
    if twice:
        if event == "SessionStart":
            import json

            where = ", ".join(os.path.dirname(os.path.dirname(path)) for path in twice)
            sys.stdout.write(json.dumps({"systemMessage": TWICE_MESSAGE.format(where=where)}) + "\n")
        return False
    data_dir = os.environ["CLAUDE_PLUGIN_DATA"]
    if is_ready(data_dir):
        os.environ["KIOKU_WORKER_PYTHON"] = venv_python(data_dir)
        return True
    os.environ["KIOKU_NO_WORKER"] = "1"  # queued jobs wait for the environment
    root = os.environ.get("CLAUDE_PLUGIN_ROOT", "")
    try:
        start_prepare(data_dir, root)
    except OSError:
        pass  # the next hook tries again
    return True


def start_prepare(data_dir: str, root: str) -> bool:
    """Start :func:`prepare` detached, unless it runs already or failed within the hour."""
    import time

    failed = os.path.join(data_dir, FAILED_MARKER)
    try:
        if time.time() - os.stat(failed).st_mtime < RETRY_AFTER_S:
            return False
    except FileNotFoundError:
        pass
    os.makedirs(data_dir, mode=0o700, exist_ok=True)
    if prepare_running(data_dir):
        return False
    import subprocess

    env = dict(os.environ)
    src = os.path.join(root, "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    subprocess.Popen([sys.executable, "-m", "kioku.install.plugin_env", "prepare", "--data", data_dir,
                      "--root", root], start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True, env=env,
                     cwd=data_dir)
    return True


def prepare_running(data_dir: str) -> bool:
    """Whether a :func:`prepare` process holds its lock now."""
    return lock_held(os.path.join(data_dir, PREPARE_LOCK))


def lock_held(path: str) -> bool:
    """Whether another process holds an flock on ``path`` (False when the file does not exist)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def prepare(data_dir: str, root: str) -> int:
    """Create (or refresh) the environment; runs detached, logs to ``prepare.log``."""
    import json
    import time
    from pathlib import Path

    from kioku.infra import clock, fsutil, jobs, paths
    from kioku.install import venv

    data, source = Path(data_dir), Path(root)
    with fsutil.try_lock(data / PREPARE_LOCK) as got:
        if not got:
            return 0
        log_path = data / PREPARE_LOG
        with log_path.open("a", encoding="utf-8") as log:
            def note(line: str) -> None:
                log.write(f"{clock.iso_z()} {line}\n")
                log.flush()

            deps = venv.runtime_deps(source)
            reuse_dirs = [d for d in os.environ.get(REUSE_ENV, "").split(os.pathsep) if d]
            try:
                if not is_ready(data_dir) or _stale(data / VENV_DIR, deps):
                    venv.create(data / VENV_DIR, sys.executable, deps, site_dirs=reuse_dirs or None, log=note)
            except Exception as exc:  # recorded for `kioku doctor`; retried after RETRY_AFTER_S
                note(f"failed: {exc}")
                fsutil.atomic_write_text(data / FAILED_MARKER, json.dumps(
                    {"error": str(exc)[-2000:], "time": time.time()}) + "\n")
                return 1
            (data / FAILED_MARKER).unlink(missing_ok=True)
            python = venv_python(data_dir)
            fsutil.atomic_write_text(paths.kioku_home() / POINTER_FILE, json.dumps(
                {"python": python, "data": str(data), "root": str(source)}, indent=2) + "\n")
            note(f"ready: {python}")
    if jobs.pending():
        os.environ["KIOKU_WORKER_PYTHON"] = python
        os.environ.pop("KIOKU_NO_WORKER", None)
        jobs.spawn_worker()
    return 0


def _stale(venv_dir, deps: list[str]) -> bool:
    from kioku.install import venv

    stamp = venv.current_stamp(venv_dir)
    return stamp is None or sorted(stamp.get("deps", [])) != sorted(deps)


def pointer() -> dict | None:
    """What :func:`prepare` recorded in Kioku's home, or None."""
    import json

    from kioku.infra import paths

    try:
        data = json.loads((paths.kioku_home() / POINTER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def run_cli(args: list[str]) -> int:
    """The plugin's ``kioku`` command: Kioku's environment when ready, else this Python."""
    record = pointer()
    python = record.get("python") if record else None
    if not (isinstance(python, str) and os.path.exists(python)):
        python = sys.executable  # memory commands need only the standard library
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    os.execve(python, [python, "-m", "kioku", *args], env)
    return 127  # not reached: execve replaces this process or raises


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["cli"]:
        return run_cli(args[1:])
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kioku.install.plugin_env")
    parser.add_argument("command", choices=["prepare"])
    parser.add_argument("--data", required=True, help="the plugin's data folder (CLAUDE_PLUGIN_DATA)")
    parser.add_argument("--root", required=True, help="the plugin's files (CLAUDE_PLUGIN_ROOT)")
    ns = parser.parse_args(args)
    return prepare(ns.data, ns.root)


if __name__ == "__main__":
    raise SystemExit(main())
