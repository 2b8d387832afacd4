"""Pure, fast "remember this" trigger detection and feedback polarity (English + Japanese).

Contract (stdlib only, no I/O, precompiled patterns):

- ``REMEMBER_HINT``: a cheap prefilter. Every prompt that ``detect_remember`` accepts matches
  it, so a hook can skip all further work when ``REMEMBER_HINT.search(prompt)`` is None.
- ``detect_remember(prompt) -> RememberRequest | None``: (content, trigger, language).
- ``feedback_polarity(text) -> int``: +1 positive, -1 negative, 0 neither.
- ``is_question(text) -> bool``.

Rules chosen for the ambiguous cases (tests pin each of them):

- A trigger counts only at the start of a sentence (after optional lead-ins such as "please",
  "also,", "hey claude,", "can you", "I want you to") or as a closing tag after the content
  ("we use bun - remember that"). "I can't remember the command" is not a request.
- Questions are not saves: the trigger's sentence ending in "?"/"？" (or Japanese "か"),
  and "remember" followed by a wh-word ("remember when/what/how ..."). The exception is a
  polite request, "can/could/would/will you remember (or keep in mind) that <a statement in
  the present>?" or "… remember to <a standing rule>?"; "can you remember that the bug was
  …?" asks about the past, "could you remember to fix it?" asks for work now.
- Text inside code blocks, inline code, double quotes or "> " quote lines cannot trigger.
- "save this" needs a colon ("save this: ...") or a memory target ("save this to memory");
  "save this file" / "save the file and run tests" are file operations.
- "don't forget that ..." / "don't forget: ..." is a memory; "don't forget to <verb>" is a
  one-off task for now, not a fact to keep. "remember to <verb>" IS a memory: "remember"
  explicitly asks to keep something. Without "that" or a colon, "remember", "keep in mind"
  and "don't forget" need a statement after them ("keep in mind we use pnpm"), not a thing
  ("keep in mind the rate limit"); "keep in mind this …" and "… when you write the client"
  are about the work at hand.
- "note that ..." alone is prose; "note for future sessions: ...", "make a note that ...",
  "for future reference: ..." are memories.
- "from now on, ..." and "in future sessions, ..." are standing instructions, so memories;
  the content keeps the instruction ("always use bun"). So is a last sentence that ends in
  "from now on" / "going forward" ("Use tabs from now on."), kept without those words, and
  "Going forward, / Henceforth, / In future," before a rule ("never …", "use …", "when you …"),
  not before a plan ("In the future, we might add caching").
- A short label that asks to keep and says for how long is a memory: "Please retain this
  across our sessions: …", "Long-term preference: …", "Heads-up to carry forward: …", "Can you
  hang on to this for future chats? <fact>". Not when it negates ("don't remember this for
  future sessions:"), when the note is a question or is taken back ("… actually, run it now"),
  or when its paragraph asks for work now ("Long-term note: write unit tests for X").
- Japanese 保存して is a memory save only with a memory word (メモリ/記憶/メモ/覚え/kioku)
  before it, or with the content after a colon and no file-ish object (ファイル/変更/画像...);
  "ファイルを保存して" is a file save. 忘れないで is a memory when the content is a fact
  ("…ことを忘れないで", "忘れないで：…"), a task when it is "…するのを忘れないで".
- Content drops the trigger, politeness ("please", "ください"), a leading "that"/"to"/":"
  and trailing punctuation; empty content means no request. A task appended after
  ", and fix/run/add ..." is cut off; a fully quoted content is unwrapped. A Japanese trigger
  standing alone in its sentence takes the neighbouring sentence ("…。覚えておいて").
- Content that only points at the conversation ("this function's signature", "that
  approach", "what you just did", "この関数の仕様", "今日のミーティングの内容") holds no fact
  the hook could store, so it is not a save request (Claude can still act on the prompt).

Feedback polarity rules: strong phrases ("thanks", "that worked", "doesn't work", "still
failing", "not what I asked", "ありがとう", "動かない") count anywhere in the first 600
characters; weak single words ("great", "failing", "wrong", "失敗") only in a reply of at most
three words or among its first two words, because tasks use them too ("fix the failing
test"). Positive phrases that contain a negative word win ("not bad", "no problem",
"doesn't fail anymore", "間違いない"). Mixed feedback with a contrast ("thanks, but it still
fails") is negative. Questions are neutral unless they complain ("why is it still failing?").
"""

from __future__ import annotations

import re

from kioku.infra.lazyre import LazyPattern as _Lazy

# Neither ``typing`` nor ``dataclasses`` is imported at run time: UserPromptSubmit imports this
# module on every prompt just for REMEMBER_HINT, and those two cost ~10-20 ms of start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

__all__ = [
    "REMEMBER_HINT",
    "RememberRequest",
    "detect_remember",
    "feedback_polarity",
    "is_question",
]

# Cheap prefilter: every trigger contains one of these stems. Written as one leading character
# class plus look-behind branches because CPython's regex engine can then skip positions by
# the class alone; a plain alternation of words is ~3x slower on ordinary prompts.
REMEMBER_HINT: re.Pattern[str] = re.compile(
    r"(?i)[rmsfnkwglphtbd覚記保メ忘今こ次以](?:(?<=r)(?:emem|emb|emeb|emmeb|mem)|(?<=m)emor|(?<=m)ind\b|(?<=s)(?:ave|tore)\b"
    r"|(?<=dow)n\b|(?<=g)oing forward|(?<=s)(?:essions|tanding)\b|(?<=l)(?:ater\b|asting\b|ong[- ]?term)"
    r"|(?<=n)ext (?:time|session)|(?<=p)ersist|(?<=p)ermanent|(?<=h)enceforth|(?<=t)his point"
    r"|(?<=b)eyond (?:today|this)|(?<=d)urable"
    r"|(?<=f)(?:orget|uture|rom now|rom here|orward|orever|or good)|(?<=n)ote\b|(?<=覚)え|(?<=記)[憶録]|(?<=保)存|(?<=メ)モ|(?<=忘)れ"
    r"|(?<=今)(?:後|度から)|(?<=こ)れから(?:先)?は|(?<=次)(?:回)?から|(?<=以)[後降])"
)


class RememberRequest:
    """What to remember (``content``), the phrase that asked for it (``trigger``, without
    politeness) and the prompt language ("en" | "ja"). Immutable, compares by value (the
    behaviour of a frozen dataclass, without importing ``dataclasses``)."""

    __slots__ = ("content", "trigger", "language")
    content: str
    trigger: str
    language: Literal["en", "ja"]

    def __init__(self, content: str, trigger: str, language: Literal["en", "ja"]) -> None:
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "trigger", trigger)
        object.__setattr__(self, "language", language)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("RememberRequest is immutable")

    def _key(self) -> tuple[str, str, str]:
        return (self.content, self.trigger, self.language)

    def __eq__(self, other: object) -> bool:
        return type(other) is RememberRequest and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"RememberRequest(content={self.content!r}, trigger={self.trigger!r}, "
                f"language={self.language!r})")


# --- masking: code, quotes and quoted lines cannot trigger (offsets are preserved) -------
# (a fence runs to its closing fence or the end of the text: "\Z", since "$" under re.M would end
# it at the end of its first line and leave the code after it readable as a request)
_MASK_RE = _Lazy(r"```[\s\S]*?(?:```|\Z)|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|^>.*$", re.M)


def _mask(text: str) -> str:
    if not any(ch in text for ch in "`\"“>"):  # every branch needs one of these: skip compiling
        return text
    return _MASK_RE.sub(lambda m: " " * len(m.group(0)), text)


# --- English -------------------------------------------------------------------------------
# The occasion in "Next time <occasion>, remember that …": someone doing something (a dot only
# inside a name such as auth.py), and not a reply or a run in this conversation
_OCCASION = (r"(?!(?:you|we|i)\s+(?:reply|respond|answer|run it|run this|try again|do it)\s*,)"
             r"(?:we|you|i|the\s+[\w-]+)\s(?:[^,.;:!?\n]|\.(?=\S)){1,40}?"
             r"(?<!this session)(?<!this conversation)(?<!this chat)")
_LEAD = (
    r"(?:(?:please|pls|plz|kindly|also|and|oh|ok|okay|hey|hi|so|btw|by the way|one more thing|just so you know"
    r"|fyi|important|claude|kioku|note|permanently)\b(?:\s*[,:!—–-])?\s+"
    r"|note to self\s*[,:]?\s+"
    r"|next (?:time|session)(?:\s+" + _OCCASION + r")?,\s+"  # "Next time we work on this, remember that …"
    r"|(?:can|could|would|will) (?:you|u)\s+"
    r"|(?:you (?:should|must|need to|have to)|make sure (?:to|you)|be sure to|always)\s+"
    r"|i(?:'d| would)? (?:want|need|like) (?:you|u) to\s+)*"
)
_WH = r"(?:what|when|where|why|how|who|whom|whose|which|whether|if)\b"

# How long a note is to be kept, between the trigger and the note ("remember for the future:",
# "keep in mind going forward that")
_LASTING = (r"\s+(?:for (?:all |every )?(?:the )?(?:future(?: (?:sessions?|work|reference|conversations?|chats?))?"
            r"|later|next time|good)(?: on this (?:repo|project|codebase))?|forever|permanently|going forward"
            r"|from now on|across sessions|in (?:all )?future sessions|this time)")

# The same after a note or a closing "remember that" ("… for future sessions", "… across
# sessions"): one list, so that what _only_lasting leaves to the closing form (_EN_END) is read there
_LASTING_TAIL = (r"(?:(?:for|in|across) (?:all |every |our )?(?:the )?(?:future )?sessions?"
                 r"|(?:for|in|across) (?:all |every )?(?:our |the )?future (?:conversations?|chats?)"
                 r"|across (?:all )?our (?:conversations|chats)"
                 r"|(?:for|in) (?:all |every )?"
                 r"(?:the )?future|from now on|from here on(?: out)?|going forward|(?:for )?next (?:time|session))")

# Misspellings of "remember" seen in quick typing
_REMEMBER_TYPOS = ("rember", "remeber", "remmeber", "rmember", "remembr", "rememebr", "rememeber")
# Words one of which every "how long" pattern needs (_LASTING, _LASTING_TAIL, _EN_LASTING_HEAD):
# a text without any is not compiled against them
_LASTING_CUES = ("future", "later", "next time", "next session", "every session", "good", "forever", "permanently",
                 "going forward", "from now", "from here", "across", "this time")
_REMEMBER_THIS = r"(?:\s+(?:this|it|the following)(?:\s+(?:rule|note|fact|preference|convention|one))?)"
_REMEMBER_TAIL = (r"(?!\s+" + _WH + r")(?!\s+me\b)"  # "Remember me" is a login box
                  r"(?:" + _REMEMBER_THIS + r"?(?=\s*(?:[:\-—,]|that\b)))?\s*(?::|-|—|,|that\b|to\b)?")

# What a standing instruction opens with: a rule ("always …", "never …", "use …", "when you …"), not
# a plan or a forecast ("we might …", "let's …", "the API will …", "when we migrate, …")
_RULE_VERB = (r"(?:(?:please|kindly)\s+)?(?:always|never|don'?t|do not|avoid|use|prefer|ask|make sure|be sure|stick"
              r"|write|run|keep|put|name|target|default|(?:when|whenever|if) (?:you|writing|adding|creating|using"
              r"|making|editing|generating|working))(?![\w-])(?![ \t]+(?:cases?|access|settings|of)\b)")
