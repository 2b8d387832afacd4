"""Whether a new memory replaces an older one: the decision of ``assess`` and the quick pre-checks
the save path runs before it (``can_contradict``, ``could_flag``)."""

from __future__ import annotations

from kioku.memory.contradict.clauses import _lower, _polarity, _qualifiers, _strip_polarity, choices
from kioku.memory.contradict.statements import (
    _after_copula, _bare_name, _ceases, _has_value, _is_value, _mentions, _names_something,
    _names_what_old_is_about, _placed, _predicate, _relation, _renamed, _replaced_values, _says_now,
    _statement_core, _subject, relation,
)
from kioku.memory.contradict.words import _ADDITIVE, _STOP_MARKERS, _VALUE_NOUNS, _WORD
from kioku.memory.textutil import jaccard


def can_contradict(new: str) -> bool:
    """False when ``new`` can replace nothing whatever the old text (no choice, no polarity,
    no replacement wording, no value): ``assess`` then returns None without looking at the
    old memory."""
    if choices(new) or _polarity(new) or _replaced_values(new) or _says_now(new) or _ceases(new):
        return True
    # the values ``_predicate`` compares: in Japanese text every ASCII word of the predicate;
    # or the name a copula statement gives ("The default branch is main")
    return (bool(_predicate(new)[1]) or any(_is_value(w) for w in _WORD.findall(_lower(new)))
            or _bare_name(new) is not None)


def _never(_folded: str) -> bool:
    return False


def _always(_folded: str) -> bool:
    return True


def could_flag(new: str):  # -> Callable[[str], bool]
    """A test an older text must pass for ``assess(new, old)`` to say anything: it is given
    the older text folded as ``_lower`` folds it (NFKC, lower case, ’ → '), or any folded text
    that contains it (a whole topic file), and False means ``assess`` returns None for it.

    ``assess`` can only answer through explicit replacement wording, a choice, a polarity or,
    without those, a subject whose words all occur in the old text; so for a new memory with
    none of the first three, an older text missing one of its (ASCII) subject words cannot be
    flagged. The save path uses this to leave topic files unparsed.
    """
    if choices(new) or _polarity(new) or _replaced_values(new) or _ceases(new):
        return _always  # these can match an older text worded differently
    # any plain statement may resume one an older memory said had stopped
    if not can_contradict(new):
        return _says_stopped  # no value and no "now": the subject branch cannot fire either
    subject = _subject(new)
    if subject == () and _says_now(new):
        return _always  # "We deploy on Thursdays now": the project's own statement, any file
    if not subject:
        return _says_stopped  # no subject to share: only the branches above could answer
    if not all(word.isascii() for word in subject):
        return _always  # case folding of non-ASCII text can depend on its neighbours

    def shares_subject(folded: str) -> bool:
        return all(word in folded for word in subject) or _says_stopped(folded)

    return shares_subject


def _says_stopped(folded: str) -> bool:
    """Whether a folded text may say that something stopped (what ``_ceases`` looks for)."""
    return any(marker in folded for marker in _STOP_MARKERS)


