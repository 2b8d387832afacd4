"""One statement's parts: its subject, the values it states, the values it says were replaced,
the name it gives something, and its predicate."""

from __future__ import annotations

from functools import lru_cache

from kioku.memory.contradict.clauses import _has_ja, _lower, _polarity, _qualifiers
from kioku.memory.contradict.words import (
    _ADDITIVE, _ARTICLES, _CALENDAR, _CASED_WORD, _CEASE_DROP, _CLAUSE_SPLIT, _COPULAS, _DESCRIBING_SUFFIXES,
    _DOTTED_WORD, _EN_ALIASES, _FROM_TO, _FUNCTION_WORDS, _IDENTITY_HEADS, _INDEFINITE, _INNER_DOT,
    _JA_ALIASES, _JA_CEASE, _JA_CEASE_DROP, _JA_DAY, _JA_DAYS, _JA_FROM_TO, _JA_NOW, _JA_PARTICLES,
    _JA_PROJECT, _JA_REJECT, _JA_REJECT_MARKERS, _JA_SCOPE, _JA_SWITCH, _NOW_PHRASES, _NOW_WORDS,
    _OPTION_NAMES, _PERSONAL, _PLACING_WORDS, _QUALIFIER_WORDS, _REJECT_BEFORE, _REJECT_WORDS,
    _REPLACED_WITH, _STOP_DOING, _SUBJECT_SKIP, _TO_FROM, _VERB_CUES, _WORD,
)
from kioku.memory.textutil import stem, token_set


def _first_clause(low: str) -> str:
    """The text up to its first clause mark; a dot inside a word or number ("3.11",
    "example.com") is not one."""
    if "." in low:
        low = _INNER_DOT.sub("\x01", low)
        return low.translate(_CLAUSE_SPLIT).split("\n")[0].replace("\x01", ".")
    return low.translate(_CLAUSE_SPLIT).split("\n")[0]


@lru_cache(maxsize=4096)
def _subject(text: str) -> tuple[str, ...] | None:
    """Content words of the subject (empty: the project itself), or None when unknown."""
    low = _lower(text)
    if _has_ja(low):
        head = _first_clause(low).split("は", 1)  # "node.jsのバージョンは": a dot inside a name
        if len(head) < 2 or not head[0].strip() or "を" in head[0]:
            return None
        subject = head[0].strip()
        if subject.endswith(_JA_PROJECT):
            return ()  # "このプロジェクトでは": the project itself
        for particle in _JA_PARTICLES:
            if subject.endswith(particle) and len(subject) > len(particle):
                subject = subject[: -len(particle)]
                break
        return (subject,)
    words = [m.group(0) for m in _WORD.finditer(_first_clause(low))]
    for i, word in enumerate(words):
        if word in _VERB_CUES:
            subject = tuple(sorted({w for w in words[:i] if w not in _SUBJECT_SKIP}))
            if not subject and _PERSONAL & set(words[:i]):
                return ("i",)  # "I prefer vim" is about the person, "We use VS Code" about the project
            return subject
    return None


def stated_values(text: str) -> frozenset[str]:
    """The values (numbers, versions, known options, days) the statement's predicate gives."""
    return frozenset(_predicate(text)[1])


def relation(a: str, b: str) -> str:
    """Whether two memories speak of the "same" subject and scope, of "different" ones (one can
    never replace the other), or "unknown"."""
    return _relation(a, b)


def _relation(new: str, old: str) -> str:
    """"same" subject and scope, "different" (never a replacement) or "unknown"."""
    q_new, q_old = _qualifiers(new), _qualifiers(old)
    if (q_new - q_old) and (q_old - q_new):
        return "different"  # "in Go files" vs "in YAML files", even if both say "for indentation"
    s_new, s_old = _subject(new), _subject(old)
    if s_new is not None and s_old is not None and s_new and s_old and s_new != s_old:
        return "different"
    if s_new is None or s_old is None or bool(s_new) != bool(s_old) or q_new != q_old:
        return "unknown"
    return "same"


@lru_cache(maxsize=4096)
def _mentions(text: str) -> frozenset[str]:
    low = _lower(text)
    words = set(_WORD.findall(low))
    for alias, _category, option in _JA_ALIASES:
        if alias in low:
            words.add(option)
    for (alias_words, (_category, option)) in _EN_ALIASES.items():
        if len(alias_words) == 1 and alias_words[0] in words:
            words.add(option)
    return frozenset(words)


