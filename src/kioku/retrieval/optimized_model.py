"""A pre-optimised copy of the ONNX embedding model, so a search process stays small.

Contract::

    optimized_model(source, cache_dir) -> Path   # the cached copy, or ``source`` if it cannot be made

Why: onnxruntime optimises a graph every time it opens it. For the int8 MiniLM export that
step folds the int8 weights into float32 ones and, while doing so, briefly holds both copies
plus the graph's working state: a process that only opens the model peaks at about 265 MB,
of which about 60 MB is gone once the session is built. Opening a graph that was optimised
once and saved (with optimisation then switched off) skips that peak and runs the same
operators, so the vectors are identical and query latency is unchanged.

The copy is derived data under Kioku's state folder, or in ``$KIOKU_MODEL_CACHE`` (about
90 MB, float32 weights; several Kioku homes on one machine, such as test runs, can share one). Its name
carries the onnxruntime version and the source file's size and modification time, so an
upgrade of either makes a new copy and older copies are deleted. Only the portable "basic"
optimisations are saved (no hardware-specific fused kernels). It is written to a private
temporary file and renamed into place, so concurrent processes never read a partial copy;
any failure falls back to the source model.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from kioku.infra.fsutil import ensure_private_dir

PREFIX = "minilm-basic-"
CACHE_ENV = "KIOKU_MODEL_CACHE"  # a folder for the copy instead of <kioku home>/state/models


def default_cache_dir() -> Path:
    """``$KIOKU_MODEL_CACHE`` if set, else ``<kioku home>/state/models``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    from kioku.infra import paths

    return paths.state_dir() / "models"


def cache_name(source: Path, runtime_version: str) -> str:
    stat = source.stat()
    return f"{PREFIX}{runtime_version}-{stat.st_size}-{int(stat.st_mtime)}.onnx"


def _remove_stale(cache_dir: Path, keep: str) -> None:
    for path in cache_dir.glob(f"{PREFIX}*.onnx"):
        if path.name != keep:
            with contextlib.suppress(OSError):
                path.unlink()


def optimized_model(source: Path, cache_dir: Path) -> Path:
    """Path of the saved optimised graph for ``source``, made on first use."""
    try:
        import onnxruntime

        name = cache_name(source, onnxruntime.__version__)
        target = cache_dir / name
        if target.is_file():
            return target
        ensure_private_dir(cache_dir)
        temp = cache_dir / f".{name}.{os.getpid()}.tmp"
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(temp)
        try:
            onnxruntime.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
            os.chmod(temp, 0o600)
            os.replace(temp, target)
        finally:
            with contextlib.suppress(OSError):
                temp.unlink()
        _remove_stale(cache_dir, keep=name)
        return target
    except Exception:  # derived data: the source model always works
        return source
