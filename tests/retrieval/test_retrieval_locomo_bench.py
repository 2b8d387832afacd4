"""scripts/bench/locomo.py on a synthetic LoCoMo-format file whose recall is known exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "bench" / "locomo.py"


def _turn(dia: str, speaker: str, text: str, **extra) -> dict:
    return {"speaker": speaker, "dia_id": dia, "text": text, **extra}


def _qa(question: str, evidence: list[str], category: int) -> dict:
    return {"question": question, "answer": "not used", "evidence": evidence, "category": category}


SAMPLES = [
    {
        "sample_id": "conv-a",
        "conversation": {
            "speaker_a": "Alice", "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("D1:1", "Alice", "Good morning, how are you?"),
                _turn("D1:2", "Bob", "I went hiking near the glacier yesterday."),
                _turn("D1:3", "Alice", "I finally saw a zebra at the zoo."),
                _turn("D1:4", "Bob", "Apple and banana smoothies are my favourite."),
                _turn("D1:5", "Alice", "My violin teacher moved away."),
                _turn("D1:6", "Bob", "I bought an apple tree."),
                _turn("D1:7", "Alice", "The trumpet concert was loud."),
                _turn("D1:8", "Bob", "Nothing new here.", img_url=["x"], blip_caption="a photo of a lighthouse"),
                _turn("D1:9", "Alice", "The orchestra plays jazz."),
            ],
            "session_2_date_time": "2:00 pm on 9 May, 2023",
            "session_2": [
                _turn("D2:1", "Bob", "We adopted a parrot."),
                _turn("D2:2", "Alice", "Cool!"),
                _turn("D2:3", "Bob", "It talks a lot."),
            ],
        },
        "qa": [
            _qa("Where did someone see a zebra?", ["D1:3"], 4),  # 1 / 1 / 1
            _qa("Who had a violin teacher?", ["D1:5; D2:3"], 1),  # split; D2:3 unreachable: 0.5 each
            _qa("When was the trumpet concert?", ["D:1:7"], 2),  # "D:1:7" reads D1:7: 1 / 1 / 1
            _qa("Anything about dinosaurs?", ["D9:99"], 3),  # id not in the conversation: skipped
            _qa("Did anyone see a glacier?", ["D1:2"], 5),  # adversarial, reported apart
            _qa("Who has seen the lighthouse?", ["D01:08"], 4),  # caption is part of the baseline unit: 1 / 1 / 1
            _qa("Who likes apple banana?", ["D1:6"], 4),  # gold ranks 2nd: 0 / 1 / 1
            _qa("Broken evidence?", ["D"], 1),  # nothing left: skipped
        ],
        "observation": {}, "session_summary": {}, "event_summary": {},
    },
    {
        "sample_id": "conv-b",
        "conversation": {
            "speaker_a": "Carol", "speaker_b": "Dan",
            "session_1_date_time": "1:00 pm on 1 June, 2023",
            "session_1": [
                _turn("D1:1", "Carol", "I love painting sunsets."),
                _turn("D1:2", "Dan", "I fix bicycles."),
            ],
        },
        "qa": [
            _qa("Who fixes bicycles?", ["D1:2"], 4),  # 1 / 1 / 1
            {"question": "Who paints sunsets?", "evidence": "D1:1", "category": "4"},  # a bare string: 1 / 1 / 1
            {"question": "No category?", "evidence": ["D1:1"]},  # skipped
            _qa("Unknown category", ["D1:2"], 6),  # not a metric category: ignored
        ],
    },
]


def _run(tmp_path: Path, *extra: str) -> tuple[dict, str]:
    data = tmp_path / "locomo-mini.json"
    data.write_text(json.dumps(SAMPLES), encoding="utf-8")
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(data), "--json", str(out), "--no-cache", *extra],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text(encoding="utf-8")), proc.stdout


@pytest.mark.slow
def test_bench_json_schema_and_exact_recall(tmp_path: Path) -> None:
    result, stdout = _run(tmp_path)
    assert set(result) == {"bm25", "dense", "kioku"}
    for name, row in result.items():
        for key in ("recall@1", "recall@5", "recall@10", "p50_ms"):
            assert isinstance(row[key], float), (name, key)
        assert 0.0 <= row["recall@1"] <= row["recall@5"] <= row["recall@10"] <= 1.0
        assert row["p50_ms"] > 0
        assert row["questions"] == 7 and row["adversarial"]["questions"] == 1
    kioku = result["kioku"]  # the product ranker: the turn's own words and the session date only
    for k in (1, 5, 10):
        assert 0.0 <= kioku[f"cutoff_recall@{k}"] <= kioku[f"recall@{k}"]
    assert "cutoff_recall@1" not in result["bm25"]
    bm25 = result["bm25"]
    # per question, averaged over all 7 questions of categories 1-4 (not per conversation)
    assert bm25["recall@1"] == pytest.approx(5.5 / 7, abs=1e-4)
    assert bm25["recall@5"] == pytest.approx(6.5 / 7, abs=1e-4)
    assert bm25["recall@10"] == pytest.approx(6.5 / 7, abs=1e-4)
    assert bm25["adversarial"]["recall@1"] == 1.0
    assert "2 conversations, 14 turns, 7 questions" in stdout


def test_bench_conversation_filter_and_lexical_row_only(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, "--retrievers", "bm25", "--conversations", "conv-b")
    assert list(result) == ["bm25"]
    assert result["bm25"]["recall@1"] == 1.0 and result["bm25"]["questions"] == 2
