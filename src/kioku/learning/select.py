"""Which lessons a turn is given: task-relevant selection with exploration (stdlib only; hooks run it).

1. Pool: the agent's active lessons from the digest files (``kioku.lessons.digest``; deprecated
   and candidate lessons are never there), minus the lessons already given earlier in the
   session (they are still in the conversation).
2. Eligible: with task text, the lessons the SQLite FTS5 lexical index
   (``kioku.retrieval.fts``, the file the agent store keeps beside Chroma) ranks for it, best
   first, at most ``eligible`` of them, and only those scoring at least :data:`RELEVANCE_FLOOR`
   of the best score (a lesson that shares only a common word with the task is not about it:
   giving it there, or counting that turn in its evidence, only dilutes its measured effect),
   and only those sharing with the task a word that names something, or two words
   (:func:`about_the_task`: in a store of a few lessons BM25 finds every shared word rare);
   with no task text (SessionStart), the digest's top list.
3. Exploration: each eligible lesson is held back with probability ``hold_back`` (decided by a
   hash of session, turn and lesson, so a retried hook makes the same choice). Held-back
   lessons are recorded, not injected: they are the turns the lesson's uplift is measured
   against.
4. Order: promoted lessons first (in relevance order), but while undecided lessons are
   eligible they keep :data:`EXPLORE_SLOTS` of the ``k`` slots, so a lesson still gets tested
   after enough others have been promoted to fill every slot. The undecided ones share the
   free slots at random, each with a chance proportional to its lexical score
   (:func:`inclusion_chances`, drawn by systematic sampling from the same hash): a lesson that
   shares more of the task's rarer words is given more often, one that shares a single common
   technical word less often but still sometimes. Which undecided lessons a turn gets is a
   randomised experiment whose chances are known (ordering by the evidence itself, Thompson
   sampling, raised success sooner in the simulation but biased the comparison: neutral
   lessons got promoted). The rest of the eligible ones are recorded as not given.
5. Suspended lessons (``kioku.learning.suspension``: a model judge said following one hurt) are
   not given in the normal way: each eligible one is given in :data:`SUSPENDED_SHARE` of its
   turns, by its own draw from the same hash, in the slots promoted lessons leave (it keeps the
   exploration slot like an undecided lesson), before the undecided ones share what is left.
   The other turns record it as not given, so the uplift test that confirms or lifts the
   suspension keeps getting evidence in both arms.
6. Propensity: for every eligible lesson, the chance it is given in this turn given everything
   the other lessons drew (its own hold-back draw and the random draw are what decide it):
   ``(1 - hold_back) * inclusion chance among the undecided lessons not held back`` for an
   undecided lesson, ``1 - hold_back`` or 0 for a promoted one, :data:`SUSPENDED_SHARE` or 0 for a
   suspended one. It varies from turn to turn
   (with how many promoted lessons compete and how well the others match), so the uplift
   weights each turn by its inverse (``kioku.learning.uplift``); turns with propensity 0 (or 1)
   compare nothing and weigh 0.
"""

from __future__ import annotations

import os

from kioku.infra import pathstr
from kioku.infra.sha import sha256

DEFAULT_K = 5
HOLD_BACK_SHARE = 0.1
ELIGIBLE_PER_GIVEN = 3
EXPLORE_SLOTS = 1  # slots promoted lessons leave to undecided ones while any is eligible
SUSPENDED_SHARE = 0.25  # of its eligible turns a suspended lesson is still given in (recorded as its chance)
RELEVANCE_FLOOR = 0.15  # a lesson is eligible only if its lexical score is at least this share of the best
MIN_COMMON_SHARED = 2  # ... and it shares a word naming something with the task, or this many words
LEXICAL_DB = "kioku_lexical.sqlite3"


class Selection:
    """Digest entries given (in injection order) and eligible-but-not-given (held back or cut).

    A plain class: dataclasses would pull ``inspect`` and ``typing`` onto the hooks' path.
    """

    __slots__ = ("given", "held_back", "propensity")

    def __init__(self, given: list[dict] | None = None, held_back: list[dict] | None = None,
                 propensity: dict[str, float] | None = None) -> None:
        self.given = given or []
        self.held_back = held_back or []
        self.propensity = propensity or {}

    def scope_map(self, which: str) -> dict[str, str]:
        return {str(e["id"]): str(e.get("scope") or "global") for e in getattr(self, which)}


