"""The saved, pre-optimised model: made once, private, same vectors, stale copies removed, safe fallback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from kioku.retrieval.embedder import model_files
from kioku.retrieval.optimized_model import PREFIX, default_cache_dir, optimized_model

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference_embeddings.json"


def test_copy_is_made_once_private_and_replaces_stale_copies(tmp_path: Path) -> None:
    source, _ = model_files()
    cache = tmp_path / "models"
    cache.mkdir(mode=0o700)
    stale = cache / f"{PREFIX}0.0.1-1-1.onnx"
    stale.write_bytes(b"old runtime's copy")
    made = optimized_model(source, cache)
    assert made != source and made.parent == cache and made.is_file()
    assert made.stat().st_mode & 0o777 == 0o600
    assert not stale.exists()
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]
    stamp = made.stat().st_mtime_ns
    assert optimized_model(source, cache) == made and made.stat().st_mtime_ns == stamp


def test_unwritable_cache_falls_back_to_the_source_model(tmp_path: Path) -> None:
    source, _ = model_files()
    blocker = tmp_path / "models"
    blocker.write_text("a file where the folder should be")
    assert optimized_model(source, blocker) == source


SEARCH_PROCESS = r'''
import json, sys
import numpy as np
from kioku.retrieval.embedder import get_embedder
data = json.loads(open(sys.argv[1], encoding="utf-8").read())
texts = [item["text"] for item in data["items"]]
got = get_embedder().embed(texts)
ref = np.array([item["embedding"] for item in data["items"]], dtype=np.float32)
ref /= np.linalg.norm(ref, axis=1, keepdims=True)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent (pytest) across exec.
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"min_cos": float((got * ref).sum(axis=1).min()), "peak_mb": peak_kb / 1024}))
'''


def _embed_in_new_process(home: Path) -> dict:
    env = {**os.environ, "KIOKU_HOME": str(home)}
    env.pop("KIOKU_MODEL_CACHE", None)  # the default place, under the Kioku home
    out = subprocess.run([sys.executable, "-c", SEARCH_PROCESS, str(FIXTURE)], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_process_opening_the_saved_copy_is_smaller_and_embeds_the_same(tmp_path: Path) -> None:
    home = tmp_path / "kioku"
    first = _embed_in_new_process(home)   # optimises the model and saves the copy
    assert list((home / "state" / "models").glob(f"{PREFIX}*.onnx"))
    later = _embed_in_new_process(home)   # opens the saved copy
    assert first["min_cos"] >= 0.99 and later["min_cos"] >= 0.99
    assert later["peak_mb"] < first["peak_mb"] - 30, (first, later)  # the optimising step is gone
    assert later["peak_mb"] < 250, later


def test_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KIOKU_MODEL_CACHE", str(tmp_path / "model-cache"))
    assert default_cache_dir() == tmp_path / "model-cache"
    monkeypatch.delenv("KIOKU_MODEL_CACHE")
    assert default_cache_dir() == Path(os.environ["KIOKU_HOME"]) / "state" / "models"


def test_embedding_leaves_no_onnxruntime_usage_events_behind(tmp_path: Path) -> None:
    # onnxruntime keeps a device id and queues usage events for upload under ~/.cache/Microsoft
    # unless told not to before it loads; Kioku turns that off, whatever the environment says
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "KIOKU_HOME": str(home / "kioku"), "ORT_DISABLE_TELEMETRY": "0"}
    code = "from kioku.retrieval.embedder import get_embedder; print(len(get_embedder().embed(['a note'])))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "1", out.stderr[-500:]
    assert not (home / ".cache" / "Microsoft").exists()