@lru_cache(maxsize=4096)
def _replaced_values(text: str) -> frozenset[str]:
    """Values the text says were replaced or given up ("from npm to bun", "instead of black",
    "jestをやめて", "MySQLの代わりに")."""
    low = _lower(text)
    out: set[str] = set()
    # each pattern runs only when the words it starts with are in the text
    if "from " in low:
        out.update(m.group(1) for m in _FROM_TO.finditer(low))
        out.update(m.group(2) for m in _TO_FROM.finditer(low))  # "switched to pnpm from npm"
    if "replace" in low:
        out.update(m.group(1) for m in _REPLACED_WITH.finditer(low))
    if any(word in low for word in _JA_SWITCH):
        out.update(m.group(1) for m in _JA_FROM_TO.finditer(low))
    if any(word + " " in low for word in _REJECT_WORDS):
        for m in _REJECT_BEFORE.finditer(low):
            first = m.group(1).split()
            if first[0] in _FUNCTION_WORDS:
                continue  # "never in env files" names a place, not a value given up
            out.add(first[0])
            if len(first) > 1:
                out.add(" ".join(first))
    if any(marker in low for marker in _JA_REJECT_MARKERS):
        out.update(m.group(1) for m in _JA_REJECT.finditer(low))
    return frozenset(v for v in out if v not in _SUBJECT_SKIP and v not in {"use", "using", "the", "a"})


def _names_what_old_is_about(new: str, old: str, value: str) -> bool:
    """Whether ``new`` names what ``old`` is about: every word of its subject, or, with no
    subject found ("Bundle the frontend with webpack"), a word besides the value given up."""
    subject = _subject(old)
    low_new = _lower(new)
    if subject is not None:
        return all(word in low_new for word in subject)
    shared = {stem(w) for w in token_set(_lower(old))} & {stem(w) for w in token_set(low_new)}
    return bool(shared - {stem(w) for w in value.split()})


def _has_value(low: str, value: str) -> bool:
    """Whether the lower-cased text names ``value`` as a word of its own ("npm" is not in
    "pnpm"); a Japanese value is looked for as it is written."""
    if not value.isascii():
        return value in low
    start = low.find(value)
    while start >= 0:
        end = start + len(value)
        if (start == 0 or not low[start - 1].isalnum()) and (end == len(low) or not low[end].isalnum()):
            return True
        start = low.find(value, start + 1)
    return False


def _says_now(text: str) -> bool:
    low = _lower(text)
    words = set(_WORD.findall(low))
    return bool(words & _NOW_WORDS) or any(p in low for p in _NOW_PHRASES) or any(p in low for p in _JA_NOW)


def _is_value(token: str) -> bool:
    # a number (``^\d[\d.,:]*$``) starts with a digit, so the digit test covers it
    return token in _OPTION_NAMES or token in _CALENDAR or any(c.isdigit() for c in token)


def _copula_split(text: str) -> tuple[list[str], str, list[str]] | None:
    """The first sentence's cased words before its copula, the copula, and the words after it
    ("now" and the like left out); None without a copula."""
    words = _CASED_WORD.findall(text.split(".", 1)[0] if ". " in text else text)
    at = next((i for i, w in enumerate(words) if w.lower() in _COPULAS), None)
    if at is None:
        return None
    return words[:at], words[at].lower(), [w for w in words[at + 1:] if w.lower() not in _NOW_WORDS]


def _after_copula(text: str) -> list[str] | None:
    split = _copula_split(text)
    return None if split is None else split[2]


def _looks_named(word: str) -> bool:
    """Written as a name or a value: a capital, a dot or a digit, or a known option."""
    return word[:1].isupper() or "." in word or any(c.isdigit() for c in word) or word.lower() in _OPTION_NAMES


def _placed(rest: list[str]) -> str:
    """The word that opens a description of where or how ("deployed", "behind"), or ""."""
    first = rest[0] if rest else ""
    return first if first[:1].islower() and (first.endswith(_DESCRIBING_SUFFIXES) or first in _PLACING_WORDS) else ""


def _names_something(text: str, placed_as: str = "") -> bool:
    """Whether what follows the copula is a name or a value ("is Memcached", "is now
    stage.example.com", "はubuntuです"), not a description ("is protected", "is now versioned"):
    a word written with a capital (not the first), with a dot or a digit, or a known option.
    A description of where or how ("is now deployed to Vercel", "is now behind Cloudflare")
    names nothing, unless the other statement is placed the same way (``placed_as``: "is now
    deployed to Fly.io" after "is deployed to Heroku" names a new place)."""
    if _has_ja(_lower(text)):
        return bool(_predicate(text)[1])
    rest = _after_copula(text)
    if rest is None:
        return False
    placed = _placed(rest)
    if placed and placed != placed_as:
        return False
    if placed:
        rest = rest[1:]
    if len(rest) == 1:
        return True  # "is master", "is now main" (but not "is protected", "is now versioned")
    return any(_looks_named(w) for w in rest)


class _Named:
    """A copula statement that only names its subject: "The default branch is main"."""

    __slots__ = ("subject", "copula", "name", "plain")

    def __init__(self, subject: tuple[str, ...], copula: str, name: str, plain: bool) -> None:
        self.subject, self.copula, self.name, self.plain = subject, copula, name, plain


