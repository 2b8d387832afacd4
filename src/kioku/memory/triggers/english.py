"""The English detector: a trigger at a sentence start or as a closing tag, and what it asks to keep."""

from __future__ import annotations

import re

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.memory.triggers.request import RememberRequest
from kioku.memory.triggers.phrases_en_work import (
    _ABOUT_THE_NEXT_STEP, _ACKNOWLEDGED, _ASKED_TO_KEEP, _BARE_KINDS, _BLOCK_AFTER_COLON, _COMPLAINT,
    _DEMONSTRATIVE_START, _EN_STANDING_END, _FINALLY_KEEP, _IT_IS, _LABEL, _LASTS_WORDS, _MARK_THEN_SPACE,
    _MAX_CANDIDATES, _NEXT_TIME_WHEN, _NOW_FIRST, _OWN_PLANS, _POLITE_ASK, _RESULT_CLAUSE, _STANDING,
    _SUBJECT_START, _WH_AFTER, _WINDOW, _WORK_AT_HAND_EN, _WORK_ON_A_THING,
)
from kioku.memory.triggers.sentences import (
    _SENTENCE_MARKS, _continued_end, _is_en_question, _is_reference, _sentence_end, _sentence_starts,
    _strip_trail,
)
from kioku.memory.triggers.phrases_en import (
    _BARE_CLOSING_LASTS, _CLOSING_REQUEST, _EN_ALTS, _EN_END, _EN_LABEL, _EN_START, _EN_START_PARTS,
    _EN_THING_LABEL, _EN_TRIGGER_NAMES, _HEADER_LASTS, _HEADER_NOT, _PROGRAM_VERB, _RULE_FIRST_WORDS,
    _THING_ARTICLES, _THING_VERB_WORDS, _en_start_source,
)
from kioku.memory.triggers.english_checks import (
    _a_note_to_keep, _about_the_thing, _amid_output, _asks_for_work, _asks_to_keep, _before_a_task,
    _clean_en, _folded, _has_words, _header_trigger, _holds_secret, _label_at, _left_a_label,
    _limited_to_now, _line_note_end, _may_hold_a_label, _names_a_value, _only_lasting, _opens_a_clause,
    _starts_with_lead_word, _states_something,
)


def _en_start_for(masked: str) -> tuple[_Lazy, _Lazy | None]:
    """``_EN_START`` restricted to the alternatives that can match in ``masked``, and the same
    without the lead-in (``None`` when there is no such variant).

    The full pattern is the costliest to compile (~3 ms, paid by every save in a fresh hook
    process). An alternative left out needs a word that is not in the text, so it could not
    match anywhere and the matches are the same. The lead-in is most of the rest (~1 ms), and
    a sentence that does not start with one of its words ("remember that ...") is matched the
    same without it. The words are looked for in ``_folded`` text.
    """
    low = _folded(masked)
    names = tuple(name for name, _, words in _EN_ALTS if _has_words(low, words))
    if len(names) == len(_EN_ALTS):
        return _EN_START, None
    pair = _EN_START_PARTS.get(names)
    if pair is None:
        if not names:
            nothing = _Lazy(r"(?!)")
            pair = (nothing, nothing)
        else:
            pair = (_Lazy(_en_start_source(names)), _Lazy(_en_start_source(names, lead=False)))
        _EN_START_PARTS[names] = pair
    return pair