def draw(session_id: str, turn: str, lesson_id: str) -> float:
    """A number in [0, 1) fixed by (session, turn, lesson): the same choice on every retry."""
    digest = sha256(f"{session_id}\0{turn}\0{lesson_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64


def lexical_ranking(agent: str, root, task: str, k: int, about_task_only: bool = True) -> list[tuple[str, float]]:
    """(lesson id, score as a share of the best) the FTS5 index ranks for ``task``, best first
    (project scope first on a tie), down to :data:`RELEVANCE_FLOOR`."""
    from kioku.lessons.store.names import collection_name
    from kioku.retrieval.fts import LexicalIndex

    ranked: list[tuple[float, int, str]] = []
    scopes = (("project", pathstr.project_chroma_dir(root)), ("global", pathstr.global_chroma_dir()))
    for order, (scope, folder) in enumerate(scopes):
        db = os.path.join(folder, LEXICAL_DB)
        if not os.path.isfile(db):
            continue
        project_id = pathstr.project_identity(root) if scope == "project" else None
        collection = collection_name(agent, "improvements", project_id)
        with LexicalIndex(db) as index:
            found = index.search(collection, task, k)
            if about_task_only:
                about = about_the_task(task, index.document_tokens(collection, [rec_id for rec_id, _ in found]))
                found = [(rec_id, score) for rec_id, score in found if rec_id in about]
            ranked.extend((-score, order, rec_id) for rec_id, score in found)
    if not ranked:
        return []
    ranked.sort()
    best = -ranked[0][0]
    shares = [(rec_id, -score / best if best > 0 else 1.0) for score, _o, rec_id in ranked]
    return [(rec_id, share) for rec_id, share in shares if share >= RELEVANCE_FLOOR]


def about_the_task(task: str, lesson_tokens: dict[str, set[str]]) -> set[str]:
    """The lessons that share with ``task`` a word naming something, or at least
    :data:`MIN_COMMON_SHARED` words of any kind.

    One everyday word in common ("how do I *use* the new logger?" and "*Use* the Stripe API
    idempotency key ...") does not make a lesson about the task, however few lessons hold it
    (in a small store every word looks rare to BM25). A word outside the 5,000 most frequent
    English ones (``kioku.retrieval.text.is_common_token``: a name, an identifier, a technical
    term, a kanji or katakana bigram) is enough alone.
    """
    from kioku.retrieval.fts import query_tokens
    from kioku.retrieval.text import is_common_token

    words = set(query_tokens(task))
    out: set[str] = set()
    for rec_id, tokens in lesson_tokens.items():
        shared = words & tokens
        if len(shared) >= MIN_COMMON_SHARED or any(not is_common_token(t) for t in shared):
            out.add(rec_id)
    return out


def select(agent: str, root, task: str, *, session_id: str, turn: str, k: int = DEFAULT_K,
           hold_back: float = HOLD_BACK_SHARE, exclude: set[str] | frozenset[str] = frozenset(),
           pool: list[dict] | None = None, about_task_only: bool = True,
           suspended_share: float | None = None) -> Selection:
    """The lessons to give this turn and the eligible ones held back (see the module docstring).

    ``about_task_only=False`` (SubagentStart) lets one shared everyday word make a lesson
    eligible: a subagent's lessons are its own specialty's, and the task it is handed is often a
    short order in that specialty's everyday words ("Review the project's files" for a code-review agent
    whose lesson is about approving a review). ``suspended_share``: :data:`SUSPENDED_SHARE` unless given."""
    trial = SUSPENDED_SHARE if suspended_share is None else min(1.0, max(0.0, suspended_share))
    if k <= 0:
        return Selection()
    if pool is None:
        from kioku.lessons.digest import read_digest

        pool = read_digest(agent, project_root=root)
    by_id = {str(e["id"]): e for e in pool if isinstance(e, dict) and e.get("id") and str(e["id"]) not in exclude}
    if not by_id:
        return Selection()  # nothing to choose from: the lexical index is not even opened
    limit = max(k, ELIGIBLE_PER_GIVEN * k)
    text = " ".join((task or "").split())
    if text:
        ranked = lexical_ranking(agent, root, text, limit * 4, about_task_only)
        shares: dict[str, float] = {}  # lexical score as a share of the best, best first
        for rec_id, share in ranked:
            shares.setdefault(rec_id, share)
        eligible = [by_id[i] for i in shares if i in by_id][:limit]
    else:
        eligible = list(by_id.values())[:limit]
        shares = {}  # no task text: every lesson weighs the same
    suspended = [e for e in eligible if e.get("decision") == "suspended"]
    suspended_in = [e for e in suspended if draw(session_id, turn + "\0suspended", str(e["id"])) < trial]
    rest = [e for e in eligible if e.get("decision") != "suspended"]
    held_ids = {str(e["id"]) for e in rest if draw(session_id, turn, str(e["id"])) < hold_back}
    promoted = [e for e in rest if e.get("decision") == "promoted"]
    undecided = [e for e in rest if e.get("decision") != "promoted"]
    undecided_in = [e for e in undecided if str(e["id"]) not in held_ids]
    promoted_in = [e for e in promoted if str(e["id"]) not in held_ids]
    ordered = promoted_in[:promoted_cap(k, bool(undecided_in or suspended_in))]
    ordered += suspended_in[:k - len(ordered)]
    free = k - len(ordered)
    shuffled = sorted(undecided_in, key=lambda e: draw(session_id, turn + "\0order", str(e["id"])))
    chances = inclusion_chances([shares.get(str(e["id"]), 1.0) for e in shuffled], free)
    ordered += systematic_pick(shuffled, chances, draw(session_id, turn + "\0pick", ""))
    propensity = propensities(promoted, undecided, held_ids, k, hold_back, shares,
                              suspended=suspended, suspended_in={str(e["id"]) for e in suspended_in},
                              suspended_share=trial)
    given_ids = {str(e["id"]) for e in ordered[:k]}
    not_given = [e for e in eligible if str(e["id"]) not in given_ids]
    return Selection(given=ordered[:k], held_back=not_given, propensity=propensity)


def promoted_cap(k: int, undecided_eligible: bool) -> int:
    """How many slots promoted lessons may take: all ``k``, less :data:`EXPLORE_SLOTS` while undecided compete."""
    return max(0, k - EXPLORE_SLOTS) if undecided_eligible else k


def inclusion_chances(weights: list[float], m: int) -> list[float]:
    """Chances proportional to ``weights`` that sum to ``min(m, len(weights))``, none above 1."""
    n = len(weights)
    if m >= n:
        return [1.0] * n
    if m <= 0:
        return [0.0] * n
    capped: set[int] = set()
    while True:
        rest = [i for i in range(n) if i not in capped]
        total = sum(weights[i] for i in rest)
        if total <= 0:  # nothing to go by: the slots left are shared equally
            return [1.0 if i in capped else (m - len(capped)) / len(rest) for i in range(n)]
        scale = (m - len(capped)) / total
        newly = {i for i in rest if scale * weights[i] >= 1.0}
        if not newly:
            return [1.0 if i in capped else scale * weights[i] for i in range(n)]
        capped |= newly


def systematic_pick(items: list, chances: list[float], start: float) -> list:
    """Systematic sampling: lay the chances end to end on a line and pick the items whose stretch
    holds one of ``start``, ``start + 1``, ... (``start`` in [0, 1)). The chances must be at most
    1 each and sum to a whole number (as :func:`inclusion_chances` makes them): then each item is
    picked with exactly its chance, and as many items as the chances sum to."""
    wanted = round(sum(chances))
    picked: list = []
    edge = 0.0
    point = start
    for item, chance in zip(items, chances):
        edge += chance
        if point < edge and len(picked) < wanted:
            picked.append(item)
            point += 1.0
    return picked


def propensities(promoted: list[dict], undecided: list[dict], held_ids: set[str], k: int,
                 hold_back: float, shares: dict[str, float] | None = None, *, suspended: list[dict] = (),
                 suspended_in: set[str] = frozenset(), suspended_share: float = SUSPENDED_SHARE) -> dict[str, float]:
    """Each eligible lesson's chance of being given, the other lessons' draws being as they are.

    ``promoted`` and ``suspended`` in relevance order. A lesson's own hold-back draw (its own
    draw against ``suspended_share`` for a suspended one) and, for an undecided one, the
    systematic draw among the undecided lessons, by lexical score (``shares``; equal without),
    are the chance; everything else is fixed by the other lessons' draws.
    """
    out: dict[str, float] = {}
    undecided_in = [str(e["id"]) for e in undecided if str(e["id"]) not in held_ids]
    promoted_in = [str(e["id"]) for e in promoted if str(e["id"]) not in held_ids]
    cap = promoted_cap(k, bool(undecided_in or suspended_in))
    for position, e in enumerate(promoted):
        rec_id = str(e["id"])
        ahead = sum(1 for other in promoted[:position] if str(other["id"]) not in held_ids)
        out[rec_id] = round(1.0 - hold_back, 6) if ahead < cap else 0.0
    after_promoted = max(0, k - min(len(promoted_in), promoted_cap(k, True)))  # with this lesson in play
    for position, e in enumerate(suspended):
        rec_id = str(e["id"])
        ahead = sum(1 for other in suspended[:position] if str(other["id"]) in suspended_in)
        out[rec_id] = round(suspended_share, 6) if ahead < after_promoted else 0.0
    free = max(0, after_promoted - len(suspended_in))
    for e in undecided:
        rec_id = str(e["id"])
        contenders = [rec_id] + [other for other in undecided_in if other != rec_id]
        chance = inclusion_chances([(shares or {}).get(i, 1.0) for i in contenders], free)[0]
        out[rec_id] = round((1.0 - hold_back) * chance, 6)
    return out


def hold_back_share() -> float:
    """``KIOKU_HOLD_BACK`` (0-0.5) or the default share of eligible turns a lesson is held back from."""
    raw = os.environ.get("KIOKU_HOLD_BACK", "")
    try:
        value = float(raw) if raw else HOLD_BACK_SHARE
    except ValueError:
        return HOLD_BACK_SHARE
    return min(0.5, max(0.0, value))
