"""Kioku: persistent, self-improving memory for Claude Code agents.

Nothing is imported eagerly here: hooks import submodules directly so that the
fast path pays only for what it uses.
"""

import os as _os

__version__ = "0.1.0"

# onnxruntime (the embedding runtime, also loaded by chromadb) keeps a device id and queues usage
# events for upload to Microsoft under ~/.cache/Microsoft unless this is set before its library
# loads. Kioku sends nothing anywhere; every entry point imports this package first.
_os.environ["ORT_DISABLE_TELEMETRY"] = "1"
