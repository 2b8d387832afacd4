"""Tokenizer for lexical retrieval, English and Japanese (stdlib only).

Contract: ``tokenize(text) -> list[str]``; the same function is applied to documents and
queries, so its output only has to be consistent, not linguistically perfect.

- Text is NFKC-normalised (full-width ASCII → ASCII, half-width kana → kana) and lower-cased.
- Latin/digit runs become words; English stopwords are dropped; a light suffix stemmer
  (plural / -ing / -ed / -ly, conservative) folds inflections ("dogs" → "dog",
  "painting" → "paint") because LoCoMo-style questions rarely use the exact inflection
  of the answer turn.
- Japanese has no spaces: each run of Han / Hiragana / Katakana characters becomes its
  overlapping character bigrams (a one-character run stays a unigram). Bigrams made only
  of common hiragana function sequences (です, ます, した, ...) are dropped like stopwords.
  A morphological analyser would be a new runtime dependency; bigrams give recall on
  compound nouns without one and need no dictionary.

``word_tokens`` is the plain baseline (lower-cased ``\\w+`` words minus English stopwords,
no stemming) used by the benchmark's reference BM25 row.
"""

from __future__ import annotations

import unicodedata

from kioku.infra.lazyre import LazyPattern

# A compact English stopword list (the classic Lucene/Snowball-style closed-class words).
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into
    is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only
    or other ought our ours ourselves out over own same shan't she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while
    who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves s t d ll m re ve
    """.split()
)

# Hiragana-only bigrams that are inflection / particle glue in almost every sentence.
JAPANESE_STOP_BIGRAMS: frozenset[str] = frozenset(
    """
    です ます まし した して ない てい いる いま する され れた ある った だっ でし ませ せん
    のは のが のを には では とは から まで ので のに けど こと もの よう ため これ それ あれ
    この その あの くだ ださ さい でき きる ょう しょ
    """.split()
)

_WORD = LazyPattern(r"[^\W_]+(?:['’][^\W_]+)*")
# ASCII text (most prompts) is split without a regex: every byte that cannot be part of a
# word becomes a space. The every-prompt hook tokenizes the prompt, and ``re`` costs it
# several milliseconds to import. ``_ascii_words`` gives exactly what ``_WORD`` finds there.
_ASCII_WORD_BYTES = bytes(c if chr(c).isalnum() or chr(c) == "'" else 32 for c in range(256))
# Han (incl. ext. A, compat), Hiragana, Katakana (incl. prolonged sound mark), iteration marks.
_CJK_CHAR = r"\u3005\u3006\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Compiled on the first non-ASCII text: their wide character classes take milliseconds to
# compile, which the hooks would pay on every ASCII prompt.
_CJK_SPLIT = LazyPattern(rf"([{_CJK_CHAR}]+)")
_CJK_RUN = LazyPattern(rf"^[{_CJK_CHAR}]+$")


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def stem(word: str) -> str:
    """Very light English suffix folding; leaves short words and non-ASCII words alone."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and len(word) > 5:
        base = word[:-3]
        if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
            base = base[:-1]  # running → run
        return base
    if word.endswith("ed") and len(word) > 4 and not word.endswith("eed"):
        base = word[:-2]
        if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
            base = base[:-1]  # stopped → stop
        return base
    if word.endswith("ly") and len(word) > 5:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _ascii_words(text: str) -> list[str]:
    """``_WORD.findall(text)`` for ASCII ``text``: runs of letters and digits, joined by single
    apostrophes that have a letter or digit on both sides."""
    out: list[str] = []
    for chunk in text.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split():
        if "'" not in chunk:
            out.append(chunk)
            continue
        run: list[str] = []
        for piece in chunk.split("'"):
            if piece:
                run.append(piece)
            elif run:
                out.append("'".join(run))
                run = []
        if run:
            out.append("'".join(run))
    return out


def cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    grams = [run[i : i + 2] for i in range(len(run) - 1)]
    return [g for g in grams if g not in JAPANESE_STOP_BIGRAMS]


