"""Self-evaluation accuracy against labelled real transcripts.

    python scripts/bench/evaluation.py --data ../shared/bench/transcripts [--json OUT] [--baseline]

Runs Kioku's per-turn evaluator (``kioku.evaluation.per_turn.evaluate_path``, the code the
worker and ``kioku eval transcript`` run) on every file listed in the data folder's
``labels.json`` and compares with the labels (turns marked ``duplicate_of_prompt_index`` are
dropped). The files are split in two halves by the sha256 of their name: ``dev`` (tuned on)
and ``holdout`` (reported only). Metrics per half and overall:
- turns_found: labelled turns whose ``prompt_uuid`` Kioku found;
- outcome_accuracy: three classes, done (success/no_task), not done (partial/failed), interrupted;
- not_done_recall; negative-feedback precision and recall;
- agent_error_rel: sum |agent_errors - label| / sum label;
- ``*_interval``: the 95 % Wilson score interval of each ratio (its count and denominator),
  printed for Kioku under the table: with a few turns per half, how far a figure can be trusted.
Turns of files whose kind is ``compaction`` count as found when Kioku skips the file (evaluation
skips compaction side-runs on purpose) and are left out of the outcome metrics.
The trivial "always success, no feedback, no errors" evaluator is scored beside it.
The label fields are read here only; ``src/kioku`` knows nothing of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from kioku.lessons.stats import wilson_interval  # noqa: E402
from kioku.evaluation.per_turn import evaluate_path  # noqa: E402

CLASS = {"success": "done", "no_task": "done", "partial": "not_done", "failed": "not_done",
         "interrupted": "interrupted"}


def half(name: str) -> str:
    return "dev" if hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 == 0 else "holdout"


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def wilson(k: int, n: int) -> list[float] | None:
    """95 % Wilson score interval of ``k`` successes in ``n`` trials (``kioku.lessons.stats``)."""
    return [round(x, 3) for x in wilson_interval(k, n)] if n else None


def score(pairs: list[tuple[dict, dict | None]], skipped: int) -> dict:
    """``pairs``: (label turn, predicted turn or None); ``skipped``: compaction turns left out."""
    found = sum(1 for _, p in pairs if p is not None) + skipped
    total = len(pairs) + skipped
    judged = [(lab, p) for lab, p in pairs if p is not None]
    correct = sum(1 for lab, p in judged if CLASS[lab["outcome"]] == CLASS[p["outcome"]])
    not_done = [(lab, p) for lab, p in judged if CLASS[lab["outcome"]] == "not_done"]
    nd_hit = sum(1 for _, p in not_done if CLASS[p["outcome"]] == "not_done")
    neg_pred = [(lab, p) for lab, p in judged if p["feedback_on_previous"] == "negative"]
    neg_true = [(lab, p) for lab, p in judged if lab["feedback_on_previous"] == "negative"]
    err_abs = sum(abs(p["agent_errors"] - lab["agent_errors"]) for lab, p in judged)
    err_total = sum(lab["agent_errors"] for lab, _ in judged)
    neg_right = sum(1 for lab, _ in neg_pred if lab["feedback_on_previous"] == "negative")
    neg_found = sum(1 for _, p in neg_true if p["feedback_on_previous"] == "negative")
    return {
        "turns": total, "turns_found": _ratio(found, total),
        "outcome_accuracy": _ratio(correct, len(judged)),
        "not_done_recall": _ratio(nd_hit, len(not_done)), "not_done_turns": len(not_done),
        "negative_precision": _ratio(sum(1 for lab, _ in neg_pred if lab["feedback_on_previous"] == "negative"),
                                     len(neg_pred)),
        "negative_recall": _ratio(sum(1 for _, p in neg_true if p["feedback_on_previous"] == "negative"),
                                  len(neg_true)),
        "negative_turns": len(neg_true),
        "agent_error_rel": _ratio(err_abs, err_total),
        "outcome_accuracy_interval": wilson(correct, len(judged)),
        "not_done_recall_interval": wilson(nd_hit, len(not_done)),
        "negative_precision_interval": wilson(neg_right, len(neg_pred)),
        "negative_recall_interval": wilson(neg_found, len(neg_true)),
    }


def baseline_turn(label: dict) -> dict:
    return {"outcome": "success", "feedback_on_previous": "none", "agent_errors": 0}


def run(data: Path, mode: str) -> tuple[dict, list[dict]]:
    """``mode``: "kioku" or "always_success"."""
    use_baseline = mode == "always_success"
    labels = json.loads((data / "labels.json").read_text(encoding="utf-8"))
    groups: dict[str, list] = {"dev": [], "holdout": []}
    skipped = {"dev": 0, "holdout": 0}
    details: list[dict] = []
    for item in labels["files"]:
        name = item["file"]
        part = half(name)
        turns = [t for t in item.get("turns", []) if t.get("duplicate_of_prompt_index") is None]
        path = data / name
        if not path.exists():
            groups[part] += [(t, None) for t in turns]
            continue
        result = evaluate_path(path)
        if result.kind == "compaction" and not use_baseline:
            skipped[part] += len(turns)
            continue
        by_uuid = {v.prompt_uuid: v.to_json() for v in result.verdicts}
        for t in turns:
            pred = baseline_turn(t) if use_baseline else by_uuid.get(t["prompt_uuid"])
            groups[part].append((t, pred))
            details.append({"file": name, "half": part, "prompt_index": t["prompt_index"],
                            "label": t["outcome"], "predicted": pred and pred["outcome"],
                            "feedback": t["feedback_on_previous"], "predicted_feedback": pred and pred["feedback_on_previous"],
                            "agent_errors": t["agent_errors"], "predicted_errors": pred and pred["agent_errors"],
                            "reason": pred and pred.get("reason", "")})
        extra = [v.prompt_uuid for v in result.verdicts
                 if v.prompt_uuid not in {t["prompt_uuid"] for t in item.get("turns", [])}]
        if extra and mode == "kioku":
            details.append({"file": name, "half": part, "extra_turns": extra})
    report = {part: score(groups[part], skipped[part]) for part in ("dev", "holdout")}
    report["all"] = score(groups["dev"] + groups["holdout"], skipped["dev"] + skipped["holdout"])
    return report, details


COLUMNS = ("turns", "turns_found", "outcome_accuracy", "not_done_recall", "negative_precision", "negative_recall",
           "agent_error_rel")


def table(reports: dict[str, dict]) -> str:
    lines = ["| evaluator | half | " + " | ".join(COLUMNS) + " |", "|---|---|" + "---|" * len(COLUMNS)]
    for name, report in reports.items():
        for part in ("dev", "holdout", "all"):
            row = report[part]
            cells = ["-" if row[c] is None else str(row[c]) for c in COLUMNS]
            lines.append(f"| {name} | {part} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--json", type=Path, help="write the report (and per-turn details) here")
    parser.add_argument("--details", action="store_true", help="print mismatching turns")
    args = parser.parse_args()
    kioku, details = run(args.data, "kioku")
    baseline, _ = run(args.data, "always_success")
    print(table({"kioku": kioku, "always-success baseline": baseline}))
    for part in ("dev", "holdout", "all"):
        row = kioku[part]
        print(f"kioku {part}, 95 % intervals: " + "; ".join(
            f"{name} {row[name]} {row[name + '_interval']}" for name in
            ("outcome_accuracy", "not_done_recall", "negative_precision", "negative_recall")
            if row[name + "_interval"] is not None))
    if args.details:
        for d in details:
            if "extra_turns" in d or d["label"] != d["predicted"] or d["feedback"] != d["predicted_feedback"] \
                    or d["agent_errors"] != d["predicted_errors"]:
                print(json.dumps(d, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({"kioku": kioku, "baseline": baseline,
                                         "details": details},
                                        ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