def _en_request_at(text: str, masked: str, pos: int, m: re.Match[str]) -> RememberRequest | None:
    """The request that the trigger matched at sentence start ``pos`` makes, if it is one."""
    if "\n" in masked and _amid_output(masked, pos):
        return None
    groups = m.groupdict()
    kind = next(k for k in _EN_TRIGGER_NAMES if groups.get(k))
    trigger_at = m.start(kind)  # after the lead-in
    misspelt = kind == "misspelt" or (kind == "rememberlong" and not groups["rememberlong"].lower().startswith(
        ("remember", "memori")))
    kind = "remember" if kind in ("rememberlong", "misspelt") else kind
    trigger = masked[m.start():m.end()].rstrip().lower()
    explicit = trigger.endswith((":", ",", "-", "—", "that"))
    bare_kind = kind in _BARE_KINDS and not explicit
    if bare_kind and _WH_AFTER.match(masked, m.end()):
        return None  # "remember when we ...", "remember how to ..." (but "remember: when ...")
    block = trigger.endswith(":")
    if block and groups.get("thing") and "\n" not in masked[masked.rfind(":", pos, m.end()):m.end()] \
            and not _BLOCK_AFTER_COLON.match(masked, m.end()):
        end = _line_note_end(masked, m.end())  # "Remember the test cmd for later: pytest -q\n<other text>"
    else:
        end = _sentence_end(masked, m.end(), block)
        end = _before_a_task(masked, m.end(), end) if block else _continued_end(masked, end)
    # the pattern's trailing white space may have run over a masked quote ("remember that
    # `pnpm` is ..."): the content starts where the trigger's own words end
    begin = m.end()
    while begin > pos and masked[begin - 1].isspace():
        begin -= 1
    while begin < end and text[begin].isspace():
        begin += 1
    sentence = text[begin:end]
    asked = _is_en_question(sentence) or _is_en_question(text[pos:end])
    if asked and not _ASKED_TO_KEEP.search(masked, pos, m.end()):
        return None
    # for "from now on, ..." the sentence itself is the standing instruction to keep
    content = _clean_en(sentence)
    if kind == "header" and any(word in content.lower() for word in ("remember", "mind", "forget", "memori")):
        content = _strip_trail(_CLOSING_REQUEST.sub("", content)) or content  # "…. Keep that in mind too."
    if kind == "header":
        label = groups["header"]
        if not _HEADER_LASTS.search(label) or _HEADER_NOT.search(masked, pos, m.end()) or _opens_a_clause(label):
            return None  # "Please don't remember this …:", "Remember for future sessions that the env vars are: …"
        # (the paragraph is the text's: a masked code block is blank, but no blank line)
        if not _a_note_to_keep(content, masked[m.end():_sentence_end(text, m.end(), block=True)], trigger):
            return None  # "Long-term note: write unit tests for X", "Save this for later: … actually, run it now"
        if _OWN_PLANS.match(content) or _ACKNOWLEDGED.match(content):
            return None  # "Save it for later: I'll come back to this after lunch", "…? Thanks, that's all"
        label_asks = trigger.endswith("?")
        if label_asks and not _POLITE_ASK.search(masked, pos, m.end()):
            return None  # "Will you remember this for later? …" asks what will happen
        if groups.get("thing"):
            if not _about_the_thing(content, label_asks):
                return None  # "Can you remember the results for next time? I want to compare them"
        elif label_asks and (_PROGRAM_VERB.search(trigger) or not _asks_to_keep(content, "")
                             or _WORK_AT_HAND_EN.search(content) or _COMPLAINT.search(content)):
            return None  # "Can you save it for later? …", "Could you take note of this? It was a nightmare"
    if kind == "henceforth" and (_WORK_AT_HAND_EN.search(content) or (
            _WORK_ON_A_THING.match(content) and not _STANDING.search(content))):
        return None  # "Going forward, use the new client in this file", "Moving forward, write the tests for X"
    if content[:14].lower().startswith(("for now", "just for now", "only for now", "not ")) and _NOW_FIRST.match(content):
        return None  # "Remember that for now, not for future sessions: …"
    if len(content.split()) < 2 and content.isascii():
        return None  # "remember: tests", "remember edge-cases": a word is no note
    if content.lower().startswith(("let's ", "let us ")):
        return None  # "From now on, let's work on the frontend": a plan for this work, not a rule
    if _only_lasting(content):
        return None  # "Remember that for future sessions." points back: the closing form reads it
    if bare_kind and not trigger.endswith(" to") and content.isascii() and not _names_a_value(content) \
            and (not _states_something(content) or _LABEL.match(content)) and not _holds_secret(content):
        return None  # "Remember the diff above, now apply it", "Remember password: <a UI label's text>"
    # the whole sentence, also what came before a start inside it ("…, so please remember it: …")
    opened = max(masked.rfind(mark, max(0, pos - _WINDOW), pos) for mark in _SENTENCE_MARKS) + 1
    line_end = masked.find("\n", m.end())
    closed = min(end, m.end() + _WINDOW, line_end if line_end >= 0 else end)
    if _limited_to_now(masked[max(opened, pos - _WINDOW):closed]):
        return None  # "Remember this for the next command only: use --dry-run"
    if kind in ("mind", "dont") and (bare_kind or kind == "mind") and _ABOUT_THE_NEXT_STEP.search(content):
        return None  # "keep in mind that parse() mutates its input while you refactor this module"
    if kind != "remember" and bare_kind and not _SUBJECT_START.match(content):
        return None  # "keep in mind memory usage here", "don't forget the trailing slash": the task's detail
    # The weaker forms (no "that" or colon, a question, a request inside a task's sentence,
    # a misspelling) are kept only when nothing ties the note to the work at hand
    just_before = masked[max(0, pos - 6):pos].rstrip()
    inside = just_before.endswith((", and", ", but"))
    after_so = pos > 0 and just_before.lower().rstrip(",").split()[-1:] == ["so"]  # "…, so please remember it:"
    if (bare_kind or asked or inside or after_so or misspelt) and _WORK_AT_HAND_EN.search(content):
        return None  # "can u remember to close the file handle in the except branch too"
    if inside and not any(words in masked[pos:end].lower() for words in _LASTS_WORDS) \
            and not _FINALLY_KEEP.search(masked, pos, m.end() + 2):
        return None  # "Write the migration, and remember that this table has 40M rows": for this task
    if asked:
        if (bare_kind and not trigger.endswith(" to")) or not _asks_to_keep(content, trigger):
            return None  # "Could you remember that bug we had?", "can you remember the exact wording?"
        content = content.rstrip("?？ ")
    it_is = _IT_IS.match(content) if groups.get("thing") else None  # "It is JSON lines": the thing is
    if len(content) < 3 or _is_reference(content[it_is.end():] if it_is else content, "en"):
        return None
    if trigger.endswith("that") and len(content.split()) < 2:
        return None  # "remember that approach": a demonstrative, not "that <clause>"
    lead_in = masked[pos:trigger_at]
    when = _NEXT_TIME_WHEN.search(masked, pos, trigger_at) if "next" in lead_in.lower() else None
    head = text[m.start("thing"):m.end("thing")] if kind == "header" and groups.get("thing") else ""
    if when:
        occasion = text[when.start():when.end(1)]
        head = f"{occasion}, {head}" if head else occasion  # "Next time we deploy, the rollout order: …"
    if it_is and it_is.group(0).lower().startswith("it") and "\n" not in content:
        # "The db password: It is …" is "The db password is …" (and the secrets check reads it so)
        content = f"{head[:1].upper()}{head[1:]} is {content[it_is.end():]}"
    elif head:
        joint = ":\n" if "\n" in content else ": "  # a block of notes stays a block
        content = f"{head[:1].upper()}{head[1:]}{joint}{content}"  # what it is about, or when it holds
    name = _header_trigger(trigger) if kind == "header" else _EN_TRIGGER_NAMES[kind]
    return RememberRequest(content, name, "en")