# After "Going forward," / "Henceforth," a rule may also name what it covers ("every new endpoint
# gets …", "no PR merges without …"); after "In (the) future," that is a forecast, so only a verb
_RULE_OPENER = r"(?:" + _RULE_VERB + r"|(?:only|for (?:any|all|every)|every|all|any|no)\b)"
# How a label opens when it asks to keep what follows. A word that only means keeping a note
# ("remember", "keep in mind", "retain", "hang on to", "note"), with "this" (and at most one more
# word: "that approach") after it or not, is followed by a time word, a note or memory to keep it
# as or in, or the colon. A verb that also names a program's action ("save", "store", "keep",
# "persist", "record") needs "this" or "it" and then a time of the conversation (for future
# sessions, next time) or such a target ("Save this as a persistent note:", "store this in your
# memory:"), not "Store this in Redis", "Keep this branch for later" or "Store these forever".
# A note's name opens a label alone ("Long-term preference:", "Rule for this project from here on
# out:", "Heads-up to carry forward:"; a plural only right before the colon), not as part of a
# longer name ("Memory leak between sessions:", "Our notes app …", "Preferences across sessions
# are lost:").
_HEADER_LEAD = (r"(?:(?:before anything|first things first|first|last thing|one last thing|quick (?:one|thing)"
                r"|real quick)[ \t]*[,:—–-]*[ \t]*(?:and[ \t]+)?(?:please[ \t]+)?)?")
_KEEP_ONLY_VERB = (r"(?:remember(?![ \t]+me\b)|memori[sz]e|(?:keep|bear)(?:[ \t]+(?:this|that|it))? in mind"
                   r"|(?:don'?t|do not|never) forget|keep track of"
                   r"|hang on to|hold on ?to|retain|take note(?: of)?|make note of|note(?! that\b)|lock)")
_OBJECT = r"(?:this|that|it|these|the following)(?:[ \t]+(?:preference|note|rule|fact|one|down|in))?"
_AS_A_NOTE = (r"(?:as[ \t]+(?:an?[ \t]+)?(?:(?:lasting|permanent|persistent|standing|long[- ]term)[ \t]+)?"
              r"(?:note|rule|preference|memory|fact|reminder)"
              r"|(?:in|into|to)[ \t]+(?:your[ \t]+|my[ \t]+|the[ \t]+)?(?:long[- ]term[ \t]+)?"
              r"(?:memory|memories|notes))\b")
# The times a program verb needs after "this" ("Save this for future sessions:", "Store it for next
# time:"): the conversation's, not a program's ("Store these forever:", "Keep this between sessions:")
_SESSION_TIME = (r"(?:for[ \t]+(?:all[ \t]+|every[ \t]+)?(?:our[ \t]+|the[ \t]+)?(?:future|next|later)[ \t]+"
                 r"(?:sessions?|chats?|conversations?)|for[ \t]+next[ \t]+time|next[ \t]+time"
                 r"|in[ \t]+(?:all[ \t]+)?future[ \t]+sessions|across[ \t]+our[ \t]+"
                 r"(?:sessions|chats|conversations))\b")
_TIME_WORD = (r"(?:for|across|until|till|beyond|going|from|forward|permanently|forever|long[- ]term|next|between"
              r"|on file"
              r"|and|in[ \t]+(?:all[ \t]+|every[ \t]+)?(?:future|later))\b")
# A thing named after a verb that only keeps, up to six words, ending where the label says how long
# or ends ("Can you remember the output format for next time? It is …", "Remember the host and port
# for later: …"): the note is about it, so it heads the note ("The output format is …"). Its words
# are no time, pronoun or article again, and no mark of the work at hand ("the last three errors",
# "the output above"). Whether the label says how long is checked on it whole (_HEADER_LASTS).
_THING_VERB = (r"(?:remember(?![ \t]+me\b)|memori[sz]e|(?:take|make)[ \t]+note[ \t]+of|note|hang[ \t]+on[ \t]+to"
               r"|hold[ \t]+on[ \t]?to|(?:keep|bear)[ \t]+in[ \t]+mind)")
_NAMED_THING = (r"(?P<thing>(?:the|our|my)(?:[ \t]+(?!(?:next|future|later|following|time|sessions?|chats?"
                r"|conversations?|going|forward|permanently|forever|the|our|my|a|an|it|them|this|that|these"
                r"|those|last|above|below|previous|latest|recent|current|earlier|same|mind|memory|memories"
                r"|notes?)\b)[a-z][a-z'-]*){1,6}?)")
_THING_ENDS = (r"(?=[ \t]*[:?]|[ \t]+(?:for[ \t]+(?:(?:all|every|our|the|any)[ \t]+){0,2}(?:future|later|next)"
                r"|next[ \t]+time|across[ \t]+(?:our[ \t]+|all[ \t]+|future[ \t]+)?(?:sessions|chats|conversations)"
                r"|going[ \t]+forward|in[ \t]+(?:all[ \t]+)?future|from[ \t]+now[ \t]+on|permanently|forever"
                r"|long[- ]term|between[ \t]+sessions|in[ \t]+(?:your[ \t]+|my[ \t]+|the[ \t]+)?(?:long[- ]term[ \t]+)?memory)\b)")
_HEADER_START = (
    r"(?:please[ \t]+)?(?:" + _KEEP_ONLY_VERB + r"(?:[ \t]+" + _OBJECT + r"(?:[ \t]+[a-z]+)??)?"  # "that approach"
    r"(?=[ \t]*[:?(]|[ \t]+(?:" + _AS_A_NOTE + r"|" + _TIME_WORD + r"|in mind)\b)"
    r"|(?:persist|store|stash|save|keep|commit|record|put|write)[ \t]+(?:this|it)"
    r"(?:[ \t]+(?:preference|note|rule|fact))?"
    r"(?=[ \t]*[:?]|[ \t]+(?:" + _AS_A_NOTE + r"|" + _SESSION_TIME + r"))"
    r"|(?:add|save|store|create|make|write|put)[ \t]+(?:(?:this|that|it)[ \t]+)?(?:(?:to|in|into)[ \t]+)?"
    r"(?:a[ \t]+|your[ \t]+|my[ \t]+|the[ \t]+)?(?:new[ \t]+)?(?:long[- ]term[ \t]+)?memor(?:y|ies)\b"
    r"|add[ \t]+(?:(?:this|it)[ \t]+)?to[ \t]+(?:your[ \t]+|my[ \t]+|the[ \t]+)?"
    r"(?:(?:permanent|long[- ]term)[ \t]+)?notes\b"
    r"|make[ \t]+(?:this|it|that)[ \t]+an?[ \t]+(?:standing|permanent|lasting)[ \t]+(?:rule|note|preference)\b"
    r"|make[ \t]+an?[ \t]+(?:(?:lasting|permanent|persistent|long[- ]term)[ \t]+)?note\b"
    r"|i(?:'d|[ \t]+would)?[ \t]+(?:want|like|need)[ \t]+(?:this|that|it)[ \t]+(?:saved|kept|stored|noted|remembered)\b"
    r"|(?:something|one(?:[ \t]+more)?[ \t]+thing|a[ \t]+thing|things)[ \t]+(?:to|for you to)[ \t]+"
    r"(?:remember|keep in mind|note)\b"
    r"|(?:(?:a|the|my|our)[ \t]+)?(?:(?:long[- ]term|lasting|permanent|persistent|standing|durable)[ \t]+)?"
    r"(?:(?:note|rule|preference|reminder|record|heads[- ]up|memo|fyi)(?=[ \t]*[:,]|[ \t]+(?:for|to|across|in|that"
    r"|going)\b)|(?:notes|rules|preferences|reminders|records)(?=[ \t]*[:,])))")
# What in the label says the note lasts
_HEADER_LASTS = _Lazy(r"(?i:\b(?:for|in|and|across|into|with) (?:(?:all|every|the|our|any|my) ){0,2}future"
                 r"(?=[ \t]*(?:[:),]|$)|[ \t]+(?:sessions?|chats?|conversations?|reference|work|projects?|tasks?)\b)"
                 r"|\bfuture (?:reference|sessions?)|\bbeyond (?:today|this (?:session|chat|conversation))\b"
                 r"|\b(?:for|till|until) later\b|\bnext (?:time|sessions?)\b"
                 r"|\b(?:across|between) (?:our |all |all our |future )?sessions\b"
                 r"|\b(?:your|my|the|a|to|in|into|long[- ]term) memor(?:y|ies)\b(?![ \t]+[a-z])"
                 r"|\bpermanently\b|\b(?:is|are|be) permanent\b|\b(?:all|every|other) (?:our |future )?sessions?\b"
                 r"|\blong[- ]?term (?:note|preference|rule|memory|fact|reminder)\b"
                 r"|\b(?:lasting|permanent|persistent|standing|durable) (?:note|rule|preference|memory|fact|reminder"
                 r"|instruction|record)\b|\bgoing forward\b|\bfrom (?:now|here) on\b|\bhenceforth\b"
                 r"|\bcarry(?:ing)? (?:\w+ )?forward\b"
                 r"|\bfor good\b|\bforever\b|\bpersist (?:this|that|it) (?:preference|note|rule|fact)\b)")
# A label that says not to keep, or to keep only for now: "Please don't remember this for future
# sessions: …", "This is a one-off, don't carry it forward: …"
_HEADER_NOT = _Lazy(r"(?i:\b(?:don'?t|do not|never|no need to|not)[ \t]+(?:\w+[ \t]+)?"
                    r"(?:remember|memori[sz]e|save|store"
               r"|keep|note|record|retain|persist|carry|hang|hold|track|add|commit|for|in|across)\b|\bfor now\b"
               r"|\bjust for\b|\bonly\b|\bone[- ]off\b|\bthis once\b|(?<!beyond )\btoday\b|\blater in\b"
               r"|\bthis (?:conversation|chat|session|task|pr|refactor|file|branch)\b)")
# Verbs of a label that also name a program's action: with "Can you … ?" they ask for work
# ("Can you save it for later? …", "Could you persist it across sessions? …")
_PROGRAM_VERB = _Lazy(r"\b(?:persist|store|stash|save|keep (?:this|it|that)(?! in mind)|commit|record|put|write)\b")
# A last sentence that asks again to keep the note before it ("…. Keep that in mind in future
# conversations too."): the request, not part of the note
_CLOSING_REQUEST = _Lazy(r"(?i)(?<=[.!;])\s+(?:please\s+)?(?:(?:remember|memori[sz]e) (?:this|that|it)"
                         r"|keep (?:this|that|it) in mind|(?:don'?t|do not) forget (?:this|that|it))"
                         r"(?:\s+" + _LASTING_TAIL + r")?(?:\s+(?:too|as well))?[.!\s]*$")
# Words one of which _HEADER_LASTS needs (lower case), besides a label ending in "memory"
_HEADER_CUES = ("future", "later", "next time", "next session", "sessions", "long-term", "long term", "longterm",
                "lasting", "permanent", "beyond", "persist", "standing", "durable", "going forward", "from now",
                "from here", "henceforth", "forward", "for good", "forever")
# Words one of which _HEADER_START needs (lower case)
_HEADER_OPENERS = ("remember", "memori", "mind", "forget", "track", "hang on", "hold on", "retain", "note", "lock",
                   "persist", "store", "stash", "save", "keep", "commit", "record", "carry", "put", "write", "memor",
                   "add", "make", "want", "like", "need", "thing", "rule", "preference", "reminder", "heads", "memo",
                   "fyi")


