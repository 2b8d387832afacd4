"""Deterministic contradiction detection between a new memory and older ones (stdlib only).

``assess(new, old)`` says whether a new memory *clearly replaces* an older one
(``("replaces", reason)``: the old one is superseded), *may* replace it (``("unsure", reason)``:
both are kept and the save confirmation says "kept both; if one replaces the other, run
`kioku forget`"), or neither (None). Losing a true memory from recall is the worse error, so:

1. **Subject and scope first.** The subject is the words before the first verb-like cue
   ("The docs site | uses bun"; Japanese: before は), the scope the qualifiers ("in Makefiles",
   "for Python files"). Different subjects or different scopes are never a replacement
   ("The frontend app uses pnpm" / "The docs site uses bun" stay together).
2. **Explicit replacement wording** naming a value the old memory mentions: "from X to Y",
   "replaced X with Y", "instead of X", "rather than X", "no longer use X", "never X",
   and Japanese XからYに移行/変更, Xではなく, Xの代わりに, Xをやめて, Xは使わない.
3. **Alternatives in one category** (package managers, indentation, quote style, test
   runners, formatters, databases, ...): endorsing X where the old endorsed Y, for the same
   subject; with one side's subject or scope unknown the pair is only "unsure".
4. **Same attribute, new value**: the same subject with "now" / "anymore" / "no longer" /
   今は / もう and the same predicate ("The API now listens on port 8080" after "... 3000"),
   or exactly the same predicate with different values (numbers, known tool names).
5. **Polarity flip**: "always ..." vs "never ..." (do/don't, 必ず/しない) on otherwise
   near-identical statements (token Jaccard >= 0.6) with the same qualifiers.

Measured on labelled English and Japanese pairs the project wrote
(``tests/memory/data/contradiction_pairs_*.json``; ``scripts/bench/contradictions.py``).

Speed: this runs on the hook save path, so matching is done with word lists, dict lookups,
substring tests and a few small regexes over a lower-cased text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kioku.infra.lazyre import LazyPattern
from kioku.memory.textutil import jaccard, stem, token_set

# category -> option -> aliases (English aliases are lower-case word sequences; Japanese
# aliases are matched as substrings).
CATEGORIES: dict[str, dict[str, tuple[str, ...]]] = {
    "js-package-manager": {"npm": ("npm",), "yarn": ("yarn",), "pnpm": ("pnpm",), "bun": ("bun",)},
    "python-env": {"pip": ("pip",), "poetry": ("poetry",), "uv": ("uv",), "pipenv": ("pipenv",),
                   "conda": ("conda", "mamba"), "pdm": ("pdm",), "hatch": ("hatch",)},
    "indentation": {"tabs": ("tab", "tabs", "タブ"), "spaces": ("space", "spaces", "スペース", "空白")},
    "quotes": {"single": ("single quotes", "single quote", "シングルクォート"),
               "double": ("double quotes", "double quote", "ダブルクォート")},
    "js-test": {"jest": ("jest",), "vitest": ("vitest",), "mocha": ("mocha",), "jasmine": ("jasmine",)},
    "py-test": {"pytest": ("pytest",), "unittest": ("unittest",), "nose": ("nose", "nose2")},
    "py-format": {"black": ("black",), "ruff": ("ruff",), "yapf": ("yapf",), "autopep8": ("autopep8",)},
    "js-format": {"prettier": ("prettier",), "biome": ("biome",), "dprint": ("dprint",)},
    "database": {"postgres": ("postgres", "postgresql"), "mysql": ("mysql", "mariadb"),
                 "sqlite": ("sqlite", "sqlite3"), "mongodb": ("mongo", "mongodb"), "dynamodb": ("dynamodb",)},
    "editor": {"vim": ("vim", "nvim", "neovim"), "emacs": ("emacs",), "vscode": ("vscode", "vs code", "visual studio code"),
               "jetbrains": ("intellij", "pycharm", "webstorm")},
    "js-bundler": {"webpack": ("webpack",), "vite": ("vite",), "esbuild": ("esbuild",), "rollup": ("rollup",),
                   "parcel": ("parcel",)},
    "frontend": {"react": ("react",), "vue": ("vue",), "svelte": ("svelte",), "angular": ("angular",)},
    "language-js": {"typescript": ("typescript", "ts"), "javascript": ("javascript", "js")},
    "container": {"docker": ("docker",), "podman": ("podman",)},
    "vcs-merge": {"rebase": ("rebase",), "merge-commits": ("merge commits", "merge commit"), "squash": ("squash",)},
    "theme": {"dark": ("dark mode", "dark theme", "ダークモード"), "light": ("light mode", "light theme", "ライトモード")},
    "naming": {"camel": ("camelcase", "camel case"), "snake": ("snake_case", "snake case", "snakecase"),
               "kebab": ("kebab-case", "kebab case")},
    "dependency-updates": {"renovate": ("renovate",), "dependabot": ("dependabot",)},
    "ci": {"github-actions": ("github actions",), "gitlab-ci": ("gitlab ci",), "circleci": ("circleci", "circle ci"),
           "jenkins": ("jenkins",)},
    "answer-language": {"english": ("english", "英語"), "japanese": ("japanese", "日本語")},
    "answer-length": {"concise": ("concise", "brief", "short answers", "簡潔"),
                      "detailed": ("detailed", "verbose", "long answers", "詳しく", "詳細")},
}

# Options that name a tool with more than one job: they count for the category only in a text
# that names the job ("run ruff before committing" may mean its linter; "use black" does not
# replace that, while "we format with ruff" is a formatter choice).
_NEEDS_JOB: dict[tuple[str, str], tuple[str, ...]] = {
    ("py-format", "ruff"): ("format", "フォーマット", "整形"),
}

_EN_ALIASES: dict[tuple[str, ...], tuple[str, str]] = {}
_JA_ALIASES: list[tuple[str, str, str]] = []
for _cat, _opts in CATEGORIES.items():
    for _opt, _aliases in _opts.items():
        for _alias in _aliases:
            if _alias.isascii():
                _EN_ALIASES[tuple(_alias.split())] = (_cat, _opt)
            else:
                _JA_ALIASES.append((_alias, _cat, _opt))
_OPTION_NAMES = {opt for opts in CATEGORIES.values() for opt in opts} | {a[0] for a in _EN_ALIASES}

_POS_WORDS = {"use", "uses", "used", "using", "prefer", "prefers", "preferred", "always", "adopt", "adopted",
              "like", "standardize", "standardise"}
_POS_PHRASES = ("switch to", "switched to", "migrate to", "migrated to", "move to", "moved to", "go with",
                "stick to", "stick with", "run with", "runs with", "run on", "runs on", "managed with",
                "managed by", "should be", "install with", "installs with", "written in", "tests with",
                "indent with", "indents with", "indented with", "format with", "formatted with",
                "respond in", "reply in", "answer in", "speak in", "talk to me in")
_JA_POS = ("を使う", "を使います", "を使って", "使用", "にする", "にします", "を好む", "が好き", "で書く", "を採用",
           "に移行", "で統一", "を使用", "で返答", "で回答", "で答え", "で返事", "で話")
_NEG_WORDS = {"never", "not", "no", "don't", "dont", "avoid", "without", "drop", "dropped", "replace", "replaced",
              "ban", "forbid", "forbidden", "over", "doesn't"}
_NEG_PHRASES = ("instead of", "rather than", "stop using", "away from", "no longer", "do not", "not using")
# What may follow an option that answers the topic before は: a count and a copula
# ("インデントはスペース2つです", "テーマはダークモード")
_JA_NAMED_END = LazyPattern(r"[0-9]*(?:つ|個|文字)?(?:です|だ|にする|にします|で統一)?\s*$")
# The topic words that ask for a category's option ("インデントは…", "テーマは…"); "READMEは英語"
# says what the README is written in, not which language to answer in
_JA_TOPIC_WORDS = {"indentation": ("インデント", "字下げ"), "theme": ("テーマ", "外観"),
                   "quotes": ("クォート", "引用符"), "answer-language": ("回答", "返答", "返事", "応答")}
_JA_NEG_AFTER = ("は使わない", "を使わない", "使わない", "は使用しない", "を使用しない", "は禁止", "禁止", "は使うな",
                 "を使うな", "はダメ", "ではなく", "じゃなく", "の代わりに", "より", "はやめ", "をやめ", "は不可")
_QUALIFIER_WORDS = {"in", "for", "inside", "within", "on"}
_QUALIFIER_SKIP = {"the", "all", "our", "a", "an", "this", "these"}
_GENERIC_QUALIFIERS = {"this", "project", "repo", "repository", "codebase", "everything", "here", "general",
                       "all", "code", "now", "future", "installs", "install", "scripts", "everywhere", "it", "us",
                       "me", "dev", "development"}
_POLARITY_WORDS = {"always", "never", "do", "don't", "dont", "must", "should", "not", "shouldn't"}
_NEGATIVE_WORDS = {"never", "don't", "dont", "not", "shouldn't"}
_JA_POLARITY = ("しないで", "しない", "必ず", "する")

# Clause separators: re.split on this class, done with translate + split (no regex to compile).
_CLAUSE_SPLIT = str.maketrans({ch: "\n" for ch in ".;!?。！？,、"})
_WORD = re.compile(r"[a-z0-9][a-z0-9_'+#-]*")


def _lower(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def fold(text: str) -> str:
    """``text`` folded as :func:`could_flag`'s test expects an older text (NFKC, lower case, ’ → ')."""
    return _lower(text)


def _words(clause: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(clause))


def _has_phrase(words: list[str], phrases) -> bool:
    padded = " " + " ".join(words) + " "
    return any(f" {p} " in padded for p in phrases)


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def choices(text: str) -> dict[str, dict[str, int]]:
    """{category: {option: +1 endorsed | -1 rejected}} for directive mentions in ``text``."""
    found: dict[str, dict[str, int]] = {}

    def put(category: str, option: str, stance: int) -> None:
        slot = found.setdefault(category, {})
        slot[option] = min(slot.get(option, stance), stance)  # a rejection wins over an endorsement

    # Clauses: a choice's stance is decided inside its clause ("use bun, never npm").
    low = _lower(text)
    for clause in low.translate(_CLAUSE_SPLIT).split("\n"):
        matches = _words(clause)
        words = [m.group(0) for m in matches]
        has_cue = bool(_POS_WORDS.intersection(words)) or _has_phrase(words, _POS_PHRASES) or any(
            cue in clause for cue in _JA_POS)
        i = 0
        while i < len(words):
            for size in (3, 2, 1):
                hit = _EN_ALIASES.get(tuple(words[i : i + size])) if i + size <= len(words) else None
                if hit and hit in _NEEDS_JOB and not any(job in low for job in _NEEDS_JOB[hit]):
                    hit = None
                if hit:
                    before = words[max(0, i - 3) : i]
                    after = clause[matches[i + size - 1].end():].lstrip()
                    negated = bool(_NEG_WORDS.intersection(before)) or _has_phrase(before, _NEG_PHRASES) or \
                        after.startswith(_JA_NEG_AFTER)
                    if negated or has_cue:
                        put(hit[0], hit[1], -1 if negated else +1)
                    i += size - 1
                    break
            i += 1
        for alias, category, option in _JA_ALIASES:
            start = clause.find(alias)
            if start < 0 or ((category, option) in _NEEDS_JOB
                             and not any(job in low for job in _NEEDS_JOB[(category, option)])):
                continue
            after = clause[start + len(alias):].lstrip()
            if after.startswith(_JA_NEG_AFTER):
                put(category, option, -1)
            elif has_cue or ("は" in clause[:start] and _JA_NAMED_END.match(after)
                             and any(word in clause[:start] for word in _JA_TOPIC_WORDS.get(category, ()))):
                put(category, option, +1)  # "インデントはスペース2つ": the answer to the category's own topic
    return found


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _qualifiers(text: str) -> set[str]:
    low = _lower(text)
    words = [m.group(0) for m in _WORD.finditer(low)]
    out: set[str] = set()
    if _has_ja(low) and ("では" in low or "には" in low or "場合" in low):
        # "インデントはPythonではスペース4つ": where the statement holds, as "in Python files"
        out |= {m.group(1) for m in _JA_SCOPE.finditer(low)
                if not m.group(1).endswith(("曜日", "曜")) and m.group(1) not in _JA_GENERIC_SCOPES}
    for i, word in enumerate(words):
        if word not in _QUALIFIER_WORDS:
            continue
        j = i + 1
        while j < len(words) and words[j] in _QUALIFIER_SKIP:
            j += 1
        if j < len(words) and words[j] not in _GENERIC_QUALIFIERS and words[j] not in _OPTION_NAMES \
                and words[j] not in _CALENDAR:  # "on Fridays" is when, a value, not a scope
            out.add(words[j].rstrip("."))
    return out


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _polarity(text: str) -> int:
    low = _lower(text)
    words = set(_WORD.findall(low))
    if words & _NEGATIVE_WORDS or "しない" in low:
        return -1
    return +1 if (words & _POLARITY_WORDS or "必ず" in low or "する" in low) else 0


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _strip_polarity(text: str) -> set[str]:
    low = _lower(text)
    for marker in _JA_POLARITY:
        low = low.replace(marker, " ")
    return token_set(low) - _POLARITY_WORDS


# --- subjects, explicit replacement wording and values ------------------------------------
# A clause's subject is the words before its first verb-like cue ("The docs site | uses bun");
# an imperative ("Use bun") or "We use ..." has the project as its (empty) subject.
_VERB_CUES = _POS_WORDS | {
    "is", "are", "was", "were", "be", "listens", "listen", "runs", "run", "lives", "deploys", "deployed",
    "deploy", "builds", "built", "hosted", "stored", "written", "should", "must", "will", "now", "no",
    "switched", "switch", "moved", "move", "migrated", "migrate", "changed", "change", "replaced",
    "has", "have", "format", "formats", "formatted", "never", "don't", "dont", "do", "does", "doesn't",
    "doesnt", "did", "didn't", "install",
    "installs", "avoid", "runs", "serves", "served", "needs", "requires", "need", "require", "indent",
    "indents", "indented"}
_SUBJECT_SKIP = {"the", "a", "an", "our", "we", "i", "you", "my", "this", "project", "team", "us", "its",
                 "their", "they", "all", "here", "currently"}
_COPULAS = {"is", "are", "was", "were"}
_VALUE_NOUNS = {"port", "version", "v"}  # words that only say what kind of value follows ("port 8080")
_PERSONAL = {"i", "my", "me", "i'm"}
_NOW_WORDS = {"now", "anymore", "nowadays"}
_NOW_PHRASES = ("no longer", "these days", "from now on", "any more")
_JA_NOW = ("今は", "現在は", "これからは", "今後は", "もう",
           # a change stated as done: "ポートは9000に変えた", "Node.jsは22にアップグレードした"
           "に変えた", "に変えました", "に変わった", "に変わりました", "になった", "になりました",
           "に変更した", "に変更しました", "に変更になった", "に変更になりました", "に移行した", "に移行しました",
           "に切り替えた", "に切り替えました", "にアップグレードした", "にアップグレードしました")
_ADDITIVE = {"also", "too", "both", "additionally", "another"}
_FUNCTION_WORDS = {"in", "on", "at", "for", "to", "with", "by", "of", "into", "from", "be", "been", "being",
                   "the", "a", "an", "it", "this", "that", "all", "any"}
# Days and months name values as numbers do ("we deploy on Thursdays now" after "... Fridays").
_CALENDAR = {d + s for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
             for s in ("", "s")} | {"january", "february", "march", "april", "june", "july", "august",
                                    "september", "october", "november", "december"}
# A statement that something has stopped: it negates the same statement made without it.
_CEASE_PHRASES = ("no longer", "stopped ", "stop ", "anymore", "any more")
_CEASE_DROP = _POLARITY_WORDS | _NOW_WORDS | {"no", "longer", "any", "more", "stopped", "stop", "we", "i",
                                              "our", "us", "do", "does", "doesn't", "doesnt"}
# Words that open a description of where or how something is, not what it is.
_PLACING_WORDS = (_FUNCTION_WORDS - {"a", "an", "the"}) | {
    "behind", "under", "over", "via", "through", "inside", "outside", "up", "down", "off", "out", "not", "also",
    "still", "only", "always", "never"}
_DESCRIBING_SUFFIXES = ("ed", "ing", "able", "ible", "ive", "ful", "ous", "less")
_INNER_DOT = LazyPattern(r"(?<=[a-z0-9])\.(?=[a-z0-9])")
_DOTTED_WORD = LazyPattern(r"[a-z0-9][a-z0-9_'+#-]*(?:\.[a-z0-9_'+#-]+)*")  # "3.11" is one value
_CASED_WORD = LazyPattern(r"[A-Za-z0-9][\w.+#-]*[\w+#]|[A-Za-z0-9]")
_STOP_DOING = LazyPattern(r"\bstop(?:ped)? \w+ing\b")
_JA_CEASE = ("もう", "やめ", "しなくな", "しないことに")
_STOP_MARKERS = ("no longer", "stop", "anymore", "any more", *_JA_CEASE)  # what could_flag must let through
_JA_CEASE_DROP = ("もう", "しない", "しなくなった", "しなくなりました", "しないことにした", "をやめた", "はやめた",
                  "やめた", "やめました", "ない", "する", "します", "には", "では", "に", "で", "を", "が", "は")
_JA_PARTICLES = ("には", "では", "に", "で", "の", "が")
_JA_PROJECT = ("プロジェクトで", "プロジェクトに", "プロジェクト", "リポジトリで", "リポジトリ", "ここで")
# Compiled on first use, and used only when the literal text each needs is there: most memories
# state no replacement, and a save (a hook) would otherwise compile all of them.
# "このプロジェクトでは" is the project itself, as "in this project" is (_GENERIC_QUALIFIERS)
_JA_GENERIC_SCOPES = frozenset(("プロジェクト", "リポジトリ", "レポジトリ", "ここ", "チーム", "全体", "社内", "うち"))
_JA_SCOPE = LazyPattern(r"([a-z0-9][\w.+#-]*|[ァ-ヶー一-龥]+)(?:では(?!なく|ない|あり)|には|の場合は|の場合|のときは|の時は)")
_JA_DAY = LazyPattern(r"([月火水木金土日])曜(?:日)?")
_JA_DAYS = dict(zip("月火水木金土日", ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                                       "sunday")))
_FROM_TO = LazyPattern(r"\bfrom ([\w.+#-]+) to ([\w.+#-]+)")
_TO_FROM = LazyPattern(r"\b(?:switched|switch|moved|move|migrated|migrate|changed|change) to ([\w.+#-]+) from ([\w.+#-]+)")
_REPLACED_WITH = LazyPattern(r"\breplaced? ([\w.+#-]+) with ([\w.+#-]+)")
_JA_FROM_TO = LazyPattern(r"([a-z0-9][\w.+#-]*)から([a-z0-9][\w.+#-]*)(?:に|へ)")
_JA_SWITCH = ("移行", "変更", "切り替え", "切替", "変え", "乗り換え", "移っ")
_REJECT_WORDS = ("instead of", "rather than", "no longer use", "no longer uses", "stop using", "stopped using",
                 "never use", "never", "don't use", "do not use", "not", "away from", "avoid")
_REJECT_BEFORE = LazyPattern(r"\b(?:" + "|".join(_REJECT_WORDS) + r") ([\w.+#-]+(?: [\w.+#-]+)?)")
_JA_REJECT_MARKERS = ("ではなく", "じゃなく", "の代わりに", "をやめ", "はやめ", "を使わない", "は使わない", "を使用しない",
                      "は使用しない")
_JA_REJECT = LazyPattern(r"([a-z0-9][\w.+#-]*|[ァ-ヶー]+)(?:" + "|".join(_JA_REJECT_MARKERS) + ")")


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


def _has_ja(text: str) -> bool:
    if text.isascii():  # one C-level check; a save compares against every memory in the index
        return False
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)


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


_ARTICLES = {"the", "a", "an"}
# What a subject is when a new name for it replaces the old: a role, a name or an address of
# one thing. Other subjects ("The backend is Django" / "... is Python", "The server is Ubuntu" /
# "... is AWS") can be named by what they are built with or run on, and both stay true.
_IDENTITY_HEADS = {"lead", "owner", "manager", "maintainer", "contact", "reviewer", "approver", "admin",
                   "assignee", "branch", "name", "url", "domain", "host", "hostname", "email", "channel",
                   "endpoint", "address", "region", "bucket", "account", "registry", "org", "organization",
                   "namespace", "handle", "username", "alias", "codename"}


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


_INDEFINITE = {"a", "an", "one", "another", "some", "any"}


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
