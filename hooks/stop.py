#!/usr/bin/env python3
"""Claude Code Stop hook: a launcher only; the logic is kioku.handlers.stop.

Fail-open: kioku.core.hookio.run always exits 0. Installed copies run with Kioku's own venv
python (which has the kioku package); in a source checkout ../src is used instead.
"""
import os.path
import sys

_src = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "src")
if os.path.isfile(os.path.join(_src, "kioku", "__init__.py")):  # a source checkout
    sys.path.insert(0, _src)
try:
    from kioku.core.hookio import run
except Exception as exc:  # kioku not importable: never break the session
    sys.stderr.write(f"kioku: Stop hook unavailable: {exc}\n")
    raise SystemExit(0)
raise SystemExit(run("Stop"))