# Each alternative sets a named group naming its trigger; content follows the match.
# (name, source, words one of which the alternative cannot match without, lower case)
# A short label that asks to keep what follows and says for how long: "Please retain this across
# our sessions: …", "Long-term note: …", "Heads-up to carry forward: …", "Can you hang on to this
# for future chats? <fact>" (at most 110 characters up to ":" or "?"; whether it says how long,
# and not "don't" or "for now", is checked on the label itself: ``_HEADER_LASTS`` and
# ``_HEADER_NOT``). It is a pattern of its own (``_EN_LABEL``): the costliest to compile, it is
# compiled only for a text that may hold a label (``_may_hold_a_label``).
def _label_alt(start: str) -> tuple[str, str, tuple]:
    """The "header" alternative for a label opening with ``start``: up to ":" or "?"."""
    return ("header", r"(?P<header>(?=[^\n:.!?;]{1,110}(?::(?=\s|$)|\?))(?:" + _HEADER_LEAD + start
            + r")[^\n:.!?;]{0,100}?)[ \t]*(?::(?=\s|$)|\?(?=\s+\S))", ())


_LABEL_ALT = _label_alt(_HEADER_START)
# The same with a thing named ("Can you remember the output format for next time? …"), a pattern
# of its own too (``_EN_THING_LABEL``), compiled only for a text that may name one
_THING_LABEL_ALT = _label_alt(r"(?:please[ \t]+)?" + _THING_VERB + r"[ \t]+" + _NAMED_THING + _THING_ENDS)

_EN_ALTS = (
    # bare "don't forget we deploy with Helm" is checked like bare "remember"; "don't forget to
    # run the tests" is a reminder for the work at hand, not a note
    ("dont", r"(?P<dont>(?:don'?t|do not|never) forget)(?:\s+(?:this|the following))?(?:" + _LASTING + r")?"
     r"\s*(?::|that\b|,\s*that\b"
     r"|,|(?!\s*to\b))", ("forget",)),
    ("save", r"(?P<save>(?:save|store|add|put|write|keep|record|commit)(?:\s+(?:this|that|it|these|the following))?"
     r"\s+(?:to|in|into|as)\s+(?:your\s+|the\s+|a\s+)?(?:long[- ]term\s+)?(?:memory|memories|kioku"
     r"|(?:a\s+)?memory note)(?![.\w-]))\s*(?::|that\b|-)", ("memor", "kioku")),
    ("savethis", r"(?P<savethis>save (?:this|that|the following))\s*:", ("save",)),
    ("writedown", r"(?P<writedown>(?:write|jot|note) (?:this|that|it) down(?:" + _LASTING + r")?)\s*(?::|-|—|that\b)",
     ("down",)),
    # "remember" in three alternatives, so that a save compiles only what its text can match:
    # with how long before the note ("remember for future reference that …"; tried first), plain,
    # and misspelt
    ("rememberlong", r"(?P<rememberlong>remember|memori[sz]e|" + "|".join(_REMEMBER_TYPOS) + r")" + _REMEMBER_THIS
     + r"?" + _LASTING + r"(?=\s*(?:[:\-—,]|that\b))\s*(?::|-|—|,|that\b)?",
     (("remember", "memori") + _REMEMBER_TYPOS, _LASTING_CUES)),
    ("remember", r"(?P<remember>remember|memori[sz]e)" + _REMEMBER_TAIL, ("remember", "memori")),
    ("misspelt", r"(?P<misspelt>" + "|".join(_REMEMBER_TYPOS) + r")" + _REMEMBER_TAIL, _REMEMBER_TYPOS),
    # "make a note" needs what follows to be the note ("Make a note: ...", "make a note that ..."),
    # not where or about what ("Make a note in the README", "a note of any flaky test", "note-taking")
    ("note", r"(?P<note>(?:make|take) a note(?:\s+for (?:the )?(?:future(?: sessions?)?|later|next time))?"
     r"(?=\s*(?::|,|that\b))|note for (?:your |the )?memory(?=\s*[:,\-—])"
     r"|note (?:this |it )?(?:down )?for (?:the )?future(?: sessions?)?"
     r"|note for (?:later|next time)|for future reference|for future sessions?)\s*(?::|,|-|that\b)?",
     ("note", "future")),
    ("mind", r"(?P<mind>(?:keep|bear)(?: this| that)? in mind(?:" + _LASTING + r"(?=\s*(?:[:\-—,]|that\b)))?)"
     r"\s*(?::|,|that\b)?", ("mind",)),
    ("fromnow", r"(?P<fromnow>from now on|(?:in|for) (?:all )?future sessions(?=\s*[,:])|going forward, always"
     r"|from here on(?: out)?(?=\s*[,:]))\s*[,:]?", ("from now", "future", "going forward", "from here")),
    # "Going forward, never run …", "Henceforth, please write …", "In future, when you …": the
    # sentence is kept when it is a rule (see _RULE_OPENER), not a plan ("In the future, we might …")
    ("henceforth", r"(?P<henceforth>(?:(?:going|moving) forward|henceforth|from this point (?:on(?:wards?)?|forward))"
     r"\s*,\s*(?=" + _RULE_OPENER + r")|in (?:the )?future\s*,\s*(?=" + _RULE_VERB + r"))",
     ("forward,", "henceforth", "this point", "future,")),
)


# The first word of every branch of ``_LEAD`` (lower case). A sentence whose first word is none
# of these cannot start with a lead-in, so ``_LEAD`` matches nothing there.
_LEAD_FIRST_WORDS = frozenset((
    "please", "pls", "plz", "kindly", "also", "and", "oh", "ok", "okay", "hey", "hi", "so", "btw",
    "by", "one", "fyi", "important", "claude", "kioku", "note", "can", "could", "would", "will",
    "you", "make", "be", "always", "i", "i'd", "permanently", "next", "just",
))


def _en_start_source(names: tuple[str, ...], lead: bool = True, alts: tuple = _EN_ALTS) -> str:
    return (r"(?i)" + (_LEAD if lead else "") + r"(?:"
            + "|".join(src for name, src, _ in alts if name in names) + r")\s*")


_EN_START = _Lazy(lambda: _en_start_source(tuple(name for name, _, _ in _EN_ALTS)))


def _label_pair(alt: tuple[str, str, tuple]) -> tuple[_Lazy, _Lazy]:
    """A label alternative as a pattern of its own, with and without the lead-in (see _detect_en)."""
    return (_Lazy(lambda: _en_start_source(("header",), alts=(alt,))),
            _Lazy(lambda: _en_start_source(("header",), lead=False, alts=(alt,))))


_EN_LABEL = _label_pair(_LABEL_ALT)
_EN_THING_LABEL = _label_pair(_THING_LABEL_ALT)
# Words one of which _THING_VERB needs, and the articles a named thing opens with (lower case)
_THING_VERB_WORDS = ("remember", "memori", "note", "hang on", "hold on", "in mind")
_THING_ARTICLES = ("the ", "our ", "my ")
_LABEL_LEFT_WORDS = ("future", "later", "next time", "next session", "sessions", "across", "conversation", "chat",
                     "going forward", "from now", "long-term", "permanent")
_EN_START_PARTS: dict[tuple[str, ...], tuple[_Lazy, _Lazy]] = {}


def _has_words(low: str, words: tuple) -> bool:
    """Whether ``low`` has one of ``words``, or, for a tuple of word groups, one of each group's."""
    if words and isinstance(words[0], tuple):
        return all(any(w in low for w in group) for group in words)
    return any(w in low for w in words)


_LABEL_ENDS = 200  # a text with more ":" and "?" than this is taken to hold a label (no scan)


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


# Non-ASCII letters that re.I matches to ASCII ones; mapped before looking for an alternative's words
_FOLDS_TO_ASCII = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


def _folded(masked: str) -> str:
    """``masked`` in lower case, with the four non-ASCII letters that re.I matches to ASCII ones
    (İ, ı, ſ and the Kelvin sign) mapped to those: where a pattern's words are looked for."""
    return (masked if masked.isascii() else masked.translate(_FOLDS_TO_ASCII)).lower()


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


def _starts_with_lead_word(masked: str, pos: int) -> bool:
    """Whether the text at ``pos`` begins with a word a lead-in can start with."""
    end = pos
    while end < len(masked) and (masked[end].isalpha() or masked[end] == "'"):
        end += 1
    word = masked[pos:end]
    return _folded(word) in _LEAD_FIRST_WORDS


# Closing tags: "<content> - remember that", "<content>, don't forget that!".
_EN_END = _Lazy(
    r"(?i)^(?P<content>.+?)\s*[,;:.\-—!]+\s*"
    r"(?:so\s+)?(?:please\s+)?(?:(?:make sure|be sure) (?:you|to)\s+(?:still\s+)?)?"
    r"(?P<trig>(?:remember|memori[sz]e) (?:this|that|it)|(?:save|commit) (?:this|that|it) to (?:your )?memory"
    r"|(?:don'?t|do not) forget (?:this|that|it)|keep (?:this|that|it) in mind"
    r"|note (?:this|that) for (?:the )?future(?: sessions?)?"
    r"|(?<=please )remember(?=[\s.!]*$)|(?<=pls )remember(?=[\s.!]*$))"  # "<fact>. Please remember." (see below)
    # how long, and after it "too" or why ("…. Remember it for future sessions so you stop
    # suggesting merges then."); a plain "…, remember that so we can ship today" is no closing
    r"(?:\s+" + _LASTING_TAIL + r"(?:\s+(?:too|as well))?(?:,?\s+so(?: that)? (?:you|i|we)\b[^.!?\n]{0,80})?)?"
    r"(?:,?\s*please)?[\s.!]*$"
)
# A bare closing "Please remember." keeps the note before it only when that says it lasts or
# holds always ("This is important for future work: …. Please remember.", "Never use npm here -
# please remember."), not after a remark ("Here is the new schema. Please remember.") nor a
# complaint about the assistant ("You never listen. Please remember.")
_BARE_CLOSING_LASTS = ("future", "from now", "going forward", "next time", "next session", "forever", "permanently",
                       "for good", "across sessions")
_RULE_FIRST_WORDS = ("never ", "always ", "don't ", "do not ", "every ", "whenever ")
_EN_TRIGGER_NAMES = {
    "dont": "don't forget", "save": "save to memory", "savethis": "save this",
    "writedown": "write this down",
    "remember": "remember", "rememberlong": "remember", "misspelt": "remember", "note": "note for future",
    "mind": "keep in mind",
    "fromnow": "from now on", "henceforth": "from now on", "header": "keep for later",
}
# Sentence starts: beginning, after sentence punctuation, or a newline.
_SENT_START = _Lazy(r"(?:^|(?<=[.!?;])\s+|\n\s*|(?<=[。！？])"
                   r"|(?<=,)\s+(?:and|but)\s+(?=(?:please\s+)?(?:remember|keep (?:this |that )?in mind|don't forget)\b)"
                   # "I keep telling you this, so please remember it: …" (a colon and the note after it)
                   r"|(?<=\s)(?i:so),?\s+(?=(?i:please)\s+(?i:remember)\s+(?i:it|this)(?:\s+this\s+time)?\s*:))")

# --- Japanese --------------------------------------------------------------------------------
_JA_POLITE = (r"(?:ください|下さい|くれ(?:ますか|ない|る)?|もらえ(?:ますか|る)|いただけ(?:ますか|ますでしょうか|る|ない)?"
              r"|ね|よ|ほしい|欲しい|おいて|おいてね|おく|ておく|な)*")
_JA_TRIG = _Lazy(
    r"(?P<trig>覚えて(?:おいて|おいといて|置いて)|覚えといて|覚えてて|覚えておく(?:こと|ように)"
    r"|覚えて(?=ください|下さい|ほしい|欲しい|ね|[：:。！!、]|\s*$)"
    r"|記憶して(?:おいて)?|記憶しといて|記憶しておく(?:こと|ように)|記憶に(?:残して|とどめて|留めて)"
    r"|メモして(?:おいて)?|メモしといて|メモっといて|メモっておいて|メモしておく(?:こと|ように)|メモに(?:残して|書いて)"
    r"|メモ(?=\s*[：:])"  # "将来のセッションのためにメモ：…" (only after how long, see _detect_ja)
    r"|記録して(?:おいて)?|忘れないで|忘れないように(?:して)?|忘れずに(?:覚えて(?:おいて)?)?"
    r"|保存して(?:おいて)?|保存しといて)" + _JA_POLITE
)
# Words before a request that only say how long to keep it ("ずっと", "今後のために", "次回以降のセッションでも")
_JA_LASTING_ONLY = _Lazy(r"^(?:[、,\s]|あと|それと|それから|ついでに|ちょっと|あ|ずっと|今後|次回|以降|将来|これから"
                         r"|セッション|ため|参考|の|に|で|も|は|これ|全|長期|永続|永久|恒久|的|次|から|絶対|必ず|いつまでも)+$")