def _bare_name(text: str) -> _Named | None:
    """The name a copula statement gives its subject when that is all it says ("The default
    branch is main": name "main"; "The team lead is Alice Smith": "alice smith", plainly a
    name), with the subject's own words (articles aside: "team lead" and "project lead", "my"
    and "our" stay apart) and the copula. ``plain``: written with a capital, a dot or a digit,
    or a known option, rather than a single lower-case word that could describe ("is slow").
    None for anything longer or placed ("is in us-east-1", "is a Redis cluster", "is protected")."""
    if _has_ja(_lower(text)) or ". " in text.strip() or "," in text:
        return None
    split = _copula_split(text)
    if split is None:
        return None
    before, copula, rest = split
    subject = tuple(w.lower() for w in before if w.lower() not in _ARTICLES)
    if not subject or not rest or len(rest) > 3 or any(
            w.lower() in _FUNCTION_WORDS or w.lower() in _ADDITIVE for w in rest):
        return None
    plain = [_looks_named(w) for w in rest]
    if len(rest) == 1:
        if rest[0].lower().endswith(_DESCRIBING_SUFFIXES) or rest[0].lower() in _QUALIFIER_WORDS:
            return None
        return _Named(subject, copula, rest[0].lower(), plain[0])
    return _Named(subject, copula, " ".join(w.lower() for w in rest), True) if all(plain) else None


def _renamed(new: str, old: str) -> tuple[str, str] | None:
    """("replaces" | "unsure", reason) when ``new`` gives the subject ``old`` named another name.

    Only for the same subject words in the same tense ("was" tells history, not a change).
    It replaces when both are plainly names, the subject is one thing ("The", "Our", not "A
    good example") and a role or an address ("The team lead", "The default branch"); otherwise
    the user decides."""
    named_new, named_old = _bare_name(new), _bare_name(old)
    if not (named_new and named_old) or named_new.name == named_old.name:
        return None
    if named_new.subject != named_old.subject or named_new.copula != named_old.copula:
        return None
    change = f"{named_new.name} instead of {named_old.name}"
    sure = (named_new.plain and named_old.plain and _lower(old).split(None, 1)[0] not in _INDEFINITE
            and named_new.subject[-1] in _IDENTITY_HEADS)
    return ("replaces" if sure else "unsure"), change


def _ceases(text: str) -> bool:
    """"We no longer deploy on Fridays", "We stopped deploying ...", "... anymore" (with a
    negation), "金曜日にはもうデプロイしない"."""
    low = _lower(text)
    if _has_ja(low):
        return any(marker in low for marker in _JA_CEASE) and ("ない" in low or "やめ" in low or "しなくな" in low)
    if "no longer" in low or ("stop" in low and _STOP_DOING.search(low)):
        return True
    return ("anymore" in low or "any more" in low) and _polarity(text) < 0


def _statement_core(text: str) -> set[str]:
    """The statement's words without its polarity, "now" and cessation words, stemmed, so
    "we stopped deploying on fridays" and "we deploy on fridays" share their core."""
    low = _lower(text)
    if _has_ja(low):
        for marker in _JA_CEASE_DROP:
            low = low.replace(marker, " ")
        return token_set(low)
    return {stem(w) for w in token_set(low) if w not in _CEASE_DROP}


def _predicate(text: str) -> tuple[set[str], set[str], bool]:
    """(attribute words, value words, copula) of the first clause, subject and markers removed."""
    low = _lower(text)
    if _has_ja(low):
        rest = low.split("は", 1)[-1]
        for marker in _JA_NOW:
            rest = rest.replace(marker, " ")
        values = {w for w in _WORD.findall(rest) if w.isascii()}
        if "では" in rest or "には" in rest or "場合" in rest:
            rest = _JA_SCOPE.sub(" ", rest)  # a scope ("Pythonでは") is no value of the statement
        if "曜" in rest:  # a day of the week is a value, as "friday" is: "デプロイは金曜日です"
            values |= {_JA_DAYS[m.group(1)] for m in _JA_DAY.finditer(rest)}
            rest = _JA_DAY.sub(" ", rest)
        attrs = token_set("".join(ch if not ch.isascii() or ch == " " else " " for ch in rest))
        copula = rest.rstrip("。 ").endswith(("です", "だ", "でした"))
        return attrs, values, copula
    clause = _first_clause(low)
    words = [m.group(0) for m in (_DOTTED_WORD if "." in clause else _WORD).finditer(clause)]
    start = next((i for i, w in enumerate(words) if w in _VERB_CUES), 0)
    rest = [w for w in words[start:] if w not in _NOW_WORDS and w not in _SUBJECT_SKIP]
    copula = bool(rest) and rest[0] in _COPULAS
    values = {w for w in rest if _is_value(w)}
    attrs = {w for w in rest if w not in values and w not in _COPULAS and w not in _QUALIFIER_WORDS
             and w not in ("with", "to", "of", "at", "by", "on", "no", "longer")}
    return attrs, values, copula
