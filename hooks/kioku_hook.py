#!/usr/bin/env python3
"""Claude Code hook launcher for every event: ``kioku_hook.py EVENT`` (e.g. ``Stop``).

The logic is kioku.hooks.<event>, reached through kioku.hooks.dispatch.run. Two layouts run
this same file:

- ``install.py`` copies it to ``<claude dir>/kioku/hooks/`` and settings.json runs it with
  Kioku's own venv python, which holds the kioku package;
- the Claude Code plugin runs it from ``${CLAUDE_PLUGIN_ROOT}/hooks/`` with the system
  ``python3`` and the package in ``../src``. The memory paths need only the standard library;
  kioku.install.plugin_env decides whether Kioku's full environment (Chroma, the model) is
  ready and prepares it in the background when it is not.

Fail-open: always exit 0. Inside a model run Kioku started (KIOKU_NESTED_RUN) it exits at once.
"""
import os.path
import sys

if os.environ.get("KIOKU_NESTED_RUN"):  # inside a model run Kioku started: never recurse
    raise SystemExit(0)
if sys.version_info < (3, 11):
    sys.stderr.write(f"kioku: hooks need Python 3.11 or newer (python3 is {sys.version.split()[0]})\n")
    raise SystemExit(0)
_src = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "src")
if os.path.isfile(os.path.join(_src, "kioku", "__init__.py")):  # a source checkout or the plugin
    sys.path.insert(0, _src)
EVENT = sys.argv[1] if len(sys.argv) > 1 else ""
try:
    if os.environ.get("CLAUDE_PLUGIN_ROOT") and os.environ.get("CLAUDE_PLUGIN_DATA"):
        from kioku.install.plugin_env import before_plugin_hook

        if not before_plugin_hook(EVENT):
            raise SystemExit(0)
    from kioku.hooks.dispatch import run
except SystemExit:
    raise
except Exception as exc:  # kioku not importable: never break the session
    sys.stderr.write(f"kioku: {EVENT or 'hook'} unavailable: {exc}\n")
    raise SystemExit(0)
raise SystemExit(run(EVENT))