_JA_FOR_LATER = _Lazy(r"(?:将来|今後|次回以降|以降|これから|ずっと)[^。]*(?:ため|参考)|以降")  # "今後のために", "次回以降"
# Words that make an instruction a standing rule ("毎回", "PRを出すときは", "これからは", "次回から")
_JA_RULE_WORDS = _Lazy(r"今後|以降|毎回|必ず|いつも|常に|ときは|時は|際は|たびに|前には|これから|から(?:は|も)|(?:次回|次|今度)から")
_JA_ONLY_NOW = _Lazy(r"(?:今回|今日|本日|今|この作業中|この作業の間|このセッション|このタスク|(?:この会話|このチャット)(?:の中)?"
                     r"|次のステップ)(?:だけ|のみ)"
                     # "リファクタリング中は覚えておいて": the remembering itself lasts while the work does
                     # ("実装中はmainに直接pushしないことを覚えておいて" is a rule about the work: kept)
                     r"|(?:中|の間|ている間|のあいだ)(?:は|だけ|のみ)?\s*[、,]?\s*(?:以下を|これを|次のことを)?\s*$")
# A plea before the request, not a note: "頼むから覚えて。うちはLombok使ってない。"
# What follows a plea when it is a complaint, not the note ("前にも言ったでしょ", "もう3回目だよ")
_JA_COMPLAINT = _Lazy(r"言った|言ってる|言ってます|回目|何度|何回|疲れ")
_JA_PLEA = _Lazy(r"^.{0,6}?(?:頼むから|お願いだから|いい加減に?|いいかげんに?|今度こそ|お手数ですが|お手数ですけど"
                 r"|すみませんが|すいませんが|悪いけど|悪いんだけど|申し訳ない(?:です)?(?:が|けど)|申し訳ありませんが"
                 r"|恐れ入りますが|恐縮ですが)[、,]?$")
# What follows a bare verb when the speaker says what they will do or are doing ("メモしておきます",
# "記録しておく。", "メモしておくね", "記録してます"), not a request
_JA_OWN_ACTION = ("おきます", "おきました", "おく。", "おくね", "おくよ", "おくから", "おくので", "おく\n", "います", "いる",
                  "ます", "ました", "る。", "るね", "るよ", "るから", "た。")
# A note taken back at its end ("…いや、やっぱりいいや", "やっぱなし", "なんでもない")
_JA_RETRACT_WORDS = ("やっぱ", "なんでもない", "何でもない")
_JA_RETRACTED = _Lazy(r"(?:^|[。、…\s])(?:いや[、,]?)?(?:やっぱ(?:り)?(?:いい|なし)|なんでもない|何でもない)[やでわ]?[。！!…]*$")
_JA_ASKED_TO_KEEP = ("くれる", "くれますか", "くれない", "もらえる", "もらえますか", "いただける", "いただけますか",
                     "いただけますでしょうか")
_JA_MEMORY_WORD = _Lazy(r"(?i:メモリ|記憶|メモ|覚え|kioku|長期記憶|ナレッジ)")
_JA_FILE_OBJ = _Lazy(r"(?:ファイル|変更|ドキュメント|画像|データ|設定|作業|コード|ページ|それ|これ)(?:を|は)?\s*$")
_JA_QUESTION_END = _Lazy(r"(?:[?？]|(?:ます|です|でしょう|だろう|る|た|の)?か[。\s]*|かな[。\s]*)$")
_JA_BEFORE_STRIP = _Lazy(
    r"(?:\s*(?:ということを|ってことを|ことを|ことは|のを|って|(?<!こ)と|を|は|なので|だから|から|ので|、|,|:|：)\s*)$")
_JA_TASK_BEFORE = _Lazy(r"(?:する|やる|実行する|走らせる|回す|入れる|送る|押す|閉じる|消す)のを\s*$")

# The request reported and asked about, not made: "…覚えておいてって頼んだっけ？",
# "…保存してと言ったのはどれ？", "覚えておいてって頼んだこと、一覧にして"; with "？" alone only
# after a question word ("前回、何をメモしておいてって言った？"), since "ポートは3000だって、覚えておいて
# って言ったよね？" says it again
_JA_REPORTED = r"\s*(?:って|と)\s*(?:頼|言|お願い|伝え|話し|指示)"
_JA_RECALLED = _Lazy(_JA_REPORTED + r"(?:[^。！!\n]{0,30}?っけ|(?:んだ|った|した|してた|していた)(?:こと|もの|やつ|内容|のは))")
_JA_RECALLED_ASKED = _Lazy(_JA_REPORTED + r"[^。！!\n]{0,30}?[?？]")
# The request said again as a complaint, with the note beside it ("前にも覚えておいてって言ったよね。
# 本番DBは触らないで"); what may stand before the request then: _JA_AGAIN_LEAD
_JA_HOW_OFTEN = r"(?:前にも|前に|何度も|何回も|もう)"  # how often a request was said before
_JA_SAID_AGAIN = _Lazy(r"\s*(?:って|と)\s*" + _JA_HOW_OFTEN + r"?\s*(?:言った|言いました|頼んだ|お願いした)"
                       r"[^。！!?？\n]{0,8}?[。！!?？]+\s*")
_JA_SAID_WORDS = ("言", "頼", "お願い")  # one of which _JA_SAID_AGAIN needs
_JA_AGAIN_TAIL = _Lazy(_JA_HOW_OFTEN + r"\s*$")
# Someone else asked: whom the request was said to, before に ("上司に覚えておいてって言った",
# "田中に…"); not a rule's clause ("pushしないように"). The assistant and adverbs ("あなたに", "絶対に")
# are read before this, as the lead of a request said again (_JA_AGAIN_LEAD)
_JA_TOLD_SOMEONE = _Lazy(r"(?<!よう)(?:に|へ)(?:は)?\s*$")
# Before a request said again: how often or how firmly it was said, a call for attention and the
# assistant as the one asked ("ねえ、だから前にも", "絶対に", "あなたに")
_JA_AGAIN_LEAD = _Lazy(r"(?:\s*(?:" + _JA_HOW_OFTEN + r"|だから|ねえ|ねぇ|絶対に|確実に|ちゃんと|しっかり"
                       r"|(?:あなた|君|きみ|(?i:claude)|クロード)(?:に|には))\s*[、,]?)*\s*")
_JA_IMPERATIVE_END = _Lazy(r"(?:て|で)(?:ね|よ|ください|下さい|おいて)?$")
_TRAIL_CHARS = ".!。！、,;:"


def _strip_trail(text: str) -> str:
    r"""``re.sub(r"[\s.!。！、,;:]+$", "", text)`` without compiling a regex (``\s`` is
    ``str.isspace``; the run is greedy, so ``$`` before a final newline changes nothing)."""
    end = len(text)
    while end and (text[end - 1] in _TRAIL_CHARS or text[end - 1].isspace()):
        end -= 1
    return text[:end]


_EN_POLITE_TAIL = _Lazy(r"(?i)[,\s]*(?:please|pls|thanks|thank you|thx)[.!\s]*$")
# "that" opens a clause to drop ("remember: that we use bun"), not a subject ("That is wrong, …",
# "That's the staging URL")
_EN_LEADING = _Lazy(r"(?i)^(?:\s*(?:that\b(?!['’]|\s+(?:is|was|are|were|will|would|should|has|have|had|can|could|"
                    r"must|does|did)\b)|to\b|please\b|[:\-—,])\s*)+")
_JA_QUOTE = _Lazy(r"^[「『](.+)[」』]$")


def _is_en_question(sentence: str) -> bool:
    return sentence.rstrip().endswith(("?", "？"))


_EN_Q_START = _Lazy(r"(?i)(?:do|does|did|can|could|would|will|is|are|was|were|have|has"
                         r"|what|when|where|why|how|who|which|should|shall)\b")


def is_question(text: str) -> bool:
    """True for a question (English or Japanese); a trailing "?" always counts."""
    t = text.strip()
    if not t:
        return False
    if t.endswith(("?", "？")):
        return True
    if _EN_Q_START.match(t) and not t.endswith((".", "!", "。", "！")):
        return True
    return bool(_JA_QUESTION_END.search(t)) and not t.endswith(("。", "！"))


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


_EN_LASTING_TAIL = _Lazy(r"(?i)[,\s]+" + _LASTING_TAIL + r"[\s.!?]*$")
# The same words opening a note ("In the future, always ask …", "and in future sessions, use uv")
_EN_LASTING_HEAD = _Lazy(r"(?i)^[,\s]*(?:and\s+)?(?:in the future|going forward|from now on|from here on(?: out)?"
                         r"|(?:for|in) (?:all |every )?future sessions?|in every session|across sessions)\s*[,:]\s*")
_EN_TASK_TAIL = _Lazy(
    r"(?i)[,;]\s*(?:and|then|and then|but)\s+(?:please\s+)?(?:now\s+)?(?:fix|run|add|update|create"
    r"|write|make|implement|change|remove|delete|refactor|check|look|help|commit|push|deploy"
    r"|start|continue|show|tell|explain|open|build|install|rename|move|test)\b.*$")
_QUOTED = _Lazy(r"^(?:'([^']+)'|\"([^\"]+)\"|“([^”]+)”|「([^」]+)」)$")


_EN_REFERENCE = _Lazy(
    r"(?i)^(?:(?:this|that|these|those|it|them|the above|the following)\b(?:\s+[\w'.-]+){0,3}"
    r"|what (?:you|we|i) (?:just )?\w+)$")
_THIS_PROJECT = frozenset("repo repository project codebase monorepo app team company org service".split())
_JA_PARTICLE = _Lazy(r"[はがをにでとも]|って|、")
_JA_PREDICATE_END = _Lazy(r"(?:る|た|だ|です|ます|い|ない|こと|ず|ん|よ|ね)$")
_JA_THAT_TAIL = _Lazy(r"(?:ということ|ってこと)$")


def _is_reference(content: str, lang: str) -> bool:
    """Content that only points at something in the conversation ("this function's
    signature", "この関数の仕様", "今日のミーティングの内容") cannot be saved from the prompt
    alone: there is no fact in it, so it is not treated as a save request."""
    if lang == "en":
        # both branches match at most four words: a longer note is not compiled against
        words = content.lower().split(None, 4)
        if len(words) > 4 or not _EN_REFERENCE.match(content):
            return False
        # "this repo uses pnpm" says something of the project; "this is important", "that function's
        # signature", "these tests are flaky" point at the conversation
        return not (len(words) > 2 and words[0] == "this" and words[1] in _THIS_PROJECT
                    and set(words[2:]) & _STATING_WORDS)
    return not _JA_PARTICLE.search(content) and not _JA_PREDICATE_END.search(content) \
        and "\n" not in content and not content.isascii()


# The last sentence of a note that opens with "and also" and asks for work ("あと、ログインのバグを
#直して。") is a new request, not part of the note; "…してから出す", "…している" are facts.
_JA_TASK_OPENER = _Lazy(r"^\s*(?:あと|それと|それから|ついでに|次に)[、,]?")
_JA_TASK_CLOSER = _Lazy(r"(?:(?<!て)(?:して|直して|やって|確認して|追加して|修正して|対応して)(?:ください|下さい|ね|よ|ほしい|欲しい)?"
                        r"|お願い(?:します|いたします)?)\s*[。！!]?\s*$")
