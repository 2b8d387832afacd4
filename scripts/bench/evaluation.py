"""Self-evaluation accuracy against labelled real transcripts: the rules, a model judge, and "always success".

    python scripts/bench/evaluation.py --data ../shared/bench/transcripts [--export DIR] [--verdicts DIR]
                                       [--json OUT] [--details]

Every file listed in the data folder's ``labels.json`` is judged by the code the worker and
``kioku eval transcript`` run:
- the rules: ``kioku.evaluation.per_turn.evaluate_path``;
- ``--export DIR``: writes the model judge's requests (``kioku.worker.judge_files.export_requests``,
  what ``kioku eval transcript --export-judge-prompts`` writes) and prints their size;
- ``--verdicts DIR``: a folder written by ``--export`` whose requests were answered (``F.answer``
  beside each ``F``): the turns are judged with those answers through the product's parser and
  fallback (``kioku.worker.judge_files.import_answers``, what ``kioku eval transcript --import-verdicts``
  runs), and scored beside the rules and the trivial "always success, no feedback, no errors".
Turns marked ``duplicate_of_prompt_index`` are dropped. Files are split in two halves by the
sha256 of their name, ``dev`` (tuned on) and ``holdout`` (reported only). Metrics:
- turns_found: labelled turns whose ``prompt_uuid`` Kioku found;
- outcome_accuracy: three classes, done (success/no_task), not done (partial/failed), interrupted;
- failures_caught: the share of not-done turns judged not done;
- negative-feedback precision and recall;
- agent_error_rel: sum |agent_errors - label| / sum label (counts are structural in every judge);
- judged_success_if_success / _if_failure: [judged "success", turns] among turns labelled success,
  and among those labelled partial, failed or interrupted: the judge's two rates, which the learning
  rule reads its evidence by (``kioku.evaluation.judge.calibration``);
- ``*_interval``: the 95 % Wilson score interval of each ratio.
With ``--verdicts`` it also prints what was sent: characters and estimated tokens per judged turn,
calls per session, the estimated cost per session at the default model's list price
(``kioku.model.settings.DEFAULTS``), and how many batches fell back to the rules.
Turns of ``compaction`` files count as found when Kioku skips them and are left out of the rest.
The label fields are read here only; ``src/kioku`` knows nothing of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from kioku.evaluation.per_turn import evaluate_path  # noqa: E402
from kioku.lessons.stats import wilson_interval  # noqa: E402
from kioku.model.settings import DEFAULTS  # noqa: E402

CLASS = {"success": "done", "no_task": "done", "partial": "not_done", "failed": "not_done",
         "interrupted": "interrupted"}
CHARS_PER_TOKEN = 4


def half(name: str) -> str:
    return "dev" if hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 == 0 else "holdout"


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def wilson(k: int, n: int) -> list[float] | None:
    return [round(x, 3) for x in wilson_interval(k, n)] if n else None


def score(pairs: list[tuple[dict, dict | None]], skipped: int) -> dict:
    """``pairs``: (label turn, predicted turn or None); ``skipped``: compaction turns left out."""
    found = sum(1 for _, p in pairs if p is not None) + skipped
    total = len(pairs) + skipped
    judged = [(lab, p) for lab, p in pairs if p is not None]
    correct = sum(1 for lab, p in judged if CLASS[lab["outcome"]] == CLASS[p["outcome"]])
    not_done = [(lab, p) for lab, p in judged if CLASS[lab["outcome"]] == "not_done"]
    caught = sum(1 for _, p in not_done if CLASS[p["outcome"]] == "not_done")
    neg_pred = [(lab, p) for lab, p in judged if p["feedback_on_previous"] == "negative"]
    neg_true = [(lab, p) for lab, p in judged if lab["feedback_on_previous"] == "negative"]
    neg_right = sum(1 for lab, _ in neg_pred if lab["feedback_on_previous"] == "negative")
    neg_found = sum(1 for _, p in neg_true if p["feedback_on_previous"] == "negative")
    succeeded = [p for lab, p in judged if lab["outcome"] == "success"]
    unsucceeded = [p for lab, p in judged if lab["outcome"] in ("partial", "failed", "interrupted")]
    err_abs = sum(abs(p["agent_errors"] - lab["agent_errors"]) for lab, p in judged)
    err_total = sum(lab["agent_errors"] for lab, _ in judged)
    return {
        "turns": total, "turns_found": _ratio(found, total),
        "outcome_accuracy": _ratio(correct, len(judged)),
        "failures_caught": _ratio(caught, len(not_done)), "not_done_turns": len(not_done),
        "negative_precision": _ratio(neg_right, len(neg_pred)), "negative_recall": _ratio(neg_found, len(neg_true)),
        "negative_turns": len(neg_true), "agent_error_rel": _ratio(err_abs, err_total),
        "judged_success_if_success": [sum(p["outcome"] == "success" for p in succeeded), len(succeeded)],
        "judged_success_if_failure": [sum(p["outcome"] == "success" for p in unsucceeded), len(unsucceeded)],
        "outcome_accuracy_interval": wilson(correct, len(judged)),
        "failures_caught_interval": wilson(caught, len(not_done)),
        "negative_precision_interval": wilson(neg_right, len(neg_pred)),
        "negative_recall_interval": wilson(neg_found, len(neg_true)),
    }


def labelled(data: Path) -> list[dict]:
    return json.loads((data / "labels.json").read_text(encoding="utf-8"))["files"]


def transcripts_of(data: Path) -> list[Path]:
    return [data / item["file"] for item in labelled(data) if (data / item["file"]).exists()]


def predictions(data: Path, mode: str, verdicts: Path | None = None) -> dict[str, tuple[str, dict[str, dict]]]:
    """file -> (kind, prompt_uuid -> predicted turn) for ``mode`` rules | model | always_success."""
    out: dict[str, tuple[str, dict[str, dict]]] = {}
    if mode == "model":
        from kioku.worker.judge_files import import_answers

        with tempfile.TemporaryDirectory() as scratch:
            results = import_answers(transcripts_of(data), verdicts, project_root=Path(scratch))
        for path, result in results:
            out[str(path.relative_to(data))] = (result.kind, {v.prompt_uuid: v.to_json() for v in result.verdicts})
        return out
    for path in transcripts_of(data):
        result = evaluate_path(path)
        out[str(path.relative_to(data))] = (result.kind, {v.prompt_uuid: v.to_json() for v in result.verdicts})
    return out


def run(data: Path, mode: str, verdicts: Path | None = None) -> tuple[dict, list[dict]]:
    preds = predictions(data, mode, verdicts) if mode != "always_success" else {}
    groups: dict[str, list] = {"dev": [], "holdout": []}
    skipped = {"dev": 0, "holdout": 0}
    details: list[dict] = []
    for item in labelled(data):
        name = item["file"]
        part = half(name)
        turns = [t for t in item.get("turns", []) if t.get("duplicate_of_prompt_index") is None]
        if not (data / name).exists():
            groups[part] += [(t, None) for t in turns]
            continue
        kind, by_uuid = preds.get(name, ("main", {}))
        if kind == "compaction" and mode != "always_success":
            skipped[part] += len(turns)
            continue
        for t in turns:
            if mode == "always_success":
                pred = {"outcome": "success", "feedback_on_previous": "none", "agent_errors": 0}
            else:
                pred = by_uuid.get(t["prompt_uuid"])
            groups[part].append((t, pred))
            details.append({"file": name, "half": part, "prompt_index": t["prompt_index"],
                            "label": t["outcome"], "predicted": pred and pred["outcome"],
                            "feedback": t["feedback_on_previous"],
                            "predicted_feedback": pred and pred["feedback_on_previous"],
                            "agent_errors": t["agent_errors"], "predicted_errors": pred and pred["agent_errors"],
                            "reason": pred and pred.get("reason", ""), "judged_by": pred and pred.get("judged_by", "")})
    report = {part: score(groups[part], skipped[part]) for part in ("dev", "holdout")}
    report["all"] = score(groups["dev"] + groups["holdout"], skipped["dev"] + skipped["holdout"])
    return report, details


def sent(verdicts: Path, data: Path, details: list[dict]) -> dict:
    """What the exported requests cost: characters and tokens per judged turn, calls per session."""
    index = json.loads((verdicts / "index.json").read_text(encoding="utf-8"))
    calls = index["calls"]
    turns = sum(len(c["turns"]) for c in calls)
    chars = sum(c["chars"] for c in calls)
    sessions = len({c["transcript"] for c in calls})
    answers = [verdicts / f"{c['file']}.answer" for c in calls]
    out_chars = sum(p.stat().st_size for p in answers if p.exists())
    in_tokens, out_tokens = chars / CHARS_PER_TOKEN, out_chars / CHARS_PER_TOKEN
    cost = (in_tokens * DEFAULTS["price_input_per_mtok"] + out_tokens * DEFAULTS["price_output_per_mtok"]) / 1e6
    fallbacks = sum(1 for d in details if str(d.get("judged_by") or "").startswith("rules ("))
    return {"calls": len(calls), "judged_turns": turns, "sessions": sessions,
            "chars_per_turn": round(chars / max(1, turns)), "tokens_per_turn": round(in_tokens / max(1, turns)),
            "answer_tokens_per_turn": round(out_tokens / max(1, turns)),
            "calls_per_session": round(len(calls) / max(1, sessions), 2),
            "usd_per_session": round(cost / max(1, sessions), 5), "answered": sum(p.exists() for p in answers),
            "turns_judged_by_rules_after_retry": fallbacks,
            "price_per_mtok": [DEFAULTS["price_input_per_mtok"], DEFAULTS["price_output_per_mtok"]]}


COLUMNS = ("turns", "turns_found", "outcome_accuracy", "failures_caught", "negative_precision", "negative_recall",
           "agent_error_rel")


def table(reports: dict[str, dict]) -> str:
    lines = ["| judge | half | " + " | ".join(COLUMNS) + " |", "|---|---|" + "---|" * len(COLUMNS)]
    for name, report in reports.items():
        for part in ("dev", "holdout", "all"):
            row = report[part]
            cells = ["-" if row[c] is None else str(row[c]) for c in COLUMNS]
            lines.append(f"| {name} | {part} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--export", type=Path, help="write the model judge's requests here and stop")
    parser.add_argument("--verdicts", type=Path, help="an answered export folder: score the model judge too")
    parser.add_argument("--json", type=Path, help="write the report (and per-turn details) here")
    parser.add_argument("--details", action="store_true", help="print the turns where a judge disagrees with the labels")
    args = parser.parse_args()
    if args.export:
        from kioku.worker.judge_files import export_requests

        with tempfile.TemporaryDirectory() as scratch:
            index = export_requests(transcripts_of(args.data), args.export, project_root=Path(scratch))
        turns = sum(len(c["turns"]) for c in index["calls"])
        chars = sum(c["chars"] for c in index["calls"])
        print(json.dumps({"calls": len(index["calls"]), "turns": turns, "chars_per_turn": round(chars / max(1, turns))}))
        return 0
    reports: dict[str, dict] = {}
    all_details: dict[str, list[dict]] = {}
    reports["rules"], all_details["rules"] = run(args.data, "rules")
    if args.verdicts:
        reports["model"], all_details["model"] = run(args.data, "model", args.verdicts)
    reports["always success"], _ = run(args.data, "always_success")
    print(table(reports))
    for name in [n for n in ("model", "rules") if n in reports]:
        row = reports[name]["all"]
        print(f"{name}, all, 95 % intervals: " + "; ".join(
            f"{key} {row[key]} {row[key + '_interval']}" for key in
            ("outcome_accuracy", "failures_caught", "negative_precision", "negative_recall")
            if row[key + "_interval"] is not None))
    cost = sent(args.verdicts, args.data, all_details["model"]) if args.verdicts else None
    if cost:
        print("sent: " + json.dumps(cost))
    if args.details:
        for name, details in all_details.items():
            for d in details:
                if d["label"] != d["predicted"] and CLASS[d["label"]] != CLASS.get(d["predicted"] or "", "") \
                        or d["feedback"] != d["predicted_feedback"] and "negative" in (d["feedback"], d["predicted_feedback"]):
                    print(name, json.dumps(d, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({"reports": reports, "sent": cost, "details": all_details},
                                        ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
