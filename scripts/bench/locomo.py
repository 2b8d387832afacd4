#!/usr/bin/env python3
"""Evidence-recall benchmark on LoCoMo-format conversations.

Usage::

    python scripts/bench/locomo.py --data ../shared/bench/locomo-dev.json [--json OUT]
        [--retrievers bm25,dense,kioku] [--conversations conv-26,conv-30] [--no-cache]

Metric (exactly ../shared/bench/README.md): one unit per turn of the question's own
conversation, unit text ``<speaker> said, "<text>"`` (+ `` and shared <blip_caption>``);
the question alone is the query; recall@k = |gold dia_ids in the top k| / |gold dia_ids|,
averaged over questions of categories 1-4; category 5 (adversarial) is reported apart.
Evidence clean-up: "D8:6; D9:17" is split, "D:11:26" reads D11:26, "D30:05" reads D30:5,
ids absent from the conversation are dropped, questions left without gold ids are skipped.
The ``answer`` field is never read.

Retrievers: ``bm25`` = the README baseline (k1=1.2, b=0.75, lower-cased ``\\w+`` words,
English stopwords removed) on the metric's unit text; ``dense`` = all-MiniLM-L6-v2 cosine on
the metric's unit text; ``kioku`` = the product path: each turn becomes a memory carrying only
what a memory carries (the turn's own words, and the session date as the memory's date) and is
ranked by ``kioku.retrieval.hybrid.HybridIndex`` with its default configuration, the ranker
``kioku search`` runs. No speaker, neighbour or caption field reaches it. Its row also reports
``cutoff_recall@k``: recall when units failing ``kioku search``'s relevance cut-off are dropped.

Latency: ``p50_ms`` is the median per-query wall time in a warm process (indexes built and
the model loaded beforehand; the query embedding is computed inside the timed call);
``p50_cpu_ms`` is the same in CPU time of this process (wall time inflates when the machine
is shared); ``p50_ms_largest`` is the wall p50 on the conversation with the most turns;
``build_s`` is the index build time. Unit embeddings are cached on disk in
``<repo>/.cache/locomo-embeddings/`` keyed by a hash of the text, so reruns skip the
embedding (~6,000 texts, ~40 s on an idle machine).

``--cv``: leave-conversations-out validation of the product ranker's parameters. The
conversations are split in two halves; a grid of HybridConfig values (k1/b, and the dense,
coverage and date weights) is scored (mean of R@5 and R@10) on one half, and the best is
reported on the other half, in both directions, next to the default configuration.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from kioku.retrieval.bm25 import BM25Index  # noqa: E402
from kioku.retrieval.text import word_tokens  # noqa: E402

KS = (1, 5, 10)
CACHE_DIR = REPO / ".cache" / "locomo-embeddings"
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str  # the unit text of the metric
    raw: str  # the turn's own words
    session: int
    date: str
    blip: str = ""


@dataclass
class Question:
    question: str
    category: int
    gold: list[str]


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)
    skipped: int = 0


def unit_text(turn: dict) -> str:
    text = f'{turn["speaker"]} said, "{turn["text"]}"'
    if turn.get("blip_caption"):
        text += f' and shared {turn["blip_caption"]}'
    return text


def clean_evidence(evidence: Sequence[str], known: set[str]) -> list[str]:
    gold: list[str] = []
    for item in evidence:
        for part in re.split(r"[;,]", str(item)):
            for s, t in _EVIDENCE.findall(part.strip()):
                dia = f"D{int(s)}:{int(t)}"
                if dia in known and dia not in gold:
                    gold.append(dia)
    return gold


def load(path: Path) -> list[Conversation]:
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        numbers = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        turns = [
            Turn(t["dia_id"], t["speaker"], unit_text(t), t["text"], n,
                 str(conv.get(f"session_{n}_date_time", "")), t.get("blip_caption") or "")
            for n in numbers
            for t in conv[f"session_{n}"]
        ]
        c = Conversation(str(sample.get("sample_id", len(conversations))), turns)
        known = {t.dia_id for t in turns}
        for qa in sample.get("qa") or []:
            evidence = qa.get("evidence") or []
            gold = clean_evidence([evidence] if isinstance(evidence, str) else evidence, known)
            try:
                category = int(qa.get("category"))
            except (TypeError, ValueError):
                category = 0  # unknown category: neither 1-4 nor adversarial
            if not gold or category == 0 or not str(qa.get("question") or "").strip():
                c.skipped += 1
                continue
            c.questions.append(Question(str(qa["question"]), category, gold))
        conversations.append(c)
    return conversations


# -- embeddings with an on-disk cache ------------------------------------------------------
class EmbeddingCache:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.path = CACHE_DIR / "all-MiniLM-L6-v2.npz"
        self.vectors: dict[str, object] = {}
        if enabled and self.path.exists():
            import numpy as np

            with np.load(self.path) as data:
                self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))
        self.dirty = False

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def embed(self, texts: Sequence[str]):
        import numpy as np

        from kioku.retrieval.embedder import get_embedder

        keys = [self.key(t) for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in self.vectors}.items())
        if missing:
            vecs = get_embedder().embed([t for _, t in missing])
            for (k, _), v in zip(missing, vecs):
                self.vectors[k] = v
            self.dirty = True
        return np.stack([self.vectors[k] for k in keys])

    def save(self) -> None:
        if not (self.enabled and self.dirty):
            return
        import numpy as np

        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.vectors)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        tmp.replace(self.path)


# -- retrievers: build(conv) -> search(question, k) -> list[dia_id] --------------------------
Search = Callable[[str, int], list[str]]


def build_bm25(conv: Conversation, cache: EmbeddingCache) -> Search:
    idx = BM25Index.from_items([(t.dia_id, t.text) for t in conv.turns], k1=1.2, b=0.75, tokenizer=word_tokens)
    return lambda q, k: [d for d, _ in idx.search(q, k)]


def build_dense(conv: Conversation, cache: EmbeddingCache) -> Search:
    import numpy as np

    from kioku.retrieval.embedder import get_embedder

    matrix = cache.embed([t.text for t in conv.turns])
    ids = [t.dia_id for t in conv.turns]
    embedder = get_embedder()

    def search(q: str, k: int) -> list[str]:
        sims = matrix @ embedder.embed([q])[0]
        top = np.argsort(-sims, kind="stable")[:k]
        return [ids[i] for i in top]

    return search


def kioku_index(conv: Conversation, cache: EmbeddingCache, config=None, embed_query=None):
    """The product ranker over the conversation's turns, each turn one memory (text + date)."""
    from kioku.retrieval.embedder import get_embedder
    from kioku.retrieval.hybrid import HybridConfig, HybridIndex, Unit

    units = [Unit(t.dia_id, t.raw, date=t.date) for t in conv.turns]
    # unit embeddings come from the disk cache; the query is embedded live (part of the latency)
    return HybridIndex(units, dense=True, config=config or HybridConfig(), embed=cache.embed,
                       embed_query=embed_query or get_embedder().embed)


