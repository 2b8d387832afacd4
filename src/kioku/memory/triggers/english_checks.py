"""Checks the English detector applies to a trigger's sentence: tasks, labels, retractions, work at hand."""

from __future__ import annotations

import re

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.memory.triggers.phrases_en_work import (
    _ASKS_BACK, _COMPLAINT, _DONE_WITH_IT, _NEW_SENTENCE, _NOT_ABOUT_THE_THING, _NOT_A_SUBJECT, _NOT_STATED,
    _ONE_SHOT_EN, _ONE_SHOT_WORDS, _OUTPUT_LINE, _PLEASE_WORK, _REST_LIMIT, _RETRACTED, _RETRACT_WORDS,
    _RULE_LABELS, _STANDING, _STATING_WORDS, _TASK_SENTENCE, _TASK_VERB_WORDS, _THAT_CLAUSE, _THING_PAST,
    _THING_SUBJECT, _WINDOW, _WORK_AT_HAND_EN, _WORK_NOUNS, _WORK_NOW, _WORK_START,
)
from kioku.memory.triggers.sentences import _BLOCK_SENTENCE, _SENTENCE_MARKS, _SENT_END, _strip_trail
from kioku.memory.triggers.phrases_en import (
    _EN_LASTING_HEAD, _EN_LASTING_TAIL, _EN_LEADING, _EN_POLITE_TAIL, _EN_TASK_TAIL, _EN_TRIGGER_NAMES,
    _FOLDS_TO_ASCII, _HEADER_CUES, _HEADER_OPENERS, _LABEL_ENDS, _LABEL_LEFT_WORDS, _LASTING_CUES,
    _LEAD_FIRST_WORDS, _QUOTED,
)


def _has_words(low: str, words: tuple) -> bool:
    """Whether ``low`` has one of ``words``, or, for a tuple of word groups, one of each group's."""
    if words and isinstance(words[0], tuple):
        return all(any(w in low for w in group) for group in words)
    return any(w in low for w in words)


def _may_hold_a_label(low: str) -> bool:
    """Whether a label could end at some ":" (with white space after it) or "?" of ``low``: the
    text before it, back to a sentence mark and at most 110 characters, has a word that opens a
    label and one that says it lasts. Most prompts with a colon have neither, so the label
    pattern is not compiled for them (it is the costliest part of the start pattern)."""
    ends = 0
    for mark in (":", "?"):
        at = low.find(mark)
        while at >= 0:
            ends += 1
            if ends > _LABEL_ENDS:
                return True
            if mark == "?" or at + 1 == len(low) or low[at + 1].isspace():
                label = low[max(0, at - 110):at]
                label = label[max(label.rfind(m) for m in ".!?;\n:") + 1:]
                if any(w in label for w in _HEADER_OPENERS) and (
                        any(w in label for w in _HEADER_CUES) or label.rstrip().endswith(("memory", "memories"))):
                    return True
            at = low.find(mark, at + 1)
    return False


def _folded(masked: str) -> str:
    """``masked`` in lower case, with the four non-ASCII letters that re.I matches to ASCII ones
    (İ, ı, ſ and the Kelvin sign) mapped to those: where a pattern's words are looked for."""
    return (masked if masked.isascii() else masked.translate(_FOLDS_TO_ASCII)).lower()


def _starts_with_lead_word(masked: str, pos: int) -> bool:
    """Whether the text at ``pos`` begins with a word a lead-in can start with."""
    end = pos
    while end < len(masked) and (masked[end].isalpha() or masked[end] == "'"):
        end += 1
    word = masked[pos:end]
    return _folded(word) in _LEAD_FIRST_WORDS


def _may_lead(content: str) -> bool:
    """Whether ``_EN_LEADING`` can match at the start of the stripped ``content``: it needs one
    of its words or marks first. Text that does not start in ASCII is always tried (under re.I
    some other letters match ASCII ones, such as ſ for s)."""
    head = content[:7]
    return (not head.isascii() or head[:1] in ":-—,"
            or head.lower().startswith(("that", "to", "please")))


def _clean_en(content: str) -> str:
    content = content.strip()
    if any(words in content[:30].lower() for words in _LASTING_CUES):
        content = _EN_LASTING_HEAD.sub("", content) or content  # "In the future, always ask …"
    if "\n" in content:  # a block after "remember:": keep list markers, drop the colon
        content = re.sub(r"^[:\s]+", "", content)
    else:
        if _may_lead(content):
            content = _EN_LEADING.sub("", content)
        # "remember that we use bun, and fix the test": the task after ", and" is not memory
        if "," in content or ";" in content:  # the tail starts at one of them
            content = _EN_TASK_TAIL.sub("", content)
    if not content.isascii() or any(word in content.lower() for word in ("pleas", "pls", "thank", "thx")):
        content = _EN_POLITE_TAIL.sub("", content)  # (compiled only when one of its words is there)
    content = _strip_trail(content).strip()
    if any(words in content[-30:].lower() for words in _LASTING_CUES):
        content = _strip_trail(_EN_LASTING_TAIL.sub("", content)).strip()  # "… for future sessions"
    m = _QUOTED.match(content) if content[:1] in "'\"“「" else None
    return next(g for g in m.groups() if g).strip() if m else content