def _detect_en(text: str, masked: str) -> RememberRequest | None:
    candidates = 0
    # The older forms first; the label form (the costliest pattern to compile) only where they
    # find no request, or leave a label's words in the note, and only in a text that may hold a
    # label at all
    start, bare = _en_start_for(masked)
    low = _folded(masked)
    labels = _may_hold_a_label(low)
    things = labels and _has_words(low, (_THING_VERB_WORDS, _THING_ARTICLES))
    for pos in _sentence_starts(masked):
        use_bare = bare is not None and not _starts_with_lead_word(masked, pos)
        m = (bare if use_bare else start).match(masked, pos)
        request = None
        counted = bool(m)
        if m:
            candidates += 1
            if candidates > _MAX_CANDIDATES:
                return None
            request = _en_request_at(text, masked, pos, m)
        for pair, wanted in ((_EN_LABEL, labels), (_EN_THING_LABEL, things)):
            if not wanted or not (request is None or _left_a_label(request.content)):
                continue
            label = _label_at(masked, pos, pair)
            # a line shaped like a label that says nothing of how long ("Note: …" in a pasted
            # log) is no candidate of the limit above
            if label and _HEADER_LASTS.search(label.group("header")):
                if not counted:
                    counted = True
                    candidates += 1
                    if candidates > _MAX_CANDIDATES:
                        return None
                request = _en_request_at(text, masked, pos, label) or request
        if request is not None:
            return request
    # closing tag form, only for a single short paragraph
    para = masked.strip()
    if len(para) <= 2000 and "\n\n" not in para:
        m = _EN_END.match(para)
        if m and not _is_en_question(m.group("content")):
            off = masked.index(para)
            content = _clean_en(text[off + m.start("content"):off + m.end("content")])
            for_now = _limited_to_now(para)  # "Use the mock server just for now, so please remember it."
            trig_words = m.group("trig").lower()
            bare, memorize = trig_words == "remember", trig_words.startswith("memori")
            low = m.group("content").lower()  # before cleaning took "from now on" away
            lasts = any(word in low for word in _BARE_CLOSING_LASTS) or low.lstrip().startswith(_RULE_FIRST_WORDS)
            if bare and not (_states_something(content) and lasts and not _asks_for_work(content)
                             and not low.startswith("you ")):
                content = ""  # "Run the tests again. Please remember."
            if memorize and (not _states_something(content) or _WORK_AT_HAND_EN.search(content)):
                content = ""  # "Okay thanks — memorize it.", "The output above — memorize it."
            if len(content) >= 3 and not _is_reference(content, "en") and not for_now:
                trig = re.sub(r"\s+(?:this|that|it)\b", "", m.group("trig").lower(), count=1)
                return RememberRequest(content, trig, "en")
        return _standing_tail(text, masked, para)
    return None


def _standing_tail(text: str, masked: str, para: str) -> RememberRequest | None:
    """The last sentence of ``para`` when it ends with "from now on" (or "going forward", "in
    future sessions"): a standing rule or fact, kept without those words."""
    low = para[-40:].lower()
    if not any(words in low for words in ("from now", "from here", "going forward", "future session")):
        return None  # (the pattern is compiled only when its words are there)
    m = _EN_STANDING_END.search(para)
    if not m:
        return None
    start = max((s.end() for s in _MARK_THEN_SPACE.finditer(para, 0, m.start())), default=0)
    off = masked.index(para)
    sentence = text[off + start:off + m.start()]
    if _RESULT_CLAUSE.search(sentence):
        return None  # "Change the handler so it returns 404 from now on": how the code will behave
    if _is_en_question(sentence) or _is_en_question(para):
        return None
    content = _clean_en(sentence)
    if len(content.split()) < 3 or content.lower().startswith(("let's ", "let us ")):
        return None  # "Sure, from now on.", "Let's work on the UI from now on": no rule to keep
    if _is_reference(content, "en") or _DEMONSTRATIVE_START.match(content):
        return None
    return RememberRequest(content, "from now on", "en")
