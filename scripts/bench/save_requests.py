#!/usr/bin/env python3
"""Which prompts the UserPromptSubmit hook saves, on a set written without reading the detector.

Usage::

    python scripts/bench/save_requests.py [--data scripts/bench/data/save_requests.json] [--json OUT] [--show]

The set (``scripts/bench/data/save_requests.json``): ``save`` prompts that ask to keep something
for future sessions (each with the fact a reader would keep) and ``no_save`` prompts that must
not be kept (current-task facts, recall questions, reminders for now, file saves, quoted text),
in English and Japanese. A reviewer wrote them without reading Kioku's detector, its tests or its
docs. Each prompt goes through the hook's own handler (``kioku.hooks.user_prompt_submit.handle``,
what the installed hook runs) in a fresh throw-away project; it counts as saved when the hook
answers "Saved to memory" or "Already in memory". The prompts are split in two halves by the
CRC32 of their text (even: ``tune``, odd: ``holdout``); rules may be written against the tune
half's misses only, and the holdout half is the figure to quote.

Reported per half: ``saved`` (share of ``save`` prompts kept) and ``false_saves`` (share of
``no_save`` prompts kept), with counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO / "scripts" / "bench" / "data" / "save_requests.json"


def half_of(prompt: str) -> str:
    return "tune" if zlib.crc32(prompt.encode("utf-8")) % 2 == 0 else "holdout"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--json", type=Path, help="write the figures (and each prompt's outcome) here")
    ap.add_argument("--show", action="store_true", help="print the misses and the false saves")
    args = ap.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))

    with tempfile.TemporaryDirectory(prefix="kioku-save-bench-") as tmp:
        base = Path(tmp)
        os.environ.update(HOME=str(base / "home"), KIOKU_HOME=str(base / "kioku"),
                          CLAUDE_CONFIG_DIR=str(base / "home" / ".claude"))
        os.environ.pop("KIOKU_DISABLE", None)
        sys.path.insert(0, str(REPO / "src"))
        from kioku.hooks.user_prompt_submit import handle

        outcomes: dict[str, list[dict]] = {"save": [], "no_save": []}
        for kind in ("save", "no_save"):
            for n, row in enumerate(data[kind]):
                project = base / "projects" / f"{kind}-{n}"
                (project / ".git").mkdir(parents=True)
                result = handle({"hook_event_name": "UserPromptSubmit", "prompt": row["prompt"],
                                 "cwd": str(project), "session_id": f"bench-{kind}-{n}",
                                 "transcript_path": str(project / "t.jsonl")})
                context = (result.additional_context or "") if result else ""
                saved = context.startswith(("Saved to memory", "Already in memory"))
                outcomes[kind].append({"prompt": row["prompt"], "half": half_of(row["prompt"]), "saved": saved,
                                       "context": context.split("\n", 2)[1] if saved and "\n" in context else ""})

    figures: dict[str, dict] = {}
    for half in ("tune", "holdout", "all"):
        pick = {k: [o for o in v if half == "all" or o["half"] == half] for k, v in outcomes.items()}
        kept = sum(o["saved"] for o in pick["save"])
        false = sum(o["saved"] for o in pick["no_save"])
        figures[half] = {"save_prompts": len(pick["save"]), "saved": kept,
                         "saved_rate": round(kept / len(pick["save"]), 3) if pick["save"] else None,
                         "no_save_prompts": len(pick["no_save"]), "false_saves": false,
                         "false_save_rate": round(false / len(pick["no_save"]), 3) if pick["no_save"] else None}
    print(f"{'half':8} {'saved':>14} {'false saves':>14}")
    for half, f in figures.items():
        print(f"{half:8} {f['saved']:>4}/{f['save_prompts']:<4} {f['saved_rate']:.3f} "
              f"{f['false_saves']:>4}/{f['no_save_prompts']:<4} {f['false_save_rate']:.3f}")
    if args.show:
        for o in outcomes["save"]:
            if not o["saved"]:
                print(f"missed [{o['half']}]: {o['prompt'][:160]!r}")
        for o in outcomes["no_save"]:
            if o["saved"]:
                print(f"false save [{o['half']}]: {o['prompt'][:160]!r}")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "outcomes": outcomes}, ensure_ascii=False, indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