def _before_a_task(text: str, start: int, end: int) -> int:
    """Where the block ``text[start:end]`` stops: before its first sentence after the first that
    asks for work now, list items aside."""
    low = text[start:end].lower()
    if not any(verb in low for verb in _TASK_VERB_WORDS):
        return end  # no task verb at all: the pattern is not compiled
    first = True
    for m in _BLOCK_SENTENCE.finditer(text, start, min(end, start + 4000)):  # a note is far shorter
        sentence = m.group(0).strip()
        if not sentence:
            continue
        if first:
            first = False
            continue
        if sentence[:2] in ("- ", "* ", "+ ") or sentence[:1].isdigit():
            continue  # a list of notes
        if _TASK_SENTENCE.match(sentence) and not _STANDING.search(sentence):
            return m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
    return end


def _holds_secret(content: str) -> bool:
    """A note with a secret in it ("remember my key sk-…") is still a request: refusing it is
    what tells the user it was not kept."""
    from kioku.text.secrets import contains_secret

    return bool(contains_secret(content))


def _states_something(content: str) -> bool:
    return any(word.strip(".,;:!?()\"'`") in _STATING_WORDS for word in content.lower().split())


def _limited_to_now(segment: str) -> bool:
    """``_ONE_SHOT_EN`` in ``segment``, compiled only when one of its words is there."""
    low = segment.lower()
    return any(word in low for word in _ONE_SHOT_WORDS) and _ONE_SHOT_EN.search(segment) is not None


def _names_a_value(content: str) -> bool:
    """"the preferred log format: JSON lines", "the seed data command: `make seed`": a thing
    and its value, which states a fact as a verb would. Not "this list: a, b, c" nor "the
    plan: first …", which are the work at hand."""
    thing, colon, value = content.partition(": ")
    if not colon or not value.strip():
        return False
    words = [w.strip(".,;()'\"`").lower() for w in thing.split()]
    # "the preferred log format", not a one-word label ("Remember device: Yes/No" is a login box)
    described = (len(words) >= 2 and words[0] in ("our", "my")) or (len(words) >= 3 and words[0] == "the")
    return described and not _WORK_NOUNS.intersection(words)


def _only_lasting(content: str) -> bool:
    """Content that is only how long to keep something ("for future sessions", "next time")."""
    low = content.lower()
    return any(words in low for words in _LASTING_CUES) and not _EN_LASTING_TAIL.sub("", " " + content).strip()


def _asks_to_keep(content: str, trigger: str) -> bool:
    """Whether a request phrased as a question ("Could you remember that …?") holds a note to
    keep: a statement in the present ("… that staging is on port 5433?", its verb among the
    first eight words, not "… that far back in the conversation, or should I …?"), or a standing rule
    ("… remember to run lint before each commit?"). "Can you remember to fix it?" asks for
    work now, and "can you remember that the bug was …?" asks about the past."""
    words = {word.strip(".,;:!?()\"'`") for word in content.lower().split()[:8]}
    if trigger.endswith(" to"):
        return bool(_STANDING.search(content))  # a rule; "… after this change?" is work at hand (see above)
    return bool((words & _STATING_WORDS) - _NOT_STATED)  # a clause: its verb comes early


def _amid_output(masked: str, pos: int) -> bool:
    """Whether the nearest non-blank lines before and after the line at ``pos`` are both
    program output (blank lines between them are skipped). A line that opens a block of notes
    ("Remember:") is the user's, whatever its notes look like."""
    line_start, line_end = masked.rfind("\n", 0, pos), masked.find("\n", pos)
    if line_start < 0 or line_end < 0 or masked[pos:line_end].rstrip().endswith(":"):
        return False
    end = line_start
    while end > 0 and masked[end - 1].isspace():
        end -= 1
    preceding = masked[masked.rfind("\n", 0, end) + 1:end].lstrip()
    following = masked[line_end:line_end + _WINDOW].lstrip().split("\n", 1)[0]
    return bool(_OUTPUT_LINE.match(preceding) and _OUTPUT_LINE.match(following))