_JA_SENTENCE_SPLIT = _Lazy(r"(?<=[。！？!?\n])")


def _clean_ja(content: str) -> str:
    content = content.strip()
    m = _JA_QUOTE.match(content)
    if m:
        content = m.group(1)
    sentences = [x for x in _JA_SENTENCE_SPLIT.split(content) if x.strip()]
    if len(sentences) > 1 and _JA_TASK_OPENER.match(sentences[-1]) and _JA_TASK_CLOSER.search(sentences[-1]):
        content = "".join(sentences[:-1])
    content = _strip_trail(content)
    if "言" in content[:14]:  # (the pattern is compiled only where it can match)
        content = _JA_SAID_BEFORE_LEAD.sub("", content)
    return content.strip()


# A note never opens with how often it was said: "何度も言ってるけど、`legacy` は触らないで"
_JA_SAID_BEFORE_LEAD = _Lazy(r"^\s*" + _JA_HOW_OFTEN + r"?\s*(?:言って(?:る|ます|います)|言った|言いました)"
                             r"(?:けど|けれど|が|よね|でしょ)?\s*(?:[、,]\s*|$)")
# Thanks and nothing else: chatter, not the note ("ありがとう、助かった"); a note after thanks keeps
# its words once the thanks are cut off ("ありがとう、このAPIはレート制限が1分60回")
_JA_THANKS_WORDS = ("ありがとうございます", "ありがとう", "ありがと", "助かった", "助かりました", "助かります",
                    "了解です", "了解", "おけ", "完璧", "さすが", "いいね")
_THANKS_WORD = "(?:" + "|".join(_JA_THANKS_WORDS) + ")"
_JA_THANKS = _Lazy(r"\s*(?:" + _THANKS_WORD + r"[、,!！。\s]*)+")
_JA_THANKS_LEAD = _Lazy(r"^\s*(?:" + _THANKS_WORD + r"[、,!！\s]*)+(?:じゃあ|では)?[、,\s]*")
# "…って" closing a quoted note ("本番DBは触らないでって"), not a verb's て-form ("pnpmを使って")
_JA_QUOTED_TAIL = _Lazy(r"(?:(?<=ないで)|(?<=こと)|(?<=です)|(?<=ます)|(?<=[だるいた]))って\s*$")
# Words of the work at hand in a sentence that asks for something ("このエラー直して")
_JA_AT_HAND = _Lazy(r"この|その|これ|それ|さっき|今|いま|上の|下の")
# A request's て-form end ("書いて", "読んで"), not the particle で ("日本語で", "pnpmで")
_JA_TE_END = _Lazy(r"(?:て|[んい]で)(?:ね|よ|ください|下さい|ほしい|欲しい)?$")
# A prohibition, which makes a request a rule, not a task (触らないで, するな; see _ja_task)
_JA_PROHIBITION = _Lazy(r"(?:ないで|ないように|するな|禁止|厳禁)(?:ね|よ|ください|下さい)?$")
# What a note said again in anger is not: a complaint ("ほんと困る", "READMEに書いてあるでしょ")
_JA_GRIEVANCE = _Lazy(r"困る|困っ|がっかり|書いてある|でしょ|じゃん|なんで|どうして|いい加減|忘れ")


def _previous_ja_sentence(text: str, s_start: int) -> str:
    """The sentence before the one at ``s_start`` (at most _WINDOW characters back), cleaned."""
    return _clean_ja(re.split(r"(?<=[。！？!?\n])", text[max(0, s_start - _WINDOW):s_start].rstrip("。！!\n "))[-1])


def _ja_task(sentence: str) -> bool:
    """Asks for something now ("このエラー直して", "テストを書いて"), not a rule: no word of a rule
    (必ず, 毎回, 次から), no prohibition (触らないで), and the work at hand named or no topic (は)
    that the request is a rule about ("コミットメッセージは英語で書いて" is a rule)."""
    if _JA_RULE_WORDS.search(sentence) or _JA_PROHIBITION.search(sentence):
        return False
    asks = _JA_TASK_CLOSER.search(sentence) or _JA_TE_END.search(sentence)
    return bool(asks) and (_JA_AT_HAND.search(sentence) is not None or "は" not in sentence)


def _ja_standing_note(content: str) -> bool:
    """Whether a sentence beside a request said again can be the note: not a complaint, a task, a
    question, a note for now only or one taken back."""
    return bool(content) and not (_JA_COMPLAINT.search(content) or _JA_GRIEVANCE.search(content)
                                  or _JA_THANKS.fullmatch(content)
                                  or _ja_task(content) or _JA_QUESTION_END.search(content)
                                  or _JA_ONLY_NOW.search(content) or _JA_RETRACTED.search(content))


_PARA_END = _Lazy(r"\n\s*\n")
_SENT_END = _Lazy(r"[.!?](?=\s|$)|[。！？]|\n")
_WH_AFTER = _Lazy(r"(?i)\s*(?:to\s+)?" + _WH)
# Bounds that keep hostile input linear: a real request has its trigger among the first few
# candidates, and its context within a few hundred characters.
_MAX_CANDIDATES = 12
_WINDOW = 400


# A later sentence of a "remember:" block that asks for work now ("Also, fix the failing test",
# "Run the tests now.") is a new request, not part of the note; a standing rule ("Run lint before
# every commit.", "Never push to main.") stays.
_TASK_VERB_WORDS = ("fix", "run", "add", "update", "create", "write", "make", "implement", "change", "remove",
                    "delete", "refactor", "check", "look", "help", "commit", "push", "deploy", "start",
                    "continue", "show", "tell", "explain", "open", "build", "install", "rename", "move", "test",
                    "review")
_TASK_VERBS = "(?:" + "|".join(_TASK_VERB_WORDS) + ")"
_TASK_SENTENCE = _Lazy(
    r"(?i)^(?:(?:also|and|and also|oh and|btw|but first|now|please)[,:]?\s+)+(?:please\s+)?(?:can you\s+)?"
    + _TASK_VERBS + r"\b"
    r"|^(?:please\s+)?" + _TASK_VERBS + r"\b[^.!?\n]*\b(?:now|right away|asap|immediately)\s*[.!?]?\s*$")
# Words of a standing rule or a procedure ("before every commit", "whenever", "in every PR"): a
# sentence with one is part of the note even when it opens like a request ("Also run the linter
# before every commit.").
_STANDING = _Lazy(r"(?i)\b(?:every|always|never|whenever|each|before|after|when|unless|until)\b")
_BLOCK_SENTENCE = _Lazy(r"(?:[^.!?\n]|[.!?](?!\s|$))+(?:[.!?](?=\s|$)|\n|$)")  # "foo.py" is no end


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


def _sentence_end(text: str, start: int, block: bool) -> int:
    """End of the sentence (or paragraph when ``block``) that starts at ``start``."""
    if block:
        m = _PARA_END.search(text, start)
        return m.start() if m else len(text)
    if not any(mark in text[start:] for mark in ".!?\n。！？"):
        return len(text)  # no sentence mark after ``start``: the pattern cannot match
    m = _SENT_END.search(text, start)
    return m.end() if m else len(text)


# A sentence that only qualifies the fact before it ("Never on Mondays.", "Except for hotfixes.")
# belongs to the same memory; any other next sentence, or one that addresses the agent ("But
# please fix ..."), may be a new request and is left out.
_CONTINUATION_WORDS = ("never", "always", "not", "except", "unless", "but", "only", "otherwise", "because",
                       "since", "including", "excluding", "especially", "even")
_EN_CONTINUATION = _Lazy(
    r"(?i)[ \t]+(?:" + "|".join(_CONTINUATION_WORDS) + r")\b"
    # a request hidden in it: "But first fix the build", "Because of the freeze, update the changelog"
    r"(?![^.!?\n]*\b(?:please|you|let's|let us|first|now|then|also|next|afterwards|asap|right away)\b)"
    r"(?![^.!?\n]*,\s*(?:fix|run|update|add|make|create|remove|delete|write|change|check|commit|push|deploy|"
    r"install|build|open|show|tell|explain|refactor|rename|move|start)\b)"
    r"[^?\n]*?(?:[.!](?=\s|$)|(?=\n)|$)")
_MAX_CONTINUED = 3


def _continued_end(masked: str, end: int) -> int:
    """``end`` moved past the qualifying sentences that directly follow on the same line."""
    for _ in range(_MAX_CONTINUED):
        head = masked[end:end + 16].lstrip(" \t").lower()
        if not head.startswith(_CONTINUATION_WORDS):
            break  # the usual case: the regex is not even compiled (a save is a hook)
        m = _EN_CONTINUATION.match(masked, end)
        if not m or m.end() == end:
            break
        end = m.end()
    return end


_SENTENCE_MARKS = ".!?;\n。！？"


_SO_PLEASE = _Lazy(r"(?i)\bso,?\s+please\b")  # a sentence start of _SENT_START without a sentence mark


def _sentence_starts(masked: str):  # -> Iterator[int]
    """Where sentences start (``_SENT_START``); a text without any sentence mark is one
    sentence, found without compiling the pattern."""
    if not any(mark in masked for mark in _SENTENCE_MARKS) and ", and " not in masked and ", but " not in masked \
            and ("please" not in masked.lower() or not _SO_PLEASE.search(masked)):
        yield 0
        return
    for ss in _SENT_START.finditer(masked):
        yield ss.end()


# Words that make "remember <words>" a statement ("remember we use pnpm", "remember the API is
# slow"), not a thing to recall ("remember the diff above", "remember the docs").
_STATING_WORDS = frozenset(
    "is are was were isn't aren't wasn't weren't be use uses need needs must should shouldn't can can't cannot "
    "don't doesn't do does never always have has run runs live lives deploy deploys prefer prefers require "
    "requires go goes get gets take takes mean means work works break breaks fail fails expect expects want "
    "wants like likes hate hates call calls keep keeps stay stays point points belong belongs contain contains "
    "return returns build builds store stores it's that's we're they're i'm you're there's we've i've "
    "will won't".split())


def _holds_secret(content: str) -> bool:
    """A note with a secret in it ("remember my key sk-…") is still a request: refusing it is
    what tells the user it was not kept."""
    from kioku.text.secrets import contains_secret

    return bool(contains_secret(content))


def _states_something(content: str) -> bool:
    return any(word.strip(".,;:!?()\"'`") in _STATING_WORDS for word in content.lower().split())


# Triggers that may stand without ":" or "that" ("remember we use pnpm", "keep in mind we deploy
# on Fridays", "don't forget we use Helm"): what follows must then state something.
_BARE_KINDS = frozenset(("remember", "mind", "dont"))
_DEMONSTRATIVE_START = _Lazy(r"(?i)(?:this|these|those|it|that)\b")
# "Could you remember that we deploy on Fridays?" asks to keep a note, though it ends in "?"
_ASKED_TO_KEEP = _Lazy(r"(?i)\b(?:can|could|would|will) (?:you|u)\b")
# Not a statement in a question: the past, or a modal that asks ("…, or should I paste it again?")
_NOT_STATED = frozenset(("was", "were", "wasn't", "weren't", "should", "can", "will", "shouldn't", "can't",
                         "cannot", "won't"))