def tokenize(text: str, *, stemming: bool = True, stopwords: frozenset[str] = ENGLISH_STOPWORDS) -> list[str]:
    """Lexical tokens of ``text`` (English words, Japanese character bigrams)."""
    if not text:
        return []
    out: list[str] = []
    normal = normalize(text)
    ascii_only = normal.isascii()
    for part in [normal] if ascii_only else _CJK_SPLIT.split(normal):
        if not part:
            continue
        if not ascii_only and _CJK_RUN.match(part):
            out.extend(cjk_bigrams(part))
            continue
        for word in (_ascii_words(part) if ascii_only else _WORD.findall(part)):
            word = word.replace("’", "'")
            if word in stopwords:
                continue
            if "'" in word:  # "caroline's" → "caroline"
                word = word.split("'", 1)[0]
                if not word or word in stopwords:
                    continue
            out.append(stem(word) if stemming else word)
    return out


def without_lone_kana(tokens: list[str]) -> list[str]:
    """``tokens`` less the lone hiragana a mixed text leaves between other words ("CIは？",
    "pytestは -x"): a particle on its own names nothing, yet as a query term it weighed as much
    as the word it follows."""
    return [t for t in tokens if not (len(t) == 1 and "\u3041" <= t <= "\u309f")]


_BASELINE_WORD = LazyPattern(r"\w+")


_COMMON_WORDS: str | None = None  # the file's text, one token a line, "\n" before the first


def is_common_token(token: str) -> bool:
    """True for a token that says little about a topic on its own: a token of the 5,000 most
    frequent English words (``common_words.txt``, made by ``scripts/make_common_words.py``), a
    number, or a Japanese bigram holding a hiragana (grammar and inflection: して, を使, 使う).

    The hooks ask about a few tokens a prompt: a substring test on the file's 40 KB of text
    costs microseconds each, where building a set of its 5,440 lines cost about 2 ms."""
    global _COMMON_WORDS
    if len(token) == 2 and any("\u3041" <= c <= "\u309f" for c in token):
        return True
    if not token or "\n" in token:
        return False
    if token.isdigit():
        return True  # "3 buttons" and "retry at most 3 times" share a number, not a topic
    if _COMMON_WORDS is None:
        import os

        path = os.path.join(os.path.dirname(__file__), "common_words.txt")
        try:
            with open(path, encoding="utf-8") as handle:
                _COMMON_WORDS = "\n" + handle.read()
        except OSError:
            _COMMON_WORDS = ""
    return f"\n{token}\n" in _COMMON_WORDS


def word_tokens(text: str) -> list[str]:
    """Baseline tokens: lower-cased ``\\w+`` words minus English stopwords (no stemming)."""
    return [w for w in _BASELINE_WORD.findall(text.lower()) if w not in ENGLISH_STOPWORDS]


_QUESTION_START = frozenset("what which who whom whose where when why how do does did is are can could should".split())
_FRAME_VERBS = frozenset(("use", "using", "used"))  # stems of use / uses / used / using


def query_terms(query: str, tokens: list[str]) -> list[str]:
    """The tokens of ``query`` that say what is asked: in a question, the frame verb "use"
    ("which package manager do we use?", "what do we use for browser tests") is dropped, so a
    memory is not found for holding "use" and the words that name the thing weigh fully."""
    if not tokens or not any(t in _FRAME_VERBS for t in tokens):
        return tokens
    words = query.lower().split()
    if not (query.rstrip().endswith(("?", "？")) or (words and words[0] in _QUESTION_START)):
        return tokens
    kept = [t for t in tokens if t not in _FRAME_VERBS]
    return kept or tokens


