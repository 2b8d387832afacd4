"""Evidence reaches the dashboard (text and JSON) and `kioku lessons search --json`; restore works."""

from __future__ import annotations

import json

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import learn
from kioku.learning import evidence, lifecycle

FIELDS = {"turns_given", "turns_held_back", "success_given", "success_held_back", "uplift", "uplift_low",
          "uplift_high", "decision", "decision_reason", "seed_rule"}


def test_dashboard_improvements_and_restore_show_the_evidence(project, kioku):
    bad = learn("main", "Rewrite the retry helper from scratch on every HTTP client failure", "error_handling",
                0.8, project_root=project)[0]
    for n in range(10):  # 2/10 given turns succeed, 9/10 held-back turns: hurts at the first look
        evidence.write_turn("main", f"g{n}", "t1", {bad: "global"}, {}, n < 2, 0.0)
        evidence.write_turn("main", f"h{n}", "t1", {}, {bad: "global"}, n < 9, 0.0)
    assert lifecycle.refresh("main", {bad: "global"}, project) == {bad: "deprecated"}
    sc.reset_store_cache()

    res = kioku("dashboard", "--agent", "main", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    [lesson] = json.loads(res.stdout)["lessons"]
    assert FIELDS <= set(lesson)
    assert (lesson["turns_given"], lesson["success_given"], lesson["turns_held_back"],
            lesson["success_held_back"]) == (10, 2, 10, 9)
    assert lesson["decision"] == "deprecated" and lesson["decision_reason"].startswith("hurts: uplift -0.70")
    assert lesson["uplift"] == -0.7 and lesson["uplift_low"] < lesson["uplift_high"] < 0
    assert lesson["seed_rule"] == {"success_rate": 0.2, "usage_count": 10, "decision": "deprecated"}
    text = kioku("dashboard", "--agent", "main", cwd=project).stdout
    assert "[deprecated]" in text and "given 10 (2 ok), held back 10 (9 ok), uplift -0.70" in text
    assert "seed rule: deprecated (20% of 10)" in text and "last decision: hurts" in text

    # deprecated: stays on disk, not retrieved; restored: retrieved again with its evidence
    out = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--json", cwd=project)
    assert json.loads(out.stdout) == []
    assert kioku("lessons", "restore", "--agent", "main", bad, cwd=project).returncode == 0
    assert kioku("lessons", "restore", "--agent", "main", bad, cwd=project).returncode == 1  # not deprecated any more
    out = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--json", cwd=project)
    [hit] = json.loads(out.stdout)
    assert FIELDS <= set(hit) and hit["decision"] == "active" and hit["turns_given"] == 10
    assert hit["decision_reason"].startswith("restored by hand; was: hurts")
