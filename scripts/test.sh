#!/usr/bin/env bash
# Runs Kioku's whole test suite on a fresh machine: creates .venv, installs Kioku with its
# test dependencies, installs the pinned Claude Code binary (npm) for the end-to-end tests,
# installs Debian's chromium for the browser tests, then runs pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE_CODE_VERSION="2.1.332"
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.kioku-deps-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test]'
  touch "$stamp"
fi

cc_dir=".cache/claude-code-$CLAUDE_CODE_VERSION"
if [ ! -x "$cc_dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe" ]; then
  mkdir -p "$cc_dir"
  (cd "$cc_dir" && npm install --no-save --no-audit --no-fund --loglevel=error \
      "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >/dev/null)
fi
export KIOKU_CLAUDE_BIN="$PWD/$cc_dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe"

# --- Browser for the web UI tests (tests/ui): Debian's chromium package, driven by Playwright
# (a test extra) through its executable path; Playwright never downloads a browser of its own.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "scripts/test.sh: install Debian's chromium package for the browser tests (tests/ui)" >&2
  fi
fi
if command -v chromium >/dev/null 2>&1; then
  export KIOKU_CHROMIUM="$(command -v chromium)"
fi
# --- end of the browser block

exec .venv/bin/python -m pytest "$@"
