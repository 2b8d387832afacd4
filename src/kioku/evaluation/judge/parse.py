"""The judge's answer, checked: one :class:`Decision` per requested turn, or a reason to ask again.

``parse_answer(data, request, judged_by)`` accepts what a careful reader would (enum values in
any case, a confidence written as a string, scores outside 0-100 clamped) and refuses what
cannot be trusted: a missing turn, an outcome or feedback outside the classes, a lesson of an
unknown kind. The refusal (:class:`AnswerError`) lists every problem in one message, which is
sent back to the model once. Text the model wrote (reasons, lesson text) is data: it passes the
secret filter and is defanged before it is kept, and lesson text is cut to a sentence or two.
"""

from __future__ import annotations

from typing import Any

from kioku.evaluation.judge.prompt import LESSON_CHARS, PREFERENCES, REASON_CHARS, Request
from kioku.evaluation.judge.protocol import EFFECTS, LESSON_KINDS, Decision, LessonDraft, LessonUse
from kioku.evaluation.judge.render import clean, cut, redact_outgoing
from kioku.evaluation.verdict import FEEDBACK, OUTCOMES
from kioku.text.defang import defang


class AnswerError(ValueError):
    """The answer cannot be used; the message says why, for the retry."""


def _text(value: Any, limit: int) -> str:
    return cut(clean(defang(redact_outgoing(str(value or "")))), limit)


def _word(value: Any, allowed: tuple[str, ...], what: str, problems: list[str], where: str) -> str:
    word = str(value or "").strip().lower().replace(" ", "_")
    if word not in allowed:
        problems.append(f"{where}: {what} {value!r} is not one of {', '.join(allowed)}")
    return word


def _confidence(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, min(1.0, number))


def _scores(value: Any, criteria: dict[str, int], problems: list[str], where: str) -> dict[str, float]:
    if not isinstance(value, dict):
        problems.append(f"{where}: scores must be an object with the keys {', '.join(criteria)}")
        return {}
    lowered = {str(k).strip().lower(): v for k, v in value.items()}
    out: dict[str, float] = {}
    for name in criteria:
        raw = value.get(name, lowered.get(name.lower()))
        try:
            out[name] = round(max(0.0, min(100.0, float(raw))), 1)
        except (TypeError, ValueError):
            problems.append(f"{where}: scores[{name!r}] must be a number from 0 to 100")
    return out


def _lesson(value: Any, request: Request, problems: list[str], where: str) -> LessonDraft | None:
    if value in (None, "", {}, []):
        return None
    if not isinstance(value, dict):
        problems.append(f"{where}: lesson must be null or an object")
        return None
    kind = _word(value.get("kind"), LESSON_KINDS, "lesson kind", problems, where)
    category = str(value.get("category") or "").strip().lower()
    if category not in request.categories:
        category = PREFERENCES if kind == "preference" else ""
        if not category:
            problems.append(f"{where}: lesson category {value.get('category')!r} is not one of "
                            f"{', '.join(request.categories)}")
    text = _text(value.get("text"), LESSON_CHARS)
    if len(text) < 12:
        problems.append(f"{where}: lesson text is missing or too short")
    return LessonDraft(kind, category, text, _text(value.get("applies_when"), REASON_CHARS))


def _uses(value: Any, request: Request, case_id: str, problems: list[str], where: str) -> list[LessonUse]:
    in_play = request.turn_lessons.get(case_id, set())
    if not in_play:
        return []
    if not isinstance(value, list):
        problems.append(f"{where}: lessons must be a list with an entry for each of {', '.join(sorted(in_play))}")
        return []
    out: list[LessonUse] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        alias = str(item.get("id") or "").strip().upper()
        if alias not in in_play:
            continue  # a lesson not in play for this turn: nothing to record
        effect = _word(item.get("effect", "none"), EFFECTS, "effect", problems, f"{where} {alias}")
        followed = item.get("followed")
        out.append(LessonUse(request.lesson_aliases[alias], bool(item.get("relevant")),
                             followed if isinstance(followed, bool) else None, effect,
                             _text(item.get("reason"), REASON_CHARS)))
    return out


def parse_answer(data: Any, request: Request, judged_by: str) -> dict[str, Decision]:
    if isinstance(data, list):
        data = {"turns": data}
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise AnswerError('the answer must be a JSON object with a "turns" list')
    problems: list[str] = []
    by_id: dict[str, dict] = {}
    for item in data["turns"]:
        if isinstance(item, dict) and str(item.get("id") or "").strip().lower() in request.case_ids:
            by_id.setdefault(str(item["id"]).strip().lower(), item)
    missing = [cid for cid in request.case_ids if cid not in by_id]
    if missing:
        problems.append(f"no entry for turn(s) {', '.join(missing)}")
    out: dict[str, Decision] = {}
    for cid, item in by_id.items():
        outcome = _word(item.get("outcome"), OUTCOMES, "outcome", problems, cid)
        feedback = _word(item.get("feedback_on_previous", "none"), FEEDBACK, "feedback_on_previous", problems, cid)
        out[cid] = Decision(
            outcome=outcome, reason=_text(item.get("reason"), REASON_CHARS), feedback_on_previous=feedback,
            judged_by=judged_by, confidence=_confidence(item.get("confidence")),
            scores=_scores(item.get("scores"), request.criteria, problems, cid),
            lesson=_lesson(item.get("lesson"), request, problems, cid),
            lesson_uses=_uses(item.get("lessons"), request, cid, problems, cid))
    if problems:
        raise AnswerError("; ".join(problems[:12]) + (f" (and {len(problems) - 12} more)" if len(problems) > 12 else ""))
    return out
