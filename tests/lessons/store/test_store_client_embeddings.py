"""The store's vectors are real all-MiniLM-L6-v2, offline; Chroma's default EF is never used."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from store_helpers import run_py

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "minilm_reference_embeddings.json"


def test_embedder_matches_sentence_transformers_reference():
    from kioku.retrieval.embedder import get_embedder

    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    texts = [item["text"] for item in data["items"]]
    ref = np.array([item["embedding"] for item in data["items"]], dtype=np.float32)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    got = get_embedder().embed(texts)
    assert got.shape == (len(texts), data["dim"]) == (len(texts), 384)
    cos = (got * ref).sum(axis=1)
    assert len(texts) >= 5
    assert cos.min() >= 0.99, list(zip(texts, cos.round(4)))


def test_store_vectors_are_the_embedder_vectors(store, store_dir):
    from kioku.lessons.store.client import Record
    from kioku.retrieval.embedder import get_embedder

    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    items = data["items"][:5]
    store.upsert("emb", "improvements", [Record(f"i{n}", it["text"], {}) for n, it in enumerate(items)])
    import chromadb

    col = chromadb.PersistentClient(path=str(store_dir)).get_collection("agent_emb_improvements")
    got = col.get(ids=["i0"], include=["embeddings"])["embeddings"][0]
    ref = np.array(items[0]["embedding"], dtype=np.float32)
    assert float(np.dot(got, ref) / np.linalg.norm(got) / np.linalg.norm(ref)) >= 0.99
    assert np.allclose(got, get_embedder().embed([items[0]["text"]])[0], atol=1e-5)


NO_DEFAULT_EF = r'''
import sys
from pathlib import Path
import chromadb
from chromadb.utils.embedding_functions import onnx_mini_lm_l6_v2 as onnx
from chromadb.api import types

calls = []
def forbid(name):
    def boom(self, input):  # chroma validates the (self, input) signature
        calls.append(name)
        raise RuntimeError("Chroma default embedding function reached: " + name)
    return boom
types.DefaultEmbeddingFunction.__call__ = forbid("DefaultEmbeddingFunction.__call__")
onnx.ONNXMiniLM_L6_V2.__call__ = forbid("ONNXMiniLM_L6_V2.__call__")
onnx.ONNXMiniLM_L6_V2._download_model_if_not_exists = lambda *a, **k: forbid("download")(None, None)
import httpx
httpx.Client.send = lambda *a, **k: forbid("httpx")(None, None)

from kioku.lessons.store.client import AgentStore, Record
s = AgentStore(Path(sys.argv[1]))
s.upsert("a", "improvements", [Record("x", "Cache compiled regexes", {"confidence": 0.8}),
                               Record("y", "Prefer pathlib over os.path", {})])
assert s.query("a", "improvements", "regular expressions", 1)[0].id == "x"
s.update_metadata("a", "improvements", ["x"], [{"usage_count": 1}])
s.upsert("a", "improvements", [Record("x", "Compile regexes once at import", {})])
assert s.get("a", "improvements", ids=["x"])[0].document.startswith("Compile")
s.copy_agent("a", "b"); s.delete("b", "improvements", ["y"]); s.drop_agent("b")
assert s.count("a", "improvements") == 2 and s.agents() == ["a"]
s.sync(); s.rebuild()
assert s.query("a", "improvements", "regular expressions", 1)[0].id == "x"
assert not calls, calls
print("ok")
'''


def test_default_embedding_function_is_never_reached(tmp_path):
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    out = run_py(NO_DEFAULT_EF, str(tmp_path / "c"), env={"HOME": str(empty_home),
                                                            "HTTPS_PROXY": "http://127.0.0.1:9",
                                                            "HTTP_PROXY": "http://127.0.0.1:9"})
    assert out.stdout.strip() == "ok"
    # the default EF would have created ~/.cache/chroma/onnx_models before downloading
    assert not (empty_home / ".cache" / "chroma").exists()
    # (onnxruntime itself writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid)
    assert not any("chroma" in str(p) or "huggingface" in str(p) for p in empty_home.rglob("*"))