# Who a note without "that" is about: "keep in mind we use pnpm", "don't forget I'm on Windows"
_SUBJECT_START = _Lazy(r"(?i)(?:we|we're|we've|we'll|our|i|i'm|i've|i'd|my|the team|everyone|all of us)\b")
# What ties a note to the task in hand rather than to later sessions
_WORK_AT_HAND_EN = _Lazy(
    r"(?i)\b(?:right now|for now|this time|so far|below|above|next step|the first run|latest changes"
    r"|this (?:request|container|benchmark|function|file|fix|run|edit|bug|module|method|class|test|script|page"
    r"|component|pr|task|endpoint|query|line|change|diff|commit|error|output|answer|step)"
    r"|your (?:fix|answer|change|reply|response|edit|output)|the current (?:implementation|code|version|state)"
    r"|when you(?:'re| are) done|while (?:we|you)(?:'re| are)? (?:work|at it)|(?:until|till) the end of"
    r"|in the (?:except|else|if) branch)\b")
# Words that make a request inside a task's sentence ("…, and remember that …") one that lasts
_LASTS_WORDS = ("future", "from now", "going forward", "from here", "next time", "next session", "every session",
                "across sessions", "always", "every ", "whenever", "forever", "permanently", "for good")
# A note the sentence itself limits to the next step: "remember that edge case when you write the
# tests in the next step", "Remember this for the next command only: …"
_ONE_SHOT_EN = _Lazy(r"(?i)(?<![\w-])(?:in the next step|for the next (?:command|step|run|prompt|message|reply|edit)"
                     r"|(?:this|the next) (?:time|command|run|step|task|session) only"
                     r"|only for (?:now|this (?:command|run|step|task|session))"
                     r"|(?:just|only) for now|for now only|(?:for|in) the current task"
                     r"|for the rest of (?:this|the) (?:conversation|session|chat))\b")
# "…, and please remember it this time: <fact>" asks to keep the fact from now on, after it was
# forgotten; "Rerun the tests, and remember this time: use -x" is about this attempt
_FINALLY_KEEP = _Lazy(r"(?i)(?:please\s+remember\s+(?:(?:it|this)\s+)?|remember\s+(?:it|this)\s+)this time\s*:")
_ONE_SHOT_WORDS = ("next", "only", "for now", "current task", "rest of")  # one of which _ONE_SHOT_EN needs


def _limited_to_now(segment: str) -> bool:
    """``_ONE_SHOT_EN`` in ``segment``, compiled only when one of its words is there."""
    low = segment.lower()
    return any(word in low for word in _ONE_SHOT_WORDS) and _ONE_SHOT_EN.search(segment) is not None


_ABOUT_THE_NEXT_STEP = _Lazy(r"(?i)\b(?:when|while|as|once|before) you\b(?![^.!?\n]*\b(?:every|always|whenever)\b)")


# What a "remember <thing>: <value>" names when it is the work at hand, not a fact to keep
_WORK_NOUNS = frozenset(("plan", "steps", "order", "list", "sequence", "todo", "agenda"))


_LABEL = _Lazy(r"(?:this |the )?[\w-]+:\s")  # "password: …" after "Remember": a login box's label


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


# A line of pasted program output: a request on a line with such lines on both sides is the
# program's text ("note: next time, remember to pass --locked" inside a compiler's stderr)
_OUTPUT_LINE = _Lazy(r"(?:(?i:error|warning|fatal(?: error)?|panic)(?:\[[\w-]+\])?:|(?:stderr|stdout)\s*:|Caused by:"
                     r"|Traceback \(most recent call last\)|Exception in thread"
                     r"|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE)(?:\]|:|\s+\[)"
                     r"|\[?\d{2}:\d{2}:\d{2}|\[?\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:)")


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


# "Next time we work on this, remember that …": the occasion is part of the note
_NEXT_TIME_WHEN = _Lazy(r"(?i)\bnext (?:time|session)\s+(" + _OCCASION + r"),")


# A note taken back ("… — actually, just run it now", "Never mind, it'll change", "No wait, …"),
# or a to-do; only at the start of a clause ("don't deploy on Fridays, wait until Monday" is a rule)
_RETRACTED = _Lazy(r"(?i)(?:^|[.!?;]\s+|[—–-]\s*|\n\s*)"
                   r"(?:actually(?:,|\s+(?:just|no|never|don'?t|forget|run|do|skip)\b)"
                   r"|(?:never ?mind|forget it|scratch that|on second thought|no,? wait)\b)"
                   r"|^(?:i'?m )?not sure(?: yet)?[.!]?$"
                   r"|^(?:todo|fixme|tbd)\s*[:—–-]")
_RETRACT_WORDS = ("actually", "never", "nevermind", "forget it", "scratch", "second thought", "wait", "not sure",
                  "todo", "fixme", "tbd")
# A sentence that asks for work now: "Fix the CSS.", "Wire it up.", "Now fix deploy.yaml.", "please
# rewrite it". ``_asks_for_work`` also reads ``_STANDING``, so that a rule such as "Run lint before
# every commit." is no task. Without "now", "please" or "can you" before it, the verb needs an
# object after it ("Find the ones that don't"), so a noun ("Test files go in __tests__") is no task.
_WORK_VERBS = "(?:" + "|".join(_TASK_VERB_WORDS) + r"|wire|find|restart|implement|finish|benchmark|debug|investigate)"
_ON_A_THING = r"\s+(?:the|a|an|this|that|these|those|it|them|my|our|up|out)\b"  # what a task verb is done to
_WORK_NOW = _Lazy(r"(?i)(?:(?:now|then|so|ok|okay)[,\s]+(?:please\s+)?(?:can you\s+)?|please\s+(?:can you\s+)?"
                  r"|can you\s+)" + _WORK_VERBS + r"\b|" + _WORK_VERBS + r"(?:" + _ON_A_THING + r"|\s+(?:all|some)\b)")
# A task on one thing after "Going forward," ("write the tests for the parser"), not a rule over a
# kind of thing ("write all test names in …", "write commit messages in …")
_WORK_ON_A_THING = _Lazy(r"(?i)(?:please\s+)?" + _WORK_VERBS + _ON_A_THING)
_WORK_START = _Lazy(r"(?i)(?:please\s+)?" + _WORK_VERBS + r"\b")  # the first sentence after a label
_PLEASE_WORK = _Lazy(r"(?i)\bplease (?:" + "|".join(_TASK_VERB_WORDS) + r"|rewrite|restart|implement)\b")
# Labels of a rule or a preference, whose first sentence may be an imperative ("Long-term
# preference: write commit messages in English"); after any other label it asks for work now
# ("Long-term note: write unit tests for the DateParser class")
_RULE_LABELS = ("rule", "preference", "instruction", "convention", "policy")
_REST_LIMIT = 2000  # how much of a note's paragraph is read for a task or a retraction


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


# "that" opening a clause inside a label: the clause is part of the note, which an older form reads
# whole ("Remember for future sessions that the env vars are: …")
_THAT_CLAUSE = _Lazy(r"(?i)\bthat\s+(?!in mind\b|down\b)(?P<clause>.+)")


def _opens_a_clause(label: str) -> bool:
    """"that" in a label opening a clause with a verb ("… that the env vars are: …"), not
    pointing at something ("Remember that approach for future sessions: …")."""
    m = _THAT_CLAUSE.search(label) if "that" in label.lower() else None
    return m is not None and _states_something(m.group("clause"))


# A complaint after "Can you remember this next time?", not the note ("It's annoying when you forget")
_COMPLAINT = _Lazy(r"(?i)\b(?:annoying|frustrating|you (?:keep|always|never|forgot|forget)|i keep having to"
                   r"|repeat(?:ing)? (?:it|this|that|myself))\b")
# A reply rather than a note ("Thanks, that's all for today", "OK, sounds good")
_ACKNOWLEDGED = _Lazy(r"(?i)(?:thanks|thank you|thx|ok|okay|sure|great|cool|got it|sounds good)\b")
# A polite request, not a question about what will happen ("Will you remember this …?")
_POLITE_ASK = _Lazy(r"(?i)\b(?:can|could|would) (?:you|u)\b")
# A note that opens by limiting itself to now
_NOW_FIRST = _Lazy(r"(?i)(?:(?:just|only) )?for now\b|not (?:for|in|across) (?:all |the )?future")
# Chatter after "Can you hang on to this for later?": the speaker's own plans, not a note
_OWN_PLANS = _Lazy(r"(?i)i(?:'m| am)? (?:need|have to|must|think|guess|will|gotta|heading|going|off|leaving|not sure"
                   r"|curious|wonder)\b|i'(?:ll|m (?:heading|going|off|leaving|not sure|curious))\b")
# After a named thing, what says nothing of what the thing is: a pointer into the conversation, the
# past, a trouble, the speaker's wishes or plans ("Same as the last one", "It's what I showed you
# earlier", "It keeps timing out and I have no clue why", "We want to compare them", "We'll compare
# them after the refactor", "I always forget them", "That would help a lot")
_NOT_ABOUT_THE_THING = _Lazy(
    r"(?i)^(?:here|there)(?:'s|\s+(?:it|they|is|are)\b)|\b(?:the )?same as\b|\bkeeps? \w+ing\b"
    r"|\b(?:(?:do not|don'?t) know|no (?:idea|clue)|not sure) (?:why|how|what)\b|\b(?:is|are) (?:broken|failing|flaky)\b"
    r"|\b(?:yesterday|earlier|previous(?:ly)?|again|showed|above|below|last (?:one|time|week|run))\b"
    r"|\b(?:just|you) (?:wrote|did|sent|made|gave|produced|printed|generated|showed)\b|\b(?:always|often|keep) forget\b"
    # a guess, a remark or a state of the work ("It might be related to caching", "It is important",
    # "It's hard to explain", "It's not merged yet", "We are halfway through", "We lose data on refresh")
    r"|^(?:it|they|we|i)(?:'s|'re)? (?:may|might|could|should|would)\b"
    r"|^(?:it|they)(?:'s|'re| is| are) (?:(?:really|very|so|quite|super) )?(?:important|useful|helpful|hard|tricky"
    r"|complicated|interesting|nice|great|good|bad|annoying|weird|cool|a long story|a mess)\b"
    r"|\byet\b|\bstill needs?\b|\bhalfway\b|\bin progress\b|\blos(?:e|es|ing|t)\b"
    r"|\b(?:wants?|plans?|hopes?) to\b|\bwanna\b|(?:'d|would) like to\b"
    r"|\b(?:we|i)(?:'ll| will|'re going to| are going to|'m going to| am going to)\b|\bwould help\b")
# Subjects that refer back to the thing or say what we or I do, after "Can you remember <a thing>
# for next time?" ("It is JSON lines", "They are Conventional Commits", "We ship every other
# Tuesday", "Our CI runs on GitHub"); another subject needs a stating verb early (_about_the_thing)
_THING_SUBJECT = _Lazy(r"(?i)(?:it|they|we|our|i|my)(?:'s|'re|'m)?\b")
# The subject's verb in the past: what happened to the thing, not what it is ("It took ages to get
# right", "I picked option B", "We only finished two")
_THING_PAST = _Lazy(r"(?i)^(?:it|they|we|i|(?:our|my) [\w'-]+)(?: (?:only|just|already|also|finally|never))? "
                    r"(?:was|were|had|did|took|made|got|went|said|broke|gave|wrote|chose|came|ran|picked|finished"
                    r"|decided|tried|changed|fixed|added|used|wanted|needed|started|agreed|discussed|merged"
                    r"|shipped|released|found|lost|forgot)\b")
# After the question, the thing as an object: what is done with it ("I like it a lot", "We want to
# reuse them"), not what it is
_DONE_WITH_IT = _Lazy(r"(?i)(?<!^)\b(?:it|them)\b")
# A question after the thing ("Can you remember my question for later? Why does the build take so long")
_ASKS_BACK = _Lazy(r"(?i)(?:why|what|how|where|who|which)\b|(?:does|do|did|is|are|can|could|should|would|will)\s+"
                   r"(?:the|it|they|we|i|you|this|that|our|my)\b")
