#!/usr/bin/env python3
"""Install Kioku into Claude Code: ``python3 install.py [--project DIR] [--dry-run] [--uninstall]``.

A launcher only; the installer is kioku.install.installer (run ``--help`` for every option).
"""
import sys
from pathlib import Path

if sys.version_info < (3, 11):
    sys.exit(f"Kioku needs Python 3.11 or newer (this is {sys.version.split()[0]}); "
             "run it with e.g. python3.11 install.py")
ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "src"))

from kioku.install.installer import main  # noqa: E402

raise SystemExit(main(source_root=ROOT))
