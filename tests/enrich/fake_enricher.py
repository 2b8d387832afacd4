"""A stand-in model for enrichment behind the ``command`` backend: reads the request, prints an answer.

Controlled through the folder named by ``FAKE_ENRICH_DIR``: ``mode`` holds one word per call (the
last one repeats) - ``good``, ``malformed`` (not JSON), ``english`` (questions in English only),
``down`` (exit 1, as a rate-limited API); ``answers.json`` maps a word of a note to the
enrichment given to that note (other notes get a plain one made from their own words). Each call
appends the note ids it was asked about to ``calls.log``.
"""

import json
import os
import re
import sys
from pathlib import Path

folder = Path(os.environ["FAKE_ENRICH_DIR"])
request = sys.stdin.read()
notes = re.findall(r"^=== (m\d+) === \([^)]*\)\n(.*?)(?=\n\n=== m|\n</notes>)", request, re.M | re.S)
with (folder / "calls.log").open("a") as log:
    log.write(" ".join(alias for alias, _ in notes) + f" nested={os.environ.get('KIOKU_NESTED_RUN', '')}\n")
modes = (folder / "mode").read_text().split() if (folder / "mode").exists() else ["good"]
calls = len((folder / "calls.log").read_text().splitlines())
mode = modes[min(calls, len(modes)) - 1]
if mode == "down":
    sys.stderr.write("429 rate limited")
    sys.exit(1)
if mode == "malformed":
    print("Here are some thoughts about your notes.")
    sys.exit(0)
answers = json.loads((folder / "answers.json").read_text()) if (folder / "answers.json").exists() else {}
items = []
for alias, body in notes:
    chosen = next((value for word, value in answers.items() if word in body), None)
    words = re.findall(r"[A-Za-z]{3,}", body)[:5] or ["note"]
    item = {"id": alias, "questions": [f"what about {words[0]}?", f"tell me about {' '.join(words[:2])}",
                                       "メモの内容は？"],
            "keywords": {"en": words, "ja": ["メモ"]}, "topic": words[0]}
    item.update(chosen or {})
    if mode == "english":
        item["questions"] = [q for q in item["questions"] if q.isascii()]
    items.append(item)
print(json.dumps({"items": items}, ensure_ascii=False))
