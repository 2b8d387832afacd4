"""The word tables contradiction detection reads: option categories, endorsing and rejecting cues,
scope, polarity, "now" and ceasing words, in English and Japanese."""

from __future__ import annotations

import re

from kioku.infra.lazyre import LazyPattern


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


_ARTICLES = {"the", "a", "an"}


# What a subject is when a new name for it replaces the old: a role, a name or an address of
# one thing. Other subjects ("The backend is Django" / "... is Python", "The server is Ubuntu" /
# "... is AWS") can be named by what they are built with or run on, and both stay true.
_IDENTITY_HEADS = {"lead", "owner", "manager", "maintainer", "contact", "reviewer", "approver", "admin",
                   "assignee", "branch", "name", "url", "domain", "host", "hostname", "email", "channel",
                   "endpoint", "address", "region", "bucket", "account", "registry", "org", "organization",
                   "namespace", "handle", "username", "alias", "codename"}


_INDEFINITE = {"a", "an", "one", "another", "some", "any"}
