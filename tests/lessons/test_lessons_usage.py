"""Session ledgers' location, what keeps a lesson active, its evidence fields, and concurrent credit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kioku.lessons import improvements as im
from kioku.lessons import scopes as sc
from kioku.lessons import stats, usage


def test_session_path_is_private_and_collision_free(project):
    path = Path(usage.session_path("sess/../1"))
    assert path.parent.name == "sessions" and ".." not in path.name and "/" not in path.name
    assert usage.session_path("a/b") != usage.session_path("a_b")


def test_hook_side_modules_are_stdlib_only(project):
    code = ("import sys; from kioku.learning import ledger, select; from kioku.lessons import digest; "
            "ledger.record_pending('s', 'a', {'x': 'global'}, {}, '.'); digest.read_digest('a'); "
            "select.select('a', '.', 'fix the parser', session_id='s', turn='t'); "
            "bad = [m for m in ('chromadb', 'numpy', 'onnxruntime', 'jinja2', 'yaml') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("s,n,lo,hi", [(4, 10, 0.168, 0.687), (17, 20, 0.640, 0.948), (0, 0, 0.0, 1.0),
                                       (10, 10, 0.722, 1.0)])
def test_wilson_interval(s, n, lo, hi):
    got = stats.wilson_interval(s, n)
    assert got[0] == pytest.approx(lo, abs=2e-3) and got[1] == pytest.approx(hi, abs=2e-3)


def test_a_low_success_rate_alone_does_not_hide_a_lesson():
    base = {"confidence": 0.8}
    # only the uplift test deprecates: a poor absolute rate, or one failure, keeps the lesson active
    assert stats.is_active({**base, "usage_count": 10, "success_count": 3, "success_rate": 0.3, "tested": True})
    assert stats.is_active({**base, "usage_count": 1, "success_count": 0, "success_rate": 0.0, "tested": True})
    assert not stats.is_active({**base, "deprecated": True})


def test_lesson_evidence_fields():
    ev = stats.lesson_evidence({"confidence": 0.8, "turns_given": 3, "success_given": 2, "turns_held_back": 0,
                                "uplift": 0.1, "usage_count": 3, "success_count": 2})
    assert set(ev) == {"turns_given", "turns_held_back", "success_given", "success_held_back", "uplift",
                       "uplift_low", "uplift_high", "decision", "decision_reason", "suspension"}
    assert ev["uplift"] is None and ev["decision"] == "active"  # no held-back turn yet: no uplift
    assert ev["suspension"] is None                            # not suspended


@pytest.mark.slow
def test_parallel_credit_loses_no_turn(project, monkeypatch):
    """Four processes credit turns of different sessions that all gave the same lesson."""
    monkeypatch.setenv("KIOKU_BACKGROUND_MAINTENANCE", "0")
    ids = im.learn("coder", "Read the stack trace bottom-up", "error_handling", 0.8)
    code = ("import sys\nfrom kioku.learning import credit, ledger\nfrom kioku.evaluation.verdict import TurnVerdict\n"
            "w = sys.argv[1]\n"
            "for n in range(5):\n"
            "    s = f'w{w}-s{n}'\n"
            f"    ledger.open_turn(s, 'coder', prompt_id='p', prompt_sha256='', given={{'{ids[0]}': 'global'}},"
            " held_back={}, project_root='.')\n"
            "    credit.apply_turn_verdicts('coder', s, [TurnVerdict('u', 0, 'success' if n % 2 == 0 else 'failed',"
            " prompt_id='p')], '.')\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(w)], cwd=project,
                              stderr=subprocess.PIPE, text=True) for w in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    sc.reset_store_cache()
    m = sc.open_scope("global", project).get("coder", "improvements", ids=ids)[0].metadata
    assert (m["usage_count"], m["success_count"], m["turns_given"]) == (20, 12, 20)
    assert m["success_rate"] == 0.6