def _a_note_to_keep(content: str, rest: str, label: str) -> bool:
    """Whether the text after a label is a note to keep: no question in its first sentence, not
    taken back, and no sentence in its paragraph that asks for work now (the label then
    introduces the task's context, not a memory). The first sentence is a task when it opens
    with a task verb and has no verb of its own after it ("Long-term note: write unit tests for
    X", but not "Heads-up: test fixtures are regenerated nightly"), except after a label of a
    rule or a preference ("Long-term preference: write commit messages in English")."""
    rest = rest[:_REST_LIMIT]
    first = _SENT_END.split(content, 1)[0] if any(mark in content for mark in _SENTENCE_MARKS) else content
    if "?" in first or "?" in rest[:len(first) + 2]:
        return False
    low = rest.lower()
    if any(word in low for word in _RETRACT_WORDS) and _RETRACTED.search(rest.strip()):
        return False
    rule = any(word in label for word in _RULE_LABELS)
    for n, m in enumerate(_BLOCK_SENTENCE.finditer(rest)):
        sentence = m.group(0).strip()
        if not sentence:
            continue
        if n == 0 and not rule and not _STANDING.search(sentence) and (
                (_WORK_START.match(sentence) and not _states_something(sentence.split(None, 1)[-1]))
                or ("please" in sentence.lower() and _PLEASE_WORK.search(sentence))):
            return False  # "Write unit tests for X" (but "Test fixtures are regenerated nightly")
        if n and _asks_for_work(sentence):
            return False
    return True


def _asks_for_work(sentence: str) -> bool:
    """A sentence that asks for work now (see ``_WORK_NOW``), with no word of a standing rule."""
    return bool((_WORK_NOW.match(sentence) or ("please" in sentence.lower() and _PLEASE_WORK.search(sentence)))
                and not _STANDING.search(sentence))


def _opens_a_clause(label: str) -> bool:
    """"that" in a label opening a clause with a verb ("… that the env vars are: …"), not
    pointing at something ("Remember that approach for future sessions: …")."""
    m = _THAT_CLAUSE.search(label) if "that" in label.lower() else None
    return m is not None and _states_something(m.group("clause"))


def _line_note_end(masked: str, start: int) -> int:
    line_end = masked.find("\n", start)
    line_end = len(masked) if line_end < 0 else line_end
    cut = _NEW_SENTENCE.search(masked, start, line_end)
    return cut.start() + 1 if cut else line_end


def _about_the_thing(content: str, asked: bool) -> bool:
    """Whether what follows a named thing says what it is (see :data:`_NOT_ABOUT_THE_THING`).
    After a question, only a statement in the present of three words or more: one that opens with
    the thing's pronoun or with "we"/"our"/"I"/"my" (:data:`_THING_SUBJECT`), or one with another
    subject whose verb is among its first words ("Staging runs on port 8443"), never one that opens
    with a verb or a connective (a task: "Then run the tests", "Generate the migration from it")."""
    if _NOT_ABOUT_THE_THING.search(content) or _WORK_AT_HAND_EN.search(content) or _COMPLAINT.search(content):
        return False
    if not asked:
        return True
    if _ASKS_BACK.match(content):
        return False
    if len(content.split()) < 3 or content.endswith("?") or _THING_PAST.match(content) or _DONE_WITH_IT.search(content):
        return False
    words = content.lower().split()
    if _THING_SUBJECT.match(content):
        return _asks_to_keep(content, "") or (words[0] in ("we", "they", "i") and words[1] not in _NOT_STATED)
    return words[0].strip(",:") not in _NOT_A_SUBJECT and _asks_to_keep(content, "")


def _header_trigger(label: str) -> str:
    """The trigger named by the words of a label ("Keep this in mind for all future work:" is
    "keep in mind"); "keep for later" when it names none of the usual ones."""
    for words, name in ((("down",), "write this down"), (("in mind",), "keep in mind"), (("forget",), "don't forget"),
                        (("remember", "memori"), "remember"), (("note",), "note for future"),
                        (("memory", "memories"), "save to memory")):
        if any(word in label for word in words):
            return name
    return _EN_TRIGGER_NAMES["header"]


def _label_at(masked: str, pos: int, pair: tuple[_Lazy, _Lazy]) -> re.Match[str] | None:
    """A label that asks to keep and says how long, starting at ``pos`` (``_EN_LABEL`` or
    ``_EN_THING_LABEL``, with the lead-in or without it)."""
    with_lead, bare = pair
    return (with_lead if _starts_with_lead_word(masked, pos) else bare).match(masked, pos)


def _left_a_label(content: str) -> bool:
    """Whether an older form's note still begins with a label's words ("for next time: …",
    "sessions: Lena from QA …", "approach for future sessions: …"): the label form reads it better."""
    head, colon, _ = content[:90].partition(": ")
    return bool(colon) and any(word in head.lower() for word in _LABEL_LEFT_WORDS)
