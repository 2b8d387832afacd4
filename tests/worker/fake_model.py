"""A stand-in model for the ``command`` backend: reads the request on stdin, prints an answer.

Controlled through the folder named by ``FAKE_MODEL_DIR``: ``mode`` holds one word per call
(the last one repeats) - ``good``, ``failed`` (every turn judged failed), ``malformed``, ``down``
(exit 1, as a rate-limited API), ``sleep`` (blocks until killed); ``lesson`` (a JSON lesson draft
given to every turn). Each call appends the turn ids it was asked about to ``calls.log``.
"""

import json
import os
import re
import sys
import time
from pathlib import Path

folder = Path(os.environ["FAKE_MODEL_DIR"])
request = sys.stdin.read()
ids = re.findall(r"^=== (t\d+) ===$", request, re.M)
with (folder / "calls.log").open("a") as log:
    log.write(" ".join(ids) + f" nested={os.environ.get('KIOKU_NESTED_RUN', '')}\n")
modes = (folder / "mode").read_text().split() if (folder / "mode").exists() else ["good"]
calls = len((folder / "calls.log").read_text().splitlines())
mode = modes[min(calls, len(modes)) - 1]
if mode == "down":
    sys.stderr.write("429 rate limited")
    sys.exit(1)
if mode == "sleep":
    (folder / "sleeping").write_text(str(os.getpid()))
    time.sleep(600)
if mode == "malformed":
    print("I am not sure how to answer that.")
    sys.exit(0)
schema = json.loads(request.rsplit("The JSON schema of the answer:\n", 1)[1])
criteria = schema["properties"]["turns"]["items"]["properties"]["scores"]["required"]
lesson = json.loads((folder / "lesson").read_text()) if (folder / "lesson").exists() else None
lessons_in_play = sorted(set(re.findall(r"^(L\d+): ", request, re.M)))
use = json.loads((folder / "use").read_text()) if (folder / "use").exists() else {}
print(json.dumps({"turns": [{
    "id": turn_id, "outcome": "failed" if mode == "failed" else "success", "reason": f"fake judge on {turn_id}",
    "feedback_on_previous": "negative" if mode == "failed" and turn_id != "t1" else "none", "confidence": 0.9,
    "scores": {name: 90 for name in criteria}, "lesson": lesson,
    "lessons": [{"id": alias, "relevant": True, "followed": True, **use} for alias in lessons_in_play]}
    for turn_id in ids]}))
