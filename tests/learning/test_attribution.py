"""Attribution: credit only where the judge found a lesson relevant (both arms), a lesson the judge says
hurt is suspended at once, the uplift rule confirms or lifts the suspension, and all of it is idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest

from kioku.evaluation.verdict import TurnVerdict
from kioku.infra.errors import KiokuError
from kioku.learning import attribution, credit, evidence, ledger, lifecycle, suspension
from kioku.lessons import scopes as sc
from kioku.lessons.digest import read_digest
from kioku.lessons.improvements import learn
from kioku.lessons.lesson_state import set_deprecated

SESSION = "attr-0000-4000-8000-000000000001"
TEXTS = {"a": "When the parser grammar rejects a token, print the lexer state first",
         "b": "Before a docker deploy, build the container image locally and run it once",
         "c": "Run a postgres migration inside a transaction so a failure rolls back",
         "d": "Render the react component in a story before wiring its layout"}


@pytest.fixture
def ids(project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("KIOKU_BACKGROUND_MAINTENANCE", "0")
    return {key: learn("main", text, "search_strategy", 0.8, project_root=project)[0] for key, text in TEXTS.items()}


def _meta(project: Path, rec_id: str) -> dict:
    sc.reset_store_cache()
    return dict(sc.open_scope("global", project).get("main", "improvements", ids=[rec_id])[0].metadata or {})


def _turn(project: Path, prompt_id: str, given: list[str], held: list[str], *, session: str = SESSION,
          chance: float = 0.5) -> None:
    ledger.open_turn(session, "main", prompt_id=prompt_id, prompt_sha256="", given={i: "global" for i in given},
                     held_back={i: "global" for i in held}, project_root=str(project),
                     propensity={i: chance for i in given + held})


def _use(lesson: str, *, relevant: bool = True, followed: bool | None = True, effect: str = "none",
         reason: str = "") -> dict:
    return {"lesson_id": lesson, "relevant": relevant, "followed": followed, "effect": effect, "reason": reason}


def _verdict(index: int, outcome: str, prompt_id: str, uses: list[dict] | None = None,
             task: str = "fix the parser") -> TurnVerdict:
    return TurnVerdict(prompt_uuid=f"u{index}", prompt_index=index, outcome=outcome, prompt_id=prompt_id,
                       task=task, judged_by="model:test" if uses is not None else "rules", lesson_uses=uses or [])


def _arms(ids: dict[str, str]) -> dict[str, tuple[int, int, int, int]]:
    found = evidence.totals("main", list(ids.values()))
    return {key: found[rec_id] for key, rec_id in ids.items()}


def _digest_decision(project: Path, rec_id: str) -> str | None:
    return next((e.get("decision") for e in read_digest("main", project_root=project) if e["id"] == rec_id), None)


# -- credit only where relevant, in both arms -------------------------------------------------------


def test_a_lesson_the_judge_found_not_relevant_gets_no_credit_in_either_arm(project, ids):
    a, b, c, d = ids["a"], ids["b"], ids["c"], ids["d"]
    _turn(project, "p1", [a, b], [c, d])
    uses = [_use(a, relevant=False), _use(b), _use(c, relevant=False, followed=None)]  # d: no entry
    for _attempt in range(2):  # the same verdict again (a retried job) changes nothing
        report = credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "success", "p1", uses)], project)
        assert report.credited == 1
        assert _arms(ids) == {"a": (0, 0, 0, 0), "b": (1, 1, 0, 0), "c": (0, 0, 0, 0), "d": (0, 0, 1, 1)}
    assert _meta(project, b)["turns_given"] == 1 and _meta(project, d)["turns_held_back"] == 1
    # an effect other than "none" means the lesson bore on the turn, whatever the flag says
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "success", "p1", [_use(a, relevant=False, effect="helped")])],
                               project)
    assert _arms(ids)["a"] == (1, 1, 0, 0)


def test_a_turn_judged_again_rewrites_its_rows_and_drops_those_that_no_longer_apply(project, ids):
    a, b, c = ids["a"], ids["b"], ids["c"]
    _turn(project, "p1", [a, b], [c])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1")], project)  # the rules: all credited
    assert _arms(ids)["a"] == (1, 0, 0, 0) and _arms(ids)["c"] == (0, 0, 1, 0)
    uses = [_use(a, relevant=False), _use(b), _use(c, relevant=False, followed=None)]
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "success", "p1", uses)], project)
    assert _arms(ids)["a"] == (0, 0, 0, 0) and _arms(ids)["b"] == (1, 1, 0, 0) and _arms(ids)["c"] == (0, 0, 0, 0)
    assert _meta(project, a)["turns_given"] == 0      # the lesson whose row went was refreshed too
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "interrupted", "p1")], project)
    assert _arms(ids)["b"] == (0, 0, 0, 0) and _meta(project, b)["turns_given"] == 0


def test_feedback_still_corrects_the_turn_after_relevance(project, ids):
    a, b = ids["a"], ids["b"]
    _turn(project, "p1", [a, b], [])
    _turn(project, "p2", [], [])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "success", "p1", [_use(a, relevant=False)])], project)
    negative = _verdict(1, "success", "p2")
    negative.feedback_on_previous = "negative"
    credit.apply_turn_verdicts("main", SESSION, [negative], project)
    assert _arms(ids)["a"] == (0, 0, 0, 0) and _arms(ids)["b"] == (1, 0, 0, 0)


# -- suspension at a "hurt" ------------------------------------------------------------------------


def test_a_followed_lesson_the_judge_says_hurt_is_suspended_at_once(project, ids):
    a, b, c = ids["a"], ids["b"], ids["c"]
    _turn(project, "p1", [a, b], [c])
    uses = [_use(a, effect="hurt", reason="the user said not to print the lexer state, it floods the log"),
            _use(b, followed=False, effect="hurt"), _use(c, followed=None, effect="hurt")]
    report = credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", uses)], project)
    assert report.decisions[a] == "suspended"
    first = _meta(project, a)
    for _attempt in range(2):  # retried: still one suspension, from the same time
        report = credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", uses)], project)
        assert report.decisions[a] == "suspended"
    meta = _meta(project, a)
    assert meta["suspended_at_epoch"] == first["suspended_at_epoch"] and meta["suspensions"] == 1
    assert meta["suspended"] is True and meta["suspended_session"] == SESSION and meta["suspended_turn"] == "t1"
    assert "floods the log" in meta["suspended_reason"] and meta["suspended_task"] == "fix the parser"
    assert meta["decision_reason"].startswith("suspended: the judge says following it hurt (session")
    # not followed, or not given: a hurt suspends nothing
    assert not _meta(project, b).get("suspended") and not _meta(project, c).get("suspended")
    # the hooks see it as suspended; the credit of the turn is kept
    assert _digest_decision(project, a) == "suspended" and _digest_decision(project, b) == "active"
    assert _arms(ids)["a"] == (1, 0, 0, 0)


def test_a_lesson_the_user_taught_is_suspended_only_when_the_judges_word_has_support(project):
    [taught] = learn("main", "Use the fixture instead of a live server in the API tests", "testing_patterns", 0.8,
                     learned_from="user_feedback", project_root=project)
    hurt = [_use(taught, effect="hurt", reason="the user asked for a live server this time")]
    _turn(project, "p1", [taught], [])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", hurt)], project)
    assert not _meta(project, taught).get("suspended")           # one reading of one correction
    other = "attr-0000-4000-8000-000000000002"
    _turn(project, "q1", [taught], [], session=other)
    credit.apply_turn_verdicts("main", other, [_verdict(0, "failed", "q1", hurt)], project)
    assert _meta(project, taught)["suspended"] is True            # corrected again, in another session


def test_a_taught_lesson_whose_uplift_leans_against_it_is_suspended_at_the_first_hurt(project):
    [taught] = learn("main", "Use the fixture instead of a live server in the API tests", "testing_patterns", 0.8,
                     learned_from="user_feedback", project_root=project)
    for n in range(4):  # held back from four turns that all went well
        evidence.write_turn("main", f"before-{n}", "t1", {}, {taught: "global"}, True, 1.0, {taught: 0.5})
    _turn(project, "p1", [taught], [])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", [_use(taught, effect="hurt")])], project)
    assert _meta(project, taught)["suspended"] is True


def test_the_turn_that_suspended_a_lesson_judged_again_without_the_hurt_lifts_it(project, ids):
    a = ids["a"]
    _turn(project, "p1", [a], [])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", [_use(a, effect="hurt")])], project)
    assert _meta(project, a)["suspended"] is True
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", [_use(a)])], project)
    meta = _meta(project, a)
    assert meta["suspended"] is False and "judged again" in meta["decision_reason"]
    assert _digest_decision(project, a) == "active"


def test_restore_by_hand_lifts_a_suspension_and_a_retry_does_not_suspend_it_again(project, ids):
    a = ids["a"]
    _turn(project, "p1", [a], [])
    verdicts = [_verdict(0, "failed", "p1", [_use(a, effect="hurt")])]
    credit.apply_turn_verdicts("main", SESSION, verdicts, project)
    text, state = set_deprecated("main", a, False, project, reason="restored by hand", strict=True)
    assert text == TEXTS["a"] and state == "active"
    meta = _meta(project, a)
    assert meta["suspended"] is False and meta["suspension_lifted_at_epoch"] > 0 and meta["restored_at_epoch"] > 0
    assert _digest_decision(project, a) == "active"
    with pytest.raises(KiokuError, match="already active"):
        set_deprecated("main", a, False, project, reason="again", strict=True)
    credit.apply_turn_verdicts("main", SESSION, verdicts, project)    # the same job, retried
    assert _meta(project, a)["suspended"] is False
    # restored by hand, it counts as vouched for: a new hurt alone does not suspend it again
    _turn(project, "p2", [a], [])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(1, "failed", "p2", [_use(a, effect="hurt")])], project)
    assert _meta(project, a)["suspended"] is False


def test_the_hurt_rows_keep_the_time_they_were_first_written():
    first, _gone = attribution.record_turn("main", "s", "t1", [_use("x", effect="hurt")], {"x": "global"}, {}, "", 10.0)
    again, _gone = attribution.record_turn("main", "s", "t1", [_use("x", effect="hurt")], {"x": "global"}, {}, "", 99.0)
    assert [h.lesson for h in first] == ["x"] and again == []
    assert attribution.hurt_sessions("main", "x", since=50.0) == set()
    assert attribution.hurt_sessions("main", "x") == {"s"}
    _new, gone = attribution.record_turn("main", "s", "t1", [_use("x")], {"x": "global"}, {}, "", 120.0)
    assert gone == ["x"] and attribution.hurt_sessions("main", "x") == set()


# -- the uplift rule confirms or lifts a suspension -------------------------------------------------


def _suspended(given_at_suspension: int, **extra) -> dict:
    return {"confidence": 0.8, "suspended": True, "suspended_given": given_at_suspension,
            "suspended_session": "s", "suspended_turn": "t1", **extra}


def test_the_evidence_lifts_a_suspension_it_does_not_bear_out():
    counts = (8, 7, 6, 3)  # given 8 (7 ok), held back 6 (3 ok): no harm in sight
    stay = lifecycle.decide(_suspended(6, looks=0), counts)          # given in 2 turns since: too soon
    assert "suspended" not in stay
    lift = lifecycle.decide(_suspended(8 - suspension.RESTORE_AFTER_GIVEN, looks=0), counts)
    assert lift["suspended"] is False and lift["decision_reason"].startswith("suspension lifted: given in 3 turns")


def test_the_harm_rule_confirms_a_suspension_at_a_look():
    counts = (12, 1, 12, 11)  # 1/12 given against 11/12 held back, at the first look
    change = lifecycle.decide(_suspended(9, looks=0), counts)
    assert change["deprecated"] is True and change["decision_reason"].endswith("the suspension confirmed")


def test_a_suspension_the_evidence_leans_towards_stays_until_it_decides():
    counts = (10, 5, 10, 7)   # measured -0.2, not significant at the first look
    change = lifecycle.decide(_suspended(5, looks=0), counts)
    assert "suspended" not in change and "deprecated" not in change
    assert change["decision_reason"].startswith("suspended, harm not shown yet")


def test_a_suspended_lesson_is_lifted_and_then_confirmed_through_the_credit_step(project, ids):
    a, b = ids["a"], ids["b"]
    _turn(project, "p1", [a], [b])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", [_use(a, effect="hurt")])], project)
    assert _meta(project, a)["suspended"] is True
    for n in range(2, 2 + suspension.RESTORE_AFTER_GIVEN):  # given again in its trial share, and it went well
        _turn(project, f"p{n}", [a], [b], chance=suspension_share())
        credit.apply_turn_verdicts("main", SESSION, [_verdict(n - 1, "success", f"p{n}", [_use(a)])], project)
    _turn(project, "p9", [b], [a], chance=suspension_share())
    report = credit.apply_turn_verdicts("main", SESSION, [_verdict(4, "failed", "p9", [_use(a, followed=None)])],
                                        project)
    meta = _meta(project, a)
    assert report.decisions[a] == "active" and meta["suspended"] is False
    assert meta["decision_reason"].startswith("suspension lifted")


def suspension_share() -> float:
    from kioku.learning.select import SUSPENDED_SHARE

    return SUSPENDED_SHARE


def test_a_second_hurt_in_another_session_with_the_evidence_against_it_deprecates_at_once(project, ids):
    a, b = ids["a"], ids["b"]
    _turn(project, "p1", [a], [b])
    credit.apply_turn_verdicts("main", SESSION, [_verdict(0, "failed", "p1", [_use(a, effect="hurt")])], project)
    _turn(project, "p2", [b], [a])  # held back from a turn that went well: measured uplift below zero
    credit.apply_turn_verdicts("main", SESSION, [_verdict(1, "success", "p2", [_use(a, followed=None)])], project)
    assert _meta(project, a)["suspended"] is True and not _meta(project, a).get("deprecated")
    # a second hurt in the same session only restarts the count
    _turn(project, "p3", [a], [b], chance=suspension_share())
    credit.apply_turn_verdicts("main", SESSION, [_verdict(2, "failed", "p3", [_use(a, effect="hurt")])], project)
    assert not _meta(project, a).get("deprecated")
    other = "attr-0000-4000-8000-000000000003"
    _turn(project, "q1", [a], [b], session=other, chance=suspension_share())
    report = credit.apply_turn_verdicts("main", other, [_verdict(0, "failed", "q1", [_use(a, effect="hurt",
                                                                                        reason="flooded the log")])],
                                        project)
    meta = _meta(project, a)
    assert report.decisions[a] == "deprecated" and meta["deprecated"] is True
    assert meta["deprecated_reason"].startswith("hurts: the judge says following it hurt in two sessions")
    assert "flooded the log" in meta["deprecated_reason"]


def test_a_second_hurt_does_not_deprecate_a_lesson_the_evidence_favours():
    meta = _suspended(2, uplift=0.3, turns_given=5, turns_held_back=5)
    hurt = attribution.Hurt(lesson="x", scope="global", session="other", turn="t2", task="", reason="", at=1.0)
    change = suspension.suspend("main", meta, hurt, now=1.0)
    assert change["suspended"] is True and "deprecated" not in change
    against = suspension.suspend("main", {**meta, "uplift": -0.3}, hurt, now=1.0)
    assert against["deprecated"] is True and "suspended" not in against