# Words a task or a remark opens with, not a subject
_NOT_A_SUBJECT = frozenset(_TASK_VERB_WORDS) | frozenset(
    "store save put keep generate see then also and just no let please use try do don't make sure so but "
    "thanks thank ok okay sure yes yeah here there that this same like you would could should might may "
    "will".split())
# "It is …" / "They are …": the pronoun is the thing, so only what follows it may point away
_IT_IS = _Lazy(r"(?i)^(?:it|they)(?:'s|'re|\s+(?:is|are))\s+")


# After a named thing's colon: a list or a block when the line ends there, else the rest of the
# line up to a sentence that opens like chatter, a request or other work, or ends in "now" ("…:
# stg.example.com. Also the CI is red again", "…: JSON lines. Can you fix the tests?", "…: two
# approvals. Hmm, let me check"); the note's own sentences stay ("…: we use ruff. Line length is
# 100."), and so does a command with ". " in it ("go test -bench=. -benchmem")
_BLOCK_AFTER_COLON = _Lazy(r"[ \t]*\n")
_NEW_SENTENCE = _Lazy(r"[.!?][ \t]+(?=(?:Also|Anyway|Btw|BTW|By the way|Oh|Now|But|Meanwhile|Today|Then|Thanks|Thank you"
                      r"|Can you|Could you|Would you|Will you|Please|Let's|Let me|I|I'm|I've|I'd|I'll|Hmm|Honestly"
                      r"|Actually|Next|OK|Ok|Okay|Cool|Great|Sure|So|Well|Right|And|That|This|It was|We'll|We should"
                      r"|Use it|Do it|Run it)\b|[^.!?\n]*\bnow[.!?]?[ \t]*(?:\n|$))")


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


# A rule that says at its end that it lasts: "Use tabs for indentation from now on."
_EN_STANDING_END = _Lazy(r"(?i)[,\s]+(?:from now on|from here on(?: out)?|going forward|in (?:all )?future sessions)"
                         r"[\s.!]*$")


_MARK_THEN_SPACE = _Lazy(r"[.!?;](?=\s)|\n")  # "pyproject.toml" is no sentence end
# A sentence that asks for a change ("Add a warning so that old_api() logs it from now on") or
# points into the code ("from line 30 going forward") tells how the code will behave from now on
_RESULT_CLAUSE = _Lazy(r"(?i)\bso(?: that)? (?:it|they|ci|the|calling|every|all)\b|\bfrom line\b")


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


# "これは大事なので", "重要なことなので": what makes the next sentence worth keeping, not a note
_JA_IMPORTANCE = _Lazy(r"^\s*(?:これは|これ|ここは|以下は|次は)?\s*(?:とても|すごく|本当に)?(?:大事|重要|大切)"
                       r"(?:な(?:こと)?(?:なの)?|です|だ)?(?:ので|だから|から)?\s*$")


def _detect_ja(text: str, masked: str) -> RememberRequest | None:
    for n, m in enumerate(_JA_TRIG.finditer(masked)):
        if n >= _MAX_CANDIDATES:
            return None
        trig = m.group("trig")
        # the Japanese sentence around the trigger (bounded look-back)
        lo = max(0, m.start() - _WINDOW)
        s_start = max(max(masked.rfind(c, lo, m.start()) for c in "。！？!?\n") + 1, lo)
        after = masked[m.end():m.end() + _WINDOW]
        # "これ覚えておいてくれる？本番はGCP。": a polite request with the fact after it
        # ("…。覚えておいてくれる？" asks the same of the sentence before it)
        polite = (m.group(0).endswith(_JA_ASKED_TO_KEEP) and re.match(r"\s*[?？]\s*(?!って|と(?:聞|言))", after) is not None
                  and re.fullmatch(r"\s*(?:(?:これ|それ)(?:を|は)?)?\s*", text[s_start:m.start()]) is not None)
        asked = polite and re.match(r"\s*[?？]\s*\S", after) is not None
        if (_JA_QUESTION_END.match(after.lstrip()) or re.match(r"\s*[?？]", after)) and not polite:
            continue
        if masked.startswith(_JA_OWN_ACTION, m.end("trig")):
            continue  # "チケットに自分でメモしておきます": the speaker will do it, nothing is asked
        if _JA_RECALLED.match(after) or (_JA_RECALLED_ASKED.match(after)
                                         and _JA_ASKING.search(masked, s_start, m.start())):
            continue  # "前に何を覚えておいてって頼んだっけ？": asks about an earlier request
        before = text[s_start:m.start()]
        said = _JA_SAID_AGAIN.match(after) if any(w in after[:16] for w in _JA_SAID_WORDS) else None
        if said and (_JA_AGAIN_LEAD.fullmatch(before) or _JA_LASTING_ONLY.match(before.strip())):
            # the note is the next sentence or, when that is none or a complaint, the one before the
            # request ("mainに直接pushしないで。前にも覚えておいてって言ったよね。ほんと困る。")
            nxt = re.match(r"\s*(.+?)(?:[。！!]|\n|$)", text[m.end() + said.end():m.end() + _WINDOW])
            for candidate in (_clean_ja(nxt.group(1)) if nxt else "", _previous_ja_sentence(text, s_start)):
                content = _JA_QUOTED_TAIL.sub("", candidate)
                if _ja_standing_note(content) and not _JA_TASK_OPENER.match(content) \
                        and not _is_reference(content, "ja"):
                    return RememberRequest(content, trig, "ja")
            continue  # "前にも覚えておいてって言ったよね。" alone, or a complaint or a task with it
        if re.match(_JA_REPORTED, after) and _JA_TOLD_SOMEONE.search(before):
            continue  # "上司に覚えておいてって言った": someone else was asked
        if said:  # "本番DBは触らないでって、前にも覚えておいてって言ったよね？": the note is before it
            before = _JA_BEFORE_STRIP.sub("", _JA_AGAIN_TAIL.sub("", before))
        if trig == "メモ" and not (_JA_LASTING_ONLY.match(before.strip()) and _JA_FOR_LATER.search(before)):
            continue  # "メモ：明日の会議" is a heading; "今後のためにメモ：…" asks to keep it
        if before.count("「") > before.count("」") or before.count("『") > before.count("』"):
            continue  # 「覚えておいて」と言われた: the words are quoted, not asked
        if _JA_ONLY_NOW.search(before):
            continue  # "今回だけ覚えておいて：…": for this work only
        # content after a colon wins ("覚えておいて：テストにはRedisが必要")
        content_after = ""
        am = re.match(r"\s*(?:こと|事)?\s*[:：]\s*", after)  # "覚えておいてほしいこと：…"
        if am is None and not before.strip():
            # "覚えておいて、テストには…", "覚えておいてほしいのは、本番DBは…"
            am = re.match(r"\s*(?:(?:ほしい|欲しい)?(?:のは|ことは)\s*[、,:：]?|(?:ん(?:だ|です)?けど|のですが|けど)?[、,])\s*",
                          after)
        if am is None and _JA_LASTING_ONLY.match(before.strip()):
            # "次回以降のセッションでも覚えておいてほしいんだけど、本番DBは…": before the request
            # only how long; the fact follows it
            am = re.match(r"\s*(?:ん(?:だ|です)?けど|のですが|けど|けれど)?\s*[、,]\s*(?=\S)", after)
        if am:
            # after a colon a block of notes; after "、" or "んだけど、" the sentence
            end = _sentence_end(masked, m.end() + am.end(), block=":" in am.group(0) or "：" in am.group(0))
            content_after = text[m.end() + am.end():end]
        if trig.startswith("保存"):
            if not (_JA_MEMORY_WORD.search(before) or (content_after.strip()
                                                        and not _JA_FILE_OBJ.search(before))):
                continue  # "ファイルを保存して" is a file save
            before = re.sub(r"(?:メモリ|記憶|メモ|長期記憶|kioku|ナレッジ)(?:に|へ)\s*$", "", before)
        if trig.startswith("忘れないように") and not before.strip():
            if _JA_TRIG.search(_JA_SENTENCE_SPLIT.split(after, 1)[0]):
                continue  # "忘れないように、本番DBはread-onlyだって覚えておいて": the next request keeps the note
            if re.match(r"\s*[、,]", after) and _JA_IMPERATIVE_END.search(_clean_ja(content_after)) \
                    and not _JA_RULE_WORDS.search(content_after):
                continue  # "忘れないように、この正規表現の意味をコメントで書いて": a task, so as not to forget
        before = re.sub(r"^\s*忘れないように\s*[、,]\s*", "", before)
        if trig.startswith("忘れ") and not content_after.strip() and before.strip() not in ("", "これ", "それ"):
            if _JA_TASK_BEFORE.search(before) or not re.search(
                    r"(?:こと|ということ|って|と)(?:を|は)?\s*$", before):
                continue  # "テストを実行するのを忘れないで" is a task, not a fact
        pleaded = bool(before.strip()) and (_JA_PLEA.match(before.strip()) is not None
                                            or ("言" in before and _JA_SAID_BEFORE_LEAD.fullmatch(before) is not None))
        if not content_after.strip() and before.strip() and (_JA_LASTING_ONLY.match(before.strip()) or pleaded):
            before = ""  # "今後のために覚えておいて": the note is the sentence around the request
        if content_after.strip():
            if re.match(r"\s*(?:という|って|と(?:いう|言う))", content_after):
                continue  # "覚えておいてほしいこと：という見出し…": the words are quoted, not asked
            content = _clean_ja(content_after)
        else:
            before = re.sub(r"^\s*(?:これ|それ|次のこと|以下|この(?:こと|事))(?:を|は)?\s*$", "", before)
            content = _clean_ja(_JA_BEFORE_STRIP.sub("", before))
            if re.search(r"ことを\s*$", before):
                content = _clean_ja(re.sub(r"を\s*$", "", before))
        if not content and not before.strip() and re.match(r"\s*(?:[。！!\n]|$)" if not polite else r"\s*[?？]", after):
            # "…。覚えておいて" / "覚えておいて。…": the fact is the neighbouring sentence
            prev = _previous_ja_sentence(text, s_start)
            if prev.startswith(_JA_THANKS_WORDS):
                prev = _JA_THANKS_LEAD.sub("", prev)
            # thanks alone or a task before the request is not the note: the sentence after it is
            # ("ありがとう、助かった。永続的に覚えておいて。<fact>", "テストを直して。これは必ず覚えておいて。<fact>")
            if prev and not _JA_QUESTION_END.search(prev) and not asked and not _ja_task(prev):
                content = prev
            else:
                nxt = re.match(r"\s*[。！!?？]?\s*(.+?)(?:[。！!]|\n|$)", text[m.end():m.end() + _WINDOW])
                content = _clean_ja(nxt.group(1)) if nxt else ""
            if pleaded and (_JA_COMPLAINT.search(content) or _JA_TASK_OPENER.match(content)
                            or _JA_TASK_CLOSER.search(content)):
                continue  # "頼むから覚えて。前にも言ったでしょ。", "…。あとテストも直して。": no note after the plea
            if (trig.startswith("忘れ") or asked) and _JA_IMPERATIVE_END.search(content):
                continue  # "テストを実行してね。忘れないで", "覚えておいてくれる？あとテスト直して": a task
        if content and any(word in content for word in _JA_RETRACT_WORDS) and _JA_RETRACTED.search(content):
            continue  # "頼むから覚えて。…いや、やっぱりいいや。": taken back
        if content and _JA_IMPORTANCE.match(content):
            # "これは大事なので覚えておいてください。本番へのデプロイは…": the sentence before the
            # request only says the next one matters; the note is the next sentence
            nxt = re.match(r"\s*(?:ください|下さい|ね|よ)?\s*[。！!]?\s*(.+?)(?:[。！!]|\n|$)",
                           text[m.end():m.end() + _WINDOW])
            content = _clean_ja(nxt.group(1)) if nxt else ""
        if _JA_QUESTION_END.search(content) and content.endswith(("?", "？")):
            continue
        content = _JA_THAT_TAIL.sub("", content) or content
        if len(content) < 2 or _is_reference(content, "ja"):
            continue
        if content.endswith(("のこと", "の事")):
            continue  # "さっきのこと覚えといて", "テストのこと覚えといて": a thing, not a fact
        return RememberRequest(content, trig, "ja")
    return None


