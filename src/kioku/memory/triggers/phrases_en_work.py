"""English phrase tables for what a note is about: tasks, work at hand, retractions, complaints, labels."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.memory.triggers.phrases_en import _OCCASION, _WH


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


# Words that make "remember <words>" a statement ("remember we use pnpm", "remember the API is
# slow"), not a thing to recall ("remember the diff above", "remember the docs").
_STATING_WORDS = frozenset(
    "is are was were isn't aren't wasn't weren't be use uses need needs must should shouldn't can can't cannot "
    "don't doesn't do does never always have has run runs live lives deploy deploys prefer prefers require "
    "requires go goes get gets take takes mean means work works break breaks fail fails expect expects want "
    "wants like likes hate hates call calls keep keeps stay stays point points belong belongs contain contains "
    "return returns build builds store stores it's that's we're they're i'm you're there's we've i've "
    "will won't".split())


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


_ABOUT_THE_NEXT_STEP = _Lazy(r"(?i)\b(?:when|while|as|once|before) you\b(?![^.!?\n]*\b(?:every|always|whenever)\b)")


# What a "remember <thing>: <value>" names when it is the work at hand, not a fact to keep
_WORK_NOUNS = frozenset(("plan", "steps", "order", "list", "sequence", "todo", "agenda"))


_LABEL = _Lazy(r"(?:this |the )?[\w-]+:\s")  # "password: …" after "Remember": a login box's label


# A line of pasted program output: a request on a line with such lines on both sides is the
# program's text ("note: next time, remember to pass --locked" inside a compiler's stderr)
_OUTPUT_LINE = _Lazy(r"(?:(?i:error|warning|fatal(?: error)?|panic)(?:\[[\w-]+\])?:|(?:stderr|stdout)\s*:|Caused by:"
                     r"|Traceback \(most recent call last\)|Exception in thread"
                     r"|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE)(?:\]|:|\s+\[)"
                     r"|\[?\d{2}:\d{2}:\d{2}|\[?\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:)")


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


# "that" opening a clause inside a label: the clause is part of the note, which an older form reads
# whole ("Remember for future sessions that the env vars are: …")
_THAT_CLAUSE = _Lazy(r"(?i)\bthat\s+(?!in mind\b|down\b)(?P<clause>.+)")


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


# A rule that says at its end that it lasts: "Use tabs for indentation from now on."
_EN_STANDING_END = _Lazy(r"(?i)[,\s]+(?:from now on|from here on(?: out)?|going forward|in (?:all )?future sessions)"
                         r"[\s.!]*$")


_MARK_THEN_SPACE = _Lazy(r"[.!?;](?=\s)|\n")  # "pyproject.toml" is no sentence end
# A sentence that asks for a change ("Add a warning so that old_api() logs it from now on") or
# points into the code ("from line 30 going forward") tells how the code will behave from now on
_RESULT_CLAUSE = _Lazy(r"(?i)\bso(?: that)? (?:it|they|ci|the|calling|every|all)\b|\bfrom line\b")