# Abbreviations developers write for the same word ("DB" / "database"), and katakana loanwords
# for English words: a query naming one also matches a memory that wrote the other.
_ABBREVIATIONS = (
    ("db", "database"), ("k8s", "kubernetes"), ("repo", "repository"), ("config", "configuration"),
    ("env", "environment"), ("auth", "authentication"), ("prod", "production"), ("dev", "development"),
    ("docs", "documentation"), ("dir", "directory"), ("js", "javascript"), ("ts", "typescript"),
    ("app", "application"), ("lib", "library"), ("pkg", "package"), ("msg", "message"),
    ("spec", "specification"), ("perf", "performance"), ("admin", "administrator"),
    ("info", "information"), ("impl", "implementation"), ("postgres", "postgresql"),
)
_KATAKANA = (
    ("データベース", "database"), ("リポジトリ", "repository"), ("ドキュメント", "documentation"),
    ("デプロイ", "deploy"), ("サーバー", "server"), ("サーバ", "server"), ("テスト", "test"),
    ("ブランチ", "branch"), ("コミット", "commit"), ("ライブラリ", "library"), ("パッケージ", "package"),
    ("アプリ", "application"), ("ディレクトリ", "directory"), ("メッセージ", "message"),
    ("パフォーマンス", "performance"), ("エラー", "error"), ("ログ", "log"), ("キャッシュ", "cache"),
)
# Kinds of developer tool and the tools of each kind: a question that names the kind ("which
# package manager do we use", "what database") also matches a memory that names one of its tools
# ("We use pnpm"). One way only: a question about Postgres is not about every database.
# Tool names that are also everyday words or names ("make", "black", "cursor", "fish", "Jasmine")
# are left out: a question about formatters must not find "the dark theme uses black". A name of
# several words (written with "+": "github+actions") counts only where a memory holds all of them.
_TEST_TOOLS = "pytest jest vitest mocha rspec minitest junit unittest playwright cypress"
_EDITORS = "vim neovim nvim emacs vscode vs+code visual+studio+code intellij pycharm webstorm goland zed"
_KINDS = (
    ("package manager", "npm pnpm yarn pip pipenv poetry uv conda cargo bundler maven gradle homebrew nuget"),
    ("database", "postgres postgresql mysql mariadb sqlite mongodb mongo redis dynamodb cassandra mssql supabase"
                 " cockroachdb clickhouse elasticsearch"),
    ("test runner", _TEST_TOOLS), ("test framework", _TEST_TOOLS), ("test library", _TEST_TOOLS),
    ("ci", "jenkins circleci travis buildkite teamcity github+actions gitlab+ci"),
    ("linter", "eslint ruff flake8 pylint rubocop clippy golangci stylelint shellcheck"),
    ("formatter", "prettier ruff gofmt rustfmt isort yapf autopep8 biome"),
    ("editor", _EDITORS), ("ide", _EDITORS),
    ("type checker", "mypy pyright tsc pytype"),
    ("build tool", "cmake bazel gradle maven webpack vite esbuild"),
    ("cloud", "aws gcp azure vercel netlify heroku cloudflare digitalocean"),
    ("shell", "bash zsh powershell"),
    ("orm", "sqlalchemy prisma sequelize typeorm activerecord"),
    ("message queue", "kafka rabbitmq sqs celery"),
    ("monitoring", "datadog sentry prometheus grafana newrelic"),
    ("version control", "git mercurial svn"),
)
_KATAKANA_KINDS = (
    ("パッケージマネージャー", "package manager"), ("パッケージマネージャ", "package manager"),
    ("テストランナー", "test runner"), ("テストフレームワーク", "test framework"), ("リンター", "linter"),
    ("フォーマッター", "formatter"), ("エディター", "editor"), ("エディタ", "editor"), ("クラウド", "cloud"),
    ("シェル", "shell"), ("型チェッカー", "type checker"), ("ビルドツール", "build tool"),
)
_SYNONYMS: dict[str, tuple[str, ...]] | None = None
_KIND_TABLE: dict[tuple[str, ...], tuple[str, ...]] | None = None


def _synonym_table() -> dict[str, tuple[str, ...]]:
    global _SYNONYMS
    if _SYNONYMS is None:
        table: dict[str, set[str]] = {}
        for short, full in _ABBREVIATIONS:
            a, b = tokenize(short)[0], tokenize(full)[0]
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
        # an English word also stands for its katakana loanword, written as the phrase of its
        # bigrams (a memory holds the word when it holds every bigram): "deploy" finds デプロイ.
        # Not a loanword of one bigram: ログ is also in プログラム, ブログ and カタログ
        for word, english in _KATAKANA:
            base = tokenize(english)
            if len(base) == 1 and len(word) > 2:
                table.setdefault(base[0], set()).add(" ".join(dict.fromkeys(cjk_bigrams(word))))
        # an abbreviation stands for whatever its full word does: "DB" also finds データベース
        for term, alts in table.items():
            alts.update(far for alt in list(alts) for far in table.get(alt, ()) if far != term)
        _SYNONYMS = {term: tuple(sorted(alts)) for term, alts in table.items()}
    return _SYNONYMS