# Standing instructions: "今後は敬語で返答して", "以後、mainへの直接pushは禁止". The sentence must
# end as an instruction or a rule (imperative, prohibition, plain verb), not as a statement
# about oneself ("今後は気をつけます") or a question.
_JA_STANDING = _Lazy(r"(?:^|(?<=[。！？!?\n]))\s*(?:(?:それから|あと|また|それと)[、,]?\s*)?"
                     r"(?P<trig>(?:今後|以後|以降|次回以降)(?:は|(?=[、,]))|今後の(?:会話|セッション)では"
                     r"|(?:今度|次回|次)から(?:は)?(?![の次])|これから(?:先)?は(?![ぁ-ん]))\s*[、,]?\s*")
# Not a rule to keep: a caution with no content, a task on something in this conversation
# ("このファイル", "そのPR"), or a one-off fix.
_JA_GENERIC = _Lazy(r"気をつけ|気を付け|注意し|よろしく")
_JA_ONE_OFF = _Lazy(r"(?:この|その|あの|これ|それ|あれ|こちら|そちら)"
                    r"|(?:直して|修正して|マージして|なおして|教えて|説明して|調べて|見せて)(?:ください|下さい|ね)?$")
_JA_RULE_END = _Lazy(r"(?:(?:て|で)(?:ね|よ|ください|下さい|ほしい|欲しい)?|こと|ように|禁止|厳禁|ダメ|だめ|ないで|するな)$")
# A plain verb is a rule only when someone does something to something ("bunを使う",
# "テストはpytestにする"), not an event or a forecast ("雨が降る", "忙しくなる", "ログが出力される").
_JA_PLAIN_RULE = _Lazy(r"^[^。]*(?:を[^。]*[うくすつぬむぶぐる]|[にと]する)$")
_JA_NOT_A_RULE = _Lazy(r"(?:なる|れる|られる|だろう|でしょう)$")
_JA_STATEMENT_END = _Lazy(r"(?:ます|です|ました|でした|ません)$")
# Polite forms of a rule ("返答は日本語でお願いします", "直接 push は禁止です", "bunを使います"),
# which the statement endings above would otherwise turn away.
_JA_POLITE_RULE = _Lazy(r"(?:お願い(?:します|いたします|致します)|(?:禁止|厳禁|不要|必須)です"
                        r"|を[^。]*(?:使います|使いません|用います|しません|禁止します))$")
_JA_ASKING = _Lazy(r"どう|何|なに|いつ|どこ|だれ|誰|どれ|なぜ")


def _detect_ja_standing(text: str, masked: str) -> RememberRequest | None:
    for n, m in enumerate(_JA_STANDING.finditer(masked)):
        if n >= _MAX_CANDIDATES:
            return None
        end = _sentence_end(masked, m.end(), block=False)
        sentence = masked[m.end():end]
        if _JA_QUESTION_END.search(sentence.rstrip()) or sentence.rstrip().endswith(("?", "？")):
            continue
        content = _clean_ja(text[m.end():end])
        polite = bool(_JA_POLITE_RULE.search(content))
        rule = polite or _JA_RULE_END.search(content) or (
            _JA_PLAIN_RULE.match(content) and not _JA_NOT_A_RULE.search(content))
        if len(content) < 3 or (_JA_STATEMENT_END.search(content) and not polite) or not rule \
                or _JA_GENERIC.search(content) or _JA_ONE_OFF.search(content) or _JA_ASKING.search(content):
            continue  # "次からは気をつけてね", "今後はこのファイルを修正して": no rule to keep
        return RememberRequest(content, m.group("trig").rstrip("は"), "ja")
    return None


def _has_ja(text: str) -> bool:
    """Kana or CJK ideographs ([\u3040-\u30ff\u3400-\u9fff]); no regex: that class alone
    took ~2 ms to compile on every save."""
    if text.isascii():
        return False
    return any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" for ch in text)


def detect_remember(prompt: str) -> RememberRequest | None:
    """The memory a prompt asks to keep, or None. Pure; a few microseconds on a miss."""
    if not prompt or not REMEMBER_HINT.search(prompt):
        return None
    masked = _mask(prompt)
    if not REMEMBER_HINT.search(masked):
        return None
    if _has_ja(masked):
        req = _detect_ja(prompt, masked) or _detect_ja_standing(prompt, masked)
        if req:
            return req
    return _detect_en(prompt, masked)


# --- feedback polarity -------------------------------------------------------------------------
def _trie(words: list[str]) -> str:
    """A regex alternation nested by common prefix. Every branch starts with a literal, so
    CPython's matcher rejects non-matching branches with one character compare; a flat
    case-insensitive alternation of 80 phrases was ~10x slower."""
    tree: dict = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in node.items() if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return emit(tree)


def _phrases(en: str, ja: str) -> _Lazy:
    """English phrases (lower case, word-bounded) and Japanese/emoji substrings, | separated."""
    return _Lazy(lambda: r"\b(?:" + _trie(en.split("|")) + r")\b|" + _trie(ja.split("|")))


# Phrases that contain a negative word but mean something positive are matched (and blanked)
# first: "not bad", "no problem", "doesn't fail anymore", "間違いない".
_POS_OVERRIDE = _phrases(
    "not bad|not wrong|not an issue|not a problem|no problem|no problems|no worries|no issues"
    "|no errors|no error|no more errors|doesn't fail|doesnt fail|does not fail|doesn't crash"
    "|does not crash|no longer fails|no longer failing|no longer crashes|no longer broken"
    "|not failing anymore|not failing any more|not broken anymore|works now|work now"
    "|working now|fixed it|that fixed it|it's fixed|its fixed|is fixed now|passes now"
    "|passing now|tests pass|all green|can't complain",
    "間違いない|間違いありません|問題ない|問題ありません|問題なし|悪くない|ダメじゃない|だめじゃない"
    "|エラーが出なく|エラーが消え|直った|直りました|動くようになった|文句なし",
)
# Strong phrases are feedback wherever they appear. Weak single words ("great", "failing",
# "wrong") are also how tasks are described ("fix the failing test", "correct the typo"), so
# they count only in a reply of at most three words or as one of its first two words
# (Japanese: a reply of at most 8 characters, or within its first 6).
_POS_STRONG = _phrases(
    "thanks|thank you|thx|great job|great work|good job|good work|nice work|nice job"
    "|well done|lgtm|looks good|looks great|nailed it|that worked|that works|it works"
    "|it worked|works great|works perfectly|spot on|love it|good catch|that's right|that's it"
    "|much better|yes exactly|that did it|that did the trick|that's correct|that is correct",
    "ありがと|サンキュー|完璧|うまくいった|うまくいきました|うまく行った|うまく動いた|上手くいった"
    "|上手く行った|動いた|動きました|助かった|助かりました|素晴らしい|すばらしい|ばっちり"
    "|バッチリ|さすが|解決した|解決しました|できました|その通り|いい感じ|良い感じ|よくできました"
    "|👍|🎉|🙏",
)
_POS_WEAK = _phrases(
    "perfect|great|nice|awesome|excellent|brilliant|fantastic|amazing|exactly|solved"
    "|superb|wonderful|cheers|ty|cool|sweet|good",
    "最高|いいね|良いね|正解|オッケー|おけ|✅",
)
_NEG_STRONG = _phrases(
    "that's wrong|that is wrong|this is wrong|it's wrong|doesn't work|doesnt work|does not work"
    "|didn't work|didnt work|did not work|not working|isn't working|still fails|still failing"
    "|still failed|still broken|still wrong|still not|still doesn't|still crashes|still crashing"
    "|still errors|still erroring|still getting|you broke|not what i asked|not what i wanted"
    "|not what i meant|not what i said|that's not it|that's not right|that's not what"
    "|same error|useless|revert it|revert that|revert this|undo it|undo that|undo this"
    "|stop doing|error persists|not quite|doesn't compile|does not compile|won't compile"
    "|it's broken|it is broken|you broke it|this broke|that broke|it broke|made it worse"
    "|that's not correct|is not correct|isn't correct|try again|nope",
    "違う|違います|ちがう|動かない|動きません|間違って|間違えて|だめ|ダメ|駄目|まだエラー"
    "|まだ失敗|まだ動かない|まだ直って|直ってない|直っていない|うまくいかない|うまくいきません"
    "|うまく動かない|上手くいかない|そうじゃない|そうではない|やり直し|👎|❌",
)
_NEG_WEAK = _phrases(
    "wrong|incorrect|broken|fail|fails|failed|failing|bad|terrible|worse|nope|crash|crashes"
    "|crashed|regression",
    "失敗|エラー|壊れ|おかしい|できない|できてない|できていない|間違い",
)
_WEAK_SHORT_WORDS = 3
_FEEDBACK_SCAN = 600
_CONTRAST = _Lazy(r"\bbut\b|\bhowever\b|\bthough\b|\bstill\b|けど|けれど|しかし|でも|ただ、|まだ")
_COMPLAINT_Q = _Lazy(r"\bwhy\b|\bstill\b|\bagain\b|なぜ|なんで|まだ|また")
_WORD_RE = _Lazy(r"[a-z0-9']+|[^\x00-\x7f\s]{1,4}")


def _count(pattern: re.Pattern[str], t: str, weak_limit: int) -> int:
    """Matches; with ``weak_limit`` >= 0 only those starting before that offset count."""
    if weak_limit < 0:
        return len(pattern.findall(t))
    return sum(1 for m in pattern.finditer(t) if m.start() < weak_limit)


def feedback_polarity(text: str) -> int:
    """+1 if the text praises the previous answer, -1 if it says it failed, else 0.

    Mixed feedback ("thanks, but it still fails") counts as negative: a remaining problem
    matters more for learning than politeness. A question is neutral ("is it broken?")
    unless it is a complaint ("why is it still failing?").
    """
    if not text or not text.strip():
        return 0
    # Feedback opens a prompt ("thanks, now ..."); scanning only the start keeps a long
    # prompt cheap.
    text = text.strip()[:_FEEDBACK_SCAN]
    t = text.lower().replace("\u2019", "'")
    pos = len(_POS_OVERRIDE.findall(t))
    if pos:
        t = _POS_OVERRIDE.sub(" ", t)
    # weak words count everywhere in a short reply, else only among its first two words
    words = list(_WORD_RE.finditer(t))
    if _has_ja(t):
        limit = len(t) if len(t) <= 8 else 6
    elif len(words) <= _WEAK_SHORT_WORDS:
        limit = len(t)
    else:
        limit = words[1].end()
    neg = len(_NEG_STRONG.findall(t))
    t_no_neg = _NEG_STRONG.sub(" ", t) if neg else t
    neg += _count(_NEG_WEAK, t_no_neg, limit)
    pos += len(_POS_STRONG.findall(t_no_neg))
    pos += _count(_POS_WEAK, _NEG_WEAK.sub(" ", t_no_neg), limit)
    if is_question(text):
        return -1 if neg and _COMPLAINT_Q.search(t) else 0
    if neg and pos:
        return -1 if _CONTRAST.search(t) or neg >= pos else 1
    if neg:
        return -1
    if pos:
        return 1
    return 0
