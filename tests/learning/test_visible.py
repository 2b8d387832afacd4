"""Evidence reaches the dashboard (text and JSON) and `kioku lessons search --json`; restore works."""

from __future__ import annotations

import json

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import learn
from kioku.learning import evidence, lifecycle

FIELDS = {"turns_given", "turns_held_back", "success_given", "success_held_back", "uplift", "uplift_low",
          "uplift_high", "decision", "decision_reason", "suspension"}


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
    text = kioku("dashboard", "--agent", "main", cwd=project).stdout
    assert "[deprecated]" in text and "given 10 (2 ok), held back 10 (9 ok), uplift -0.70" in text
    assert "seed rule" not in text and "last decision: hurts" in text

    # deprecated: stays on disk, not retrieved; restored: retrieved again with its evidence
    out = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--json", cwd=project)
    assert json.loads(out.stdout) == []
    assert kioku("lessons", "restore", "--agent", "main", bad, cwd=project).returncode == 0
    assert kioku("lessons", "restore", "--agent", "main", bad, cwd=project).returncode == 1  # not deprecated any more
    out = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--json", cwd=project)
    [hit] = json.loads(out.stdout)
    assert FIELDS <= set(hit) and hit["decision"] == "active" and hit["turns_given"] == 10
    assert hit["decision_reason"].startswith("restored by hand; was: hurts")


def test_a_suspension_its_reason_and_its_turn_show_everywhere_and_restore_lifts_it(project, kioku):
    from kioku.evaluation.verdict import TurnVerdict
    from kioku.learning import credit, ledger
    from kioku.ui import data
    from kioku.ui.agent_views import lesson_rows

    [rec_id] = learn("main", "Rewrite the retry helper from scratch on every HTTP client failure", "error_handling",
                     0.8, project_root=project)
    ledger.open_turn("sess-v", "main", prompt_id="p1", prompt_sha256="", given={rec_id: "global"}, held_back={},
                     project_root=str(project), propensity={rec_id: 0.5})
    use = {"lesson_id": rec_id, "relevant": True, "followed": True, "effect": "hurt",
           "reason": "the user reverted the rewrite and asked for a one-line fix"}
    verdict = TurnVerdict("u1", 0, "failed", prompt_id="p1", task="fix the HTTP client retry", judged_by="model:x",
                          lesson_uses=[use])
    credit.apply_turn_verdicts("main", "sess-v", [verdict], project)
    sc.reset_store_cache()

    out = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--json", cwd=project)
    [hit] = json.loads(out.stdout)
    assert hit["decision"] == "suspended" and hit["decision_reason"].startswith("suspended: the judge says")
    held = hit["suspension"]
    assert (held["session"], held["turn"], held["task"]) == ("sess-v", 1, "fix the HTTP client retry")
    assert held["reason"] == use["reason"] and held["at"].endswith("Z") and held["given_since"] == 0
    text = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", cwd=project).stdout
    assert "suspended" in text and "session sess-v, turn 1" in text and "one-line fix" in text
    board = json.loads(kioku("dashboard", "--agent", "main", "--json", cwd=project).stdout)
    assert board["suspended_improvements"] == 1 and board["lessons"][0]["suspension"] == held
    text = kioku("dashboard", "--agent", "main", cwd=project).stdout
    assert "[suspended]" in text and "suspended" in text.split("[suspended]")[1] and "one-line fix" in text
    [row] = data.lessons("main", project)
    assert row["decision"] == "suspended" and row["suspension"] == held
    [html] = lesson_rows("main", [row], csrf="token")
    assert "one-line fix" in html and "sess-v" in html and "lesson-restore" in html and "lesson-deprecate" in html

    # a session asking for lessons by hand is shown it, marked, but not recorded as given it
    kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--session", "sess-x", cwd=project)
    assert not ledger.has_session("sess-x")
    assert kioku("lessons", "restore", "--agent", "main", rec_id, cwd=project).returncode == 0
    out = kioku("lessons", "search", "--agent", "main", "HTTP client retry failure", "--json", cwd=project)
    [hit] = json.loads(out.stdout)
    assert hit["decision"] == "active" and hit["suspension"] is None
    assert hit["decision_reason"].startswith("restored by hand; was: suspended")
    assert kioku("lessons", "restore", "--agent", "main", rec_id, cwd=project).returncode == 1   # nothing to restore now