def build_kioku(conv: Conversation, cache: EmbeddingCache) -> Search:
    index = kioku_index(conv, cache)

    def search(q: str, k: int) -> list[str]:
        ranked = index.ranked(q, k)
        search.cutoff = [s.id for s in ranked if s.relevant]  # type: ignore[attr-defined]
        return [s.id for s in ranked]

    return search


RETRIEVERS: dict[str, Callable[..., Search]] = {"bm25": build_bm25, "dense": build_dense, "kioku": build_kioku}


def recall(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    top = set(ranked[:k])
    return sum(1 for g in gold if g in top) / len(gold)


def evaluate(conversations: Sequence[Conversation], builder: Callable[..., Search], cache: EmbeddingCache) -> dict:
    sums = {k: 0.0 for k in KS}
    cut = {k: 0.0 for k in KS}
    adv = {k: 0.0 for k in KS}
    n = n_adv = 0
    latencies: list[float] = []
    cpu: list[float] = []  # CPU time of this process: the cost when the machine is not contended
    build_s = 0.0
    largest = max(conversations, key=lambda c: len(c.turns)).sample_id if conversations else None
    largest_ms: list[float] = []
    for conv in conversations:
        t0 = time.perf_counter()
        search = builder(conv, cache)
        build_s += time.perf_counter() - t0
        if conv.questions:  # warm-up: loads the model / first-call costs outside the timing
            search(conv.questions[0].question, max(KS))
        for q in conv.questions:
            c0 = time.process_time()
            t0 = time.perf_counter()
            ranked = search(q.question, max(KS))
            latencies.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            if conv.sample_id == largest:
                largest_ms.append(latencies[-1])
            if q.category in (1, 2, 3, 4):
                target, n = sums, n + 1
            elif q.category == 5:
                target, n_adv = adv, n_adv + 1
            else:
                continue  # a category the metric does not define
            for k in KS:
                target[k] += recall(ranked, q.gold, k)
                if target is sums and hasattr(search, "cutoff"):
                    cut[k] += recall(search.cutoff, q.gold, k)
    out = {f"recall@{k}": round(sums[k] / n, 4) if n else 0.0 for k in KS}
    if hasattr(search, "cutoff"):
        out.update({f"cutoff_recall@{k}": round(cut[k] / n, 4) if n else 0.0 for k in KS})
    out["p50_ms"] = round(statistics.median(latencies), 3) if latencies else 0.0
    out["p50_cpu_ms"] = round(statistics.median(cpu), 3) if cpu else 0.0
    out["p50_ms_largest"] = {
        "sample_id": largest, "turns": max((len(c.turns) for c in conversations), default=0),
        "p50_ms": round(statistics.median(largest_ms), 3) if largest_ms else 0.0,
    }
    out["build_s"] = round(build_s, 3)
    out["questions"] = n
    out["adversarial"] = {f"recall@{k}": round(adv[k] / n_adv, 4) if n_adv else 0.0 for k in KS}
    out["adversarial"]["questions"] = n_adv
    return out


CV_GRID = {
    "k1b": [(0.9, 0.4), (1.2, 0.75)],
    "dense_weight": [0.7, 1.0, 1.3, 1.6, 2.0],
    "coverage_fusion": [0.0, 1.0, 2.0],
    "date_weight": [0.0, 0.5, 0.8, 1.2],
}


def cross_validate(conversations: Sequence[Conversation], cache: EmbeddingCache) -> dict:
    """Tune on one half of the conversations, test on the other, both ways (see module doc)."""
    import itertools

    import numpy as np

    from kioku.retrieval.hybrid import HybridConfig

    half = len(conversations) // 2
    folds = {"A": list(conversations[:half]), "B": list(conversations[half:])}
    # table[config][sample_id] = (sum R@1, sum R@5, sum R@10, n) over categories 1-4
    table: dict[HybridConfig, dict[str, np.ndarray]] = {}
    for k1, b in CV_GRID["k1b"]:
        for conv in conversations:
            index = kioku_index(conv, cache, HybridConfig(k1=k1, b=b), embed_query=cache.embed)
            ids = [t.dia_id for t in conv.turns]
            qs = [q for q in conv.questions if q.category in (1, 2, 3, 4)]
            comps = [index.components(q.question) for q in qs]
            for dw, cf, daw in itertools.product(CV_GRID["dense_weight"], CV_GRID["coverage_fusion"],
                                                 CV_GRID["date_weight"]):
                cfg = HybridConfig(k1=k1, b=b, dense_weight=dw, coverage_fusion=cf, date_weight=daw)
                acc = np.zeros(4)
                for q, comp in zip(qs, comps):
                    scores = index.combine(comp, cfg)
                    top = np.argpartition(-scores, max(KS))[: max(KS)] if len(scores) > max(KS) else np.arange(len(scores))
                    ranked = [ids[i] for i in sorted(top.tolist(), key=lambda i: (-scores[i], i))]
                    acc += [*(recall(ranked, q.gold, k) for k in KS), 1]
                table.setdefault(cfg, {})[conv.sample_id] = acc

    def fold_score(cfg: HybridConfig, fold: str) -> dict:
        tot = sum(table[cfg][c.sample_id] for c in folds[fold])
        return {f"recall@{k}": round(tot[i] / tot[3], 4) for i, k in enumerate(KS)}

    out: dict = {"folds": {f: [c.sample_id for c in cs] for f, cs in folds.items()}}
    default = HybridConfig()
    for train, test in (("A", "B"), ("B", "A")):
        best = max(table, key=lambda c: (fold_score(c, train)["recall@5"] + fold_score(c, train)["recall@10"]))
        out[f"tune_{train}_test_{test}"] = {
            "config": {k: getattr(best, k) for k in ("k1", "b", "dense_weight", "coverage_fusion", "date_weight")},
            "train": fold_score(best, train), "test": fold_score(best, test),
            "default_on_test": fold_score(default, test) if default in table else None,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, help="LoCoMo-format JSON file")
    parser.add_argument("--json", type=Path, help="write results as JSON here")
    parser.add_argument("--retrievers", default="bm25,dense,kioku")
    parser.add_argument("--conversations", default="", help="comma-separated sample ids (default: all)")
    parser.add_argument("--cv", action="store_true", help="leave-conversations-out tuning check (kioku)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")
    args = parser.parse_args(argv)

    conversations = load(args.data)
    if args.conversations:
        wanted = set(args.conversations.split(","))
        conversations = [c for c in conversations if c.sample_id in wanted]
    cache = EmbeddingCache(enabled=not args.no_cache)
    results: dict[str, dict] = {}
    if args.cv:
        try:
            cv = cross_validate(conversations, cache)
        finally:
            cache.save()
        print(json.dumps(cv, indent=2))
        if args.json:
            args.json.write_text(json.dumps(cv, indent=2) + "\n", encoding="utf-8")
        return 0
    try:
        for name in [r.strip() for r in args.retrievers.split(",") if r.strip()]:
            results[name] = evaluate(conversations, RETRIEVERS[name], cache)
    finally:
        cache.save()

    n_turns = sum(len(c.turns) for c in conversations)
    n_q = next(iter(results.values()))["questions"] if results else 0
    print(f"{len(conversations)} conversations, {n_turns} turns, {n_q} questions (categories 1-4)")
    print(f"{'retriever':<10} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'p50 ms':>8} {'cpu ms':>7} {'build s':>8}   adversarial R@5/R@10")
    for name, r in results.items():
        a = r["adversarial"]
        print(f"{name:<10} {r['recall@1']:>6.3f} {r['recall@5']:>6.3f} {r['recall@10']:>6.3f} "
              f"{r['p50_ms']:>8.2f} {r['p50_cpu_ms']:>7.2f} {r['build_s']:>8.2f}   {a['recall@5']:.3f}/{a['recall@10']:.3f}")
    if results:
        big = next(iter(results.values()))["p50_ms_largest"]
        print(f"p50 ms on the largest conversation ({big['sample_id']}, {big['turns']} turns): "
              + ", ".join(f"{name} {r['p50_ms_largest']['p50_ms']:.2f}" for name, r in results.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
