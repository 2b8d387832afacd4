"""English phrase tables of remember detection: triggers, lead-ins, labels, lasting and one-off cues."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy


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


_LABEL_ENDS = 200  # a text with more ":" and "?" than this is taken to hold a label (no scan)


# Non-ASCII letters that re.I matches to ASCII ones; mapped before looking for an alternative's words
_FOLDS_TO_ASCII = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


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


_EN_POLITE_TAIL = _Lazy(r"(?i)[,\s]*(?:please|pls|thanks|thank you|thx)[.!\s]*$")
# "that" opens a clause to drop ("remember: that we use bun"), not a subject ("That is wrong, …",
# "That's the staging URL")
_EN_LEADING = _Lazy(r"(?i)^(?:\s*(?:that\b(?!['’]|\s+(?:is|was|are|were|will|would|should|has|have|had|can|could|"
                    r"must|does|did)\b)|to\b|please\b|[:\-—,])\s*)+")


_EN_LASTING_TAIL = _Lazy(r"(?i)[,\s]+" + _LASTING_TAIL + r"[\s.!?]*$")
# The same words opening a note ("In the future, always ask …", "and in future sessions, use uv")
_EN_LASTING_HEAD = _Lazy(r"(?i)^[,\s]*(?:and\s+)?(?:in the future|going forward|from now on|from here on(?: out)?"
                         r"|(?:for|in) (?:all |every )?future sessions?|in every session|across sessions)\s*[,:]\s*")
_EN_TASK_TAIL = _Lazy(
    r"(?i)[,;]\s*(?:and|then|and then|but)\s+(?:please\s+)?(?:now\s+)?(?:fix|run|add|update|create"
    r"|write|make|implement|change|remove|delete|refactor|check|look|help|commit|push|deploy"
    r"|start|continue|show|tell|explain|open|build|install|rename|move|test)\b.*$")
_QUOTED = _Lazy(r"^(?:'([^']+)'|\"([^\"]+)\"|“([^”]+)”|「([^」]+)」)$")