def assess(new: str, old: str) -> tuple[str, str] | None:
    """How ``new`` relates to the older ``old``: ("replaces", reason) when it clearly
    replaces it, ("unsure", reason) when it may (both are kept and the user is told), or
    None. Losing a true memory is the worse error, so "replaces" needs the same subject and
    scope (or explicit replacement wording that names the old value)."""
    # The subject/scope relation is the costly part and a save asks it of every memory in the
    # index, so it is worked out only once a branch below could return something; the result
    # is the same as computing it first: a "different" relation still means None.
    known: list[str] = []

    def relation() -> str:
        if not known:
            known.append(_relation(new, old))
        return known[0]

    replaced = _replaced_values(new)
    given_up = [v for v in replaced if _has_value(_lower(old), v) or v in _mentions(old)] if replaced else []
    if given_up and not (_replaced_values(old) & {given_up[0]}):
        if relation() == "different":
            return None
        action = given_up[0].split()[0]
        if action.isascii() and not _is_value(action) and _strip_polarity(new) - _strip_polarity(old) \
                and _polarity(new):
            # "Never run tests before pushing to a draft branch" after "Always run tests before
            # pushing": a rule about an action that adds words may be an exception to the old one
            return "unsure", f"may be an exception to the rule on {given_up[0]}"
        if relation() == "unknown" and _qualifiers(new) != _qualifiers(old):
            # "never use type hints in tests" after "always use type hints": an exception
            # for one scope, or a replacement - the user decides
            return "unsure", f"may replace {given_up[0]}"
        if relation() == "unknown" and not _names_what_old_is_about(new, old, given_up[0]):
            # "We migrated to Postgres from MySQL" after "The analytics warehouse stays on MySQL":
            # the old memory is about something the new one does not name
            return "unsure", f"may replace {given_up[0]}"
        return "replaces", f"replaces {given_up[0]}"
    conflict = _choice_conflict(new, old)
    if conflict:
        if relation() == "different":
            return None
        return ("replaces" if relation() == "same" else "unsure"), conflict
    stopped, was_stopped = _ceases(new), _ceases(old)
    if stopped != was_stopped and _qualifiers(new) == _qualifiers(old) \
            and _polarity(old if stopped else new) >= 0:
        # "We no longer deploy on Fridays" after "We deploy on Fridays" (or the reverse): the
        # same statement stopped or resumed; with a narrower or wider old statement
        # ("We deploy hotfixes on Fridays") the user decides
        overlap = jaccard(_statement_core(new), _statement_core(old))
        if overlap >= 0.6 and relation() != "different":
            if overlap >= 0.8:
                return "replaces", "no longer" if stopped else "again"
            return "unsure", "may stop or resume a related statement"
    s_new = _subject(new)
    # "same" needs the old memory's subject to equal this one, so its words must occur in it
    # an empty subject (the project: "We deploy on Fridays") counts only with an explicit "now"
    if (s_new or (s_new == () and _says_now(new))) and all(word in _lower(old) for word in s_new) \
            and relation() == "same":
        a_new, v_new, cop_new = _predicate(new)
        a_old, v_old, cop_old = _predicate(old)
        additive = bool(set(_WORD.findall(_lower(new))) & _ADDITIVE)
        similar = jaccard(a_new, a_old) >= 0.5 if (a_new or a_old) else True
        if similar and v_old and (a_new - a_old - _VALUE_NOUNS) and not (a_old - a_new):
            # "We use Node 20 now" after "We use pnpm": the new statement names another thing
            # ("node") where the old one had a value of its own, so it is about something else
            similar = False
        placed = _placed(_after_copula(new) or []) if cop_new and cop_old else ""
        if placed and placed != _placed(_after_copula(old) or []):
            placed = ""  # only one of them says where or how: another attribute
        if _says_now(new) and not additive and (similar or (cop_new and cop_old and _names_something(new, placed)
                                                             and _names_something(old, placed))):
            return "replaces", "now " + (" ".join(sorted(v_new)) or "different")
        if similar and a_new == a_old and v_new and v_old and v_new != v_old and not additive:
            return "replaces", f"{' '.join(sorted(v_new))} instead of {' '.join(sorted(v_old))}"
        renamed = _renamed(new, old) if cop_new and cop_old and not additive else None
        if renamed:
            return renamed  # "The team lead is Bob" after "... is Alice"
    pol_new = _polarity(new)
    pol_old = _polarity(old) if pol_new else 0
    # A flip with a different scope ("never ... in tests" after "always ...") is an exception
    # to the old rule, not its negation, so both stay.
    if pol_new and pol_old and pol_new != pol_old and _qualifiers(new) == _qualifiers(old):
        if jaccard(_strip_polarity(new), _strip_polarity(old)) >= 0.6:  # same statement, flipped
            if relation() == "different":
                return None
            if _strip_polarity(new) - _strip_polarity(old):
                # "Never run tests before pushing to a draft branch" after "Always run tests before
                # pushing": the new rule adds words, so it may be an exception to the old one
                return "unsure", "may be an exception to the opposite instruction"
            return "replaces", "opposite instruction"
    if pol_new < 0 and pol_old == 0 and _qualifiers(new) == _qualifiers(old) \
            and jaccard(_strip_polarity(new), _strip_polarity(old)) >= 0.8 and relation() != "different":
        # "We don't deploy with fly.io on Mondays" after "We deploy with fly.io on Mondays": the
        # plain statement negated, or a correction of one case; the user decides
        return "unsure", "may say the opposite"
    return None


def _choice_conflict(new: str, old: str) -> str | None:
    c_new = choices(new)
    if not c_new:
        return None
    c_old = choices(old)
    for category, new_opts in c_new.items():
        old_opts = c_old.get(category)
        if not old_opts:
            continue
        for option, stance in new_opts.items():
            old_stance = old_opts.get(option)
            if old_stance is not None and old_stance != stance:
                return f"{category}: {'now uses' if stance > 0 else 'no longer uses'} {option}"
            if stance > 0:
                rivals = [o for o, s in old_opts.items() if s > 0 and o != option and new_opts.get(o, 0) <= 0]
                if rivals:
                    return f"{category}: {option} instead of {rivals[0]}"
    return None


def contradicts(new: str, old: str) -> str | None:
    """Why ``new`` clearly replaces ``old`` (a short reason), or None (see ``assess``)."""
    verdict = assess(new, old)
    return verdict[1] if verdict and verdict[0] == "replaces" else None
