"""Usage recording (hook side, stdlib) and session outcomes → counters, deprecation, promotion."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kioku.agent import improvements as im
from kioku.agent import stats, usage


def test_record_injection_file_is_private_json(project):
    seq = usage.record_injection("sess/../1", "coder", ["imp_a", "imp_b"], {"imp_a": "project"})
    assert seq == 1
    path = usage.session_path("sess/../1")
    assert path.parent.name == "sessions" and ".." not in path.name
    assert path.stat().st_mode & 0o777 == 0o600
    data = json.loads(path.read_text())
    entry = data["agents"]["coder"]["pending"][0]
    assert entry["scope_map"] == {"imp_a": "project", "imp_b": "global"}
    assert data["project_root"] == str(project)


def test_usage_module_is_stdlib_only_for_hooks(project):
    code = ("import sys; from kioku.agent import usage, digest; "
            "usage.record_injection('s', 'a', ['x'], {'x': 'global'}); digest.read_digest('a'); "
            "bad = [m for m in ('chromadb', 'numpy', 'onnxruntime', 'jinja2', 'yaml') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project, check=True)
    assert out.stdout.strip() == "[]"


def test_outcome_updates_counters_once(project, store_of):
    ids = im.learn("coder", "Read the stack trace bottom-up", "error_handling", 0.8)
    usage.record_injection("s1", "coder", ids, {ids[0]: "global"})
    usage.record_injection("s1", "coder", ids, {ids[0]: "global"})  # injected twice in one turn
    assert usage.apply_session_outcome("s1", "coder", True) == 1
    assert usage.apply_session_outcome("s1", "coder", True) == 0  # idempotent retry
    m = store_of("global").get("coder", "improvements", ids=ids)[0].metadata
    assert (m["usage_count"], m["success_count"], m["success_rate"], m["tested"]) == (1, 1, 1.0, True)
    assert m["last_used"] and m["last_used_epoch"] > 0
    usage.record_injection("s1", "coder", ids, {ids[0]: "global"})
    assert usage.apply_session_outcome("s1", "coder", False, turn="t2") == 1
    assert usage.apply_session_outcome("s1", "coder", False, turn="t2") == 0
    m = store_of("global").get("coder", "improvements", ids=ids)[0].metadata
    assert (m["usage_count"], m["success_count"], m["success_rate"]) == (2, 1, 0.5)
    assert usage.apply_session_outcome("unknown-session", "coder", True) == 0


def _run_sessions(ids, scope, outcomes):
    for n, ok in enumerate(outcomes):
        usage.record_injection(f"sess-{n}", "coder", ids, {i: scope for i in ids})
        usage.apply_session_outcome(f"sess-{n}", "coder", ok)


def test_deprecation_after_ten_uses_below_forty_percent(project, store_of):
    ids = im.learn("coder", "Always rewrite the module from scratch", "code_quality", 0.8)
    _run_sessions(ids, "global", [True, True, True] + [False] * 6)  # 3/9: too few uses
    assert store_of("global").get("coder", "improvements", ids=ids)[0].metadata["deprecated"] is False
    _run_sessions(ids, "global", [False])  # 3/10 = 30 %
    m = store_of("global").get("coder", "improvements", ids=ids)[0].metadata
    assert m["deprecated"] is True
    assert "3/10" in m["deprecated_reason"] and "Wilson" in m["deprecated_reason"]
    assert im.retrieve("coder", "rewrite the module", threshold=0.0) == []


def test_promotion_after_twenty_uses_at_85_percent(project, store_of):
    ids = im.learn("coder", "Write the test before the fix", "testing_patterns", 0.92)
    _run_sessions(ids, "global", [True] * 16 + [False] * 3)  # 19 uses
    assert store_of("global").get("coder", "improvements", ids=ids)[0].metadata["promoted"] is False
    _run_sessions(ids, "global", [True])  # 17/20 = 85 %
    m = store_of("global").get("coder", "improvements", ids=ids)[0].metadata
    assert m["promoted"] is True and m["confidence"] == 0.95  # 0.92 + 0.05 capped at 0.95
    assert m["confidence_before_promotion"] == 0.92


@pytest.mark.parametrize("s,n,lo,hi", [(4, 10, 0.168, 0.687), (17, 20, 0.640, 0.948), (0, 0, 0.0, 1.0),
                                       (10, 10, 0.722, 1.0)])
def test_wilson_interval(s, n, lo, hi):
    got = stats.wilson_interval(s, n)
    assert got[0] == pytest.approx(lo, abs=2e-3) and got[1] == pytest.approx(hi, abs=2e-3)


def test_policy_edges():
    base = {"confidence": 0.8}
    assert stats.policy_changes({**base, "usage_count": 10, "success_count": 4}, "t", 1.0) == {}
    assert stats.policy_changes({**base, "usage_count": 10, "success_count": 3}, "t", 1.0)["deprecated"]
    assert stats.policy_changes({**base, "usage_count": 20, "success_count": 16}, "t", 1.0) == {}
    assert stats.policy_changes({**base, "usage_count": 20, "success_count": 17}, "t", 1.0)["confidence"] == 0.85
    assert stats.policy_changes({**base, "usage_count": 30, "success_count": 30, "promoted": True}, "t", 1.0) == {}


@pytest.mark.slow
def test_parallel_outcomes_lose_no_increment(project, store_of):
    """Four processes score sessions that all used the same lesson: every use is counted."""
    ids = im.learn("coder", "Read the stack trace bottom-up", "error_handling", 0.8)
    for w in range(4):
        for n in range(5):
            usage.record_injection(f"w{w}-s{n}", "coder", ids, {ids[0]: "global"})
    code = ("import sys\nfrom kioku.agent import usage\nw = sys.argv[1]\n"
            "for n in range(5):\n    usage.apply_session_outcome(f'w{w}-s{n}', 'coder', n % 2 == 0)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(w)], cwd=project,
                              stderr=subprocess.PIPE, text=True) for w in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    m = store_of("global").get("coder", "improvements", ids=ids)[0].metadata
    assert (m["usage_count"], m["success_count"]) == (20, 12)
    assert m["success_rate"] == 0.6