def _kind_table() -> dict[tuple[str, ...], tuple[str, ...]]:
    """The kinds' query terms (tokenized) -> the tools' tokens, longest kinds first. A kind of one
    word is also named by that word's abbreviation ("which DB" as "which database")."""
    global _KIND_TABLE
    if _KIND_TABLE is None:
        table: dict[tuple[str, ...], set[str]] = {}
        for kind, tools in _KINDS:
            names = [" ".join(tokenize(name.replace("+", " "))) for name in tools.split()]
            table.setdefault(tuple(tokenize(kind)), set()).update(name for name in names if name)
        for short, full in _ABBREVIATIONS:
            if (tuple(tokenize(full)) in table) and tuple(tokenize(short)) not in table:
                table[tuple(tokenize(short))] = table[tuple(tokenize(full))]
        _KIND_TABLE = {k: tuple(sorted(v)) for k, v in sorted(table.items(), key=lambda kv: -len(kv[0]))}
    return _KIND_TABLE


def synonyms(token: str) -> tuple[str, ...]:
    """What stands for a token of :func:`tokenize` (an abbreviation, its full word, a katakana
    loanword's bigrams): "postgre" (the token of "postgres") → "postgresql", "db" → "database"
    and データベース's bigrams."""
    return _synonym_table().get(token, ())


def _held(alternative: str, present: set[str]) -> bool:
    """True when the query itself holds ``alternative`` (a token, or every word of a phrase)."""
    return alternative in present or (" " in alternative and all(w in present for w in alternative.split()))


def english_words(tokens: list[str]) -> list[str]:
    """The tokens that are English words: ASCII with a letter ("ci", "s3"; not "16" or "3")."""
    return [t for t in tokens if t.isascii() and any(ch.isalpha() for ch in t)]


def holds_an_english_word(query: str, tokens: list[str], text_tokens: set[str]) -> bool:
    """True when ``text_tokens`` hold one of the query's English words or something that stands
    for it (:func:`synonym_groups`: "DBは何？" and データベース)."""
    english = english_words(tokens)
    if any(t in text_tokens for t in english):
        return True
    return any(_held(alt, text_tokens) for _terms, alts in synonym_groups(query, english) for alt in alts)


def synonym_groups(query: str, tokens: list[str]) -> list[tuple[list[str], tuple[str, ...]]]:
    """The query's terms that another word can stand for: ``(terms, alternatives)``, where a
    memory holding any alternative counts as holding ``terms`` ("database" ↔ "db"; the bigrams of
    データベース ↔ "database", "db"; "package manager" → "pnpm", "pip", ...). Terms in no group
    are scored alone."""
    table = _synonym_table()
    groups: list[tuple[list[str], tuple[str, ...]]] = []
    present = set(tokens)
    used: set[str] = set()
    for kind, tools in _kind_table().items():
        if all(t in present and t not in used for t in kind):
            alts = tuple(dict.fromkeys(a for a in (*tools, *(table.get(kind[0], ()) if len(kind) == 1 else ()))
                                       if a not in present))
            if alts:
                groups.append((list(kind), alts))
                used.update(kind)
    for term in dict.fromkeys(tokens):
        alts = tuple(a for a in table.get(term, ()) if not _held(a, present))
        if alts and term not in used:
            groups.append(([term], alts))
            used.add(term)
    if not query.isascii():
        normal = normalize(query)
        kinds = _kind_table()
        pairs = [*_KATAKANA, *_KATAKANA_KINDS]
        for word, english in sorted(pairs, key=lambda pair: -len(pair[0])):  # サーバー before サーバ
            if word in normal:
                terms = [t for t in dict.fromkeys(cjk_bigrams(word)) if t in present and t not in used]
                used.update(terms)
                base = tuple(tokenize(english))
                alts = tuple(dict.fromkeys(a for a in (*(base if len(base) == 1 else ()), *kinds.get(base, ()),
                                                       *(table.get(base[0], ()) if len(base) == 1 else ()))
                                           if not _held(a, present)))
                if terms and alts:
                    groups.append((terms, alts))
    return groups
