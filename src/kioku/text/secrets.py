"""The single secrets choke point: every write and every injection goes through here.

Contract (stdlib only, precompiled patterns, no I/O):

- ``find_secrets(text) -> list[SecretFinding]``: non-overlapping findings (kind, start, end),
  sorted by position. A finding never carries the secret itself, so it is safe to log.
- ``contains_secret(text) -> bool``
- ``redact(text) -> str``: each finding replaced by ``[REDACTED:<kind>]``. For ``key = value``
  style findings only the value is replaced, so the reader still sees what was there.
- ``ensure_storable(text, what="memory")``: raises ``SecretRejected`` naming the kind(s);
  the message never contains any part of the secret.

Two layers of detection:

1. Specific formats (provider key prefixes, PEM blocks, JWTs, credentials in URLs,
   ``password=...`` style assignments in English and Japanese, card numbers with Luhn).
2. A generic high-entropy detector for long base64-ish tokens. Guards keep ordinary text
   quiet: the token must mix upper case, lower case and digits, be fragmented like random
   data (not CamelCase words), and have high Shannon entropy. Deliberate choices:
   * pure hex strings (git SHAs, sha256 digests, UUIDs) are NOT flagged by the generic layer,
     because hashes in prose are common and harmless; hex keys are still caught in a
     key-ish context (``api_key=...``, ``token: ...``) or by their provider prefix;
   * tokens inside a URL without credentials, names made of word-like pieces (file paths,
     "all-MiniLM-L6-v2", "2026-03-29-Issues-Triage"), SSH public keys, PEM certificates /
     public keys and data: URIs are not flagged; credentials in URLs have their own rules;
   * obvious placeholders are not secrets: ``$VAR``, ``${{ secrets.X }}``, ``<your-key>``,
     ``os.environ[...]``, ``***``, and literal placeholder words (``user:password@``).

Speed: each rule runs only where a cheap ``str.find`` anchor occurs, and token-shaped rules
only inside whitespace-free chunks of >= 20 characters, so an ordinary 2 KB prompt costs a
few dozen substring searches; quantifiers are bounded so hostile input stays linear.
"""

from __future__ import annotations

from kioku.infra import lazyre
from kioku.infra.lazyre import LazyPattern as _Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing/dataclasses (and re, until a pattern is used) stay out of the hook start-up path
    import re
    from typing import Callable

from kioku.infra.errors import SecretRejected

__all__ = [
    "SecretFinding",
    "find_secrets",
    "contains_secret",
    "redact",
    "ensure_storable",
    "KIND_LABELS",
]


class SecretFinding:
    """Where a secret is: ``text[start:end]``. Deliberately holds no copy of the value.
    Immutable, compares by value (a frozen dataclass without importing ``dataclasses``)."""

    __slots__ = ("kind", "start", "end")
    kind: str
    start: int
    end: int

    def __init__(self, kind: str, start: int, end: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("SecretFinding is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is SecretFinding and (self.kind, self.start, self.end) == (
            other.kind, other.start, other.end)

    def __hash__(self) -> int:
        return hash((self.kind, self.start, self.end))

    def __repr__(self) -> str:
        return f"SecretFinding(kind={self.kind!r}, start={self.start}, end={self.end})"

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, "a secret")


# Human wording for messages ("it looks like it contains <label>").
KIND_LABELS: dict[str, str] = {
    "anthropic_api_key": "an Anthropic API key",
    "openai_api_key": "an OpenAI API key",
    "aws_access_key": "an AWS access key",
    "aws_secret_key": "an AWS secret access key",
    "github_token": "a GitHub token",
    "gitlab_token": "a GitLab token",
    "slack_token": "a Slack token",
    "slack_webhook": "a Slack webhook URL",
    "stripe_key": "a Stripe secret key",
    "google_api_key": "a Google API key",
    "gcp_service_account": "a Google Cloud service-account key",
    "private_key": "a private key",
    "jwt": "a JSON Web Token",
    "connection_string": "a connection string with credentials",
    "url_credentials": "a URL with a username and password",
    "password": "a password",
    "secret_assignment": "a secret value (key/token assignment)",
    "bearer_token": "a bearer token",
    "npm_token": "an npm token",
    "pypi_token": "a PyPI token",
    "twilio_key": "a Twilio key",
    "sendgrid_key": "a SendGrid API key",
    "azure_key": "an Azure storage/service key",
    "provider_token": "an API token",
    "credit_card": "a credit card number",
    "high_entropy": "a high-entropy string (likely a key or token)",
}

class _Rule:
    """One detector. The regex is tried only where an anchor occurs (found with ``str.find``
    on the lower-cased text, which is ~100x cheaper than a regex scan), and the match must
    start there (``back`` lets it start earlier, over those characters and at most ``reach`` of
    them: URL schemes, a value before the words naming it).
    ``group`` names the secret part (empty = whole match; several = first that matched).
    Token-shaped secrets (no whitespace, >= 20 chars) are looked for only inside long
    whitespace-delimited chunks (``in_chunks``), which ordinary prose rarely has.
    A plain class, not a dataclass: ~35 rules are built at import time on the hook path."""

    __slots__ = ("kind", "anchors", "pattern", "group", "check", "back", "reach", "in_chunks")

    def __init__(self, kind: str, anchors: tuple[str, ...], pattern: _Lazy,
                 group: tuple[str, ...] = (), check: Callable[[re.Match[str]], bool] | None = None,
                 back: str | _AnyCharBut = "", in_chunks: bool = True, reach: int = 40) -> None:
        self.kind, self.anchors, self.pattern, self.group = kind, anchors, pattern, group
        self.check, self.back, self.reach, self.in_chunks = check, back, reach, in_chunks


_PLACEHOLDER_RE = _Lazy(
    r"""^(?:
        \$\{?[A-Za-z_][A-Za-z0-9_]*\}?        # $VAR / ${VAR}
      | \{\{.*\}\} | \{[^}]*\} | <[^>]*>       # {{x}} {x} <x>
      | %[sd(] .* | \*+ | x{3,} | X{3,} | \.{3,} | …
      | (?:os\.)?environ.* | process\.env.* | getenv.* | env\(.* | secrets\..*
      | none | null | nil | true | false | undefined | empty | required | optional
      | str | string | bytes | int | bool | secretstr | any | optional\[.*
      | redacted | \[redacted.* | changeme_placeholder | your[_-]?\w* | my[_-]?\w*[_-]here
      | changeit                                # the JDK's published default keystore password
      | example | dummy | placeholder | todo | tbd | n/a | ""|''
      | password | passwd | pass | pwd | pw | secret | token | user | username | foo | bar | baz
    )$""",
    lazyre.IGNORECASE | lazyre.VERBOSE,
)


def _value_ok(value: str) -> bool:
    """False for obvious placeholders / references that are not secrets themselves."""
    v = value.strip("\"'`")
    if not v or _PLACEHOLDER_RE.match(v):
        return False
    if "(" in v or v.startswith(("$", "@", "&", "*", "/", "~/", "./", "%")):
        return False
    return "[REDACTED:" not in v  # "admin/[REDACTED:password]": what redaction left


def _classes(v: str) -> int:
    """How many of lower case, upper case, digits and other characters ``v`` mixes."""
    return sum((any(c.islower() for c in v), any(c.isupper() for c in v),
                any(c.isdigit() for c in v), any(not c.isalnum() for c in v)))


def _looks_random(v: str) -> bool:
    """A value mixing letters with digits/symbols or cases, i.e. not a plain dictionary word."""
    return _classes(v) >= 2 and not (v.isalpha() and v.istitle())


def _check_password(m: re.Match[str]) -> bool:
    value = m.group("val")
    if not _value_ok(value) or _HASH_SCHEME.match(value.strip("\"'`")):
        return False  # "password: bcrypt", 「パスワードをPBKDF2に変更」: how it is stored
    if "op" in m.re.groupindex and m.group("op") in (":=", "=>") \
            and (not _named_password(value.strip("\"'`").rstrip(")];,"), "password") or "|" in value):
        return False  # walrus / := and arrow functions assign expressions ("(pw := self.password)",
        # "password => password.length"); a PHP array's "=>" a rule list ('required|min:8')
    if m.group(0)[:3].lower() == "p/w" and not _named_password(value.strip("\"'`"), "password"):
        return False  # "p/w: 0.75", "P/W = 12.5kg": a price or power to weight ratio
    if value.startswith("<") and ">" in m.string[m.start("val"):m.start("val") + 64].split("\n", 1)[0]:
        return False  # "<your password>": a placeholder with words in it
    if not value.isascii():  # a hiragana word is the password itself; kanji and katakana describe
        bare = value.strip("\"'`")
        return len(bare) >= 2 and _ja_value_ok(bare) and all(_is_hiragana(c) for c in bare)
    if _DESCRIBED_COMPOUND.match(value.strip("\"'`")):
        return False  # "the password is bcrypt-hashed", "env-provided": how it is kept
    if len(value.strip("\"'`")) < 4:
        return False
    bare = value.strip("\"'`")
    if "op" in m.re.groupindex and m.group(0)[:10].lower() == "passphrase" \
            and m.group("op") in (":", "=") and bare.isalpha():
        return bare.lower() not in _PROSE_WORDS  # a passphrase of plain words after ":" or "="
    if "op" in m.re.groupindex and m.group("op").lower() in ("are", "were"):
        # after a plural ("passwords are …") one word is nearly always a description ("required",
        # "hashed", "PBKDF2", "case-sensitive"): only a value mixing three kinds of character counts
        return len(bare) >= 8 and _classes(bare) >= 3 and not _NAMED_VALUE.match(bare)
    if "op" in m.re.groupindex and m.group("op") in ("is", "was") and not m.group("q") \
            and not _looks_random(bare):
        # One plain word after "password is" that ends the clause is the password itself;
        # "the password is correct" and "the password is stored in 1Password" are prose
        # (a describing word, or more prose follows).
        return _plain_word_value(bare, m.string, m.end("val"))
    # "the password is stored in 1Password": a lowercase word followed by more prose.
    rest = m.string[m.end("val"):m.end("val") + 3]
    if not m.group("q") and bare.isalpha() and bare.islower() and _PROSE_NEXT.match(rest):
        return False
    if bare.isalpha() and bare.lower() in _PROSE_WORDS:
        return False
    return True


_NEXT_ASSIGNMENT = _Lazy(r"[ \t]+[A-Za-z_][\w.\-]*=")  # another assignment after the value: "user=bob"
# a line break ends a clause as the end of the text does (redact_lines scans many lines joined)
_CLAUSE_END = _Lazy(r"[^\S\n]*(?:$|\n|[.,;!?)(\]」。、（]|[^\S\n](?:and|but|so|for|on|in|at|from)\b)")
_DESCRIBING_SUFFIXES = ("ed", "ing", "able", "ible", "ful", "less", "ive", "ous", "ent", "ant", "ly")


def _plain_word_value(word: str, text: str, end: int) -> bool:
    """True when ``word`` (after "password is") reads as the password itself."""
    low = word.lower().rstrip(".")
    if not low or low in _PROSE_WORDS or low in _DESCRIBING_WORDS or not _CLAUSE_END.match(text, end):
        return False
    if word.isalpha() and len(low) > 5 and low.endswith(_DESCRIBING_SUFFIXES):
        return False  # "expired", "missing", "unusable", "insecure" describe a password
    return len(low) >= 4


# Words that follow パスワードは as a description, not as the password itself.
_JA_DESCRIBING = frozenset(
    "なし ない ありません いらない 不要 必要 必須 秘密 ひみつ 非公開 不明 未設定 同じ 共通 別 空 これ それ あれ どれ "
    "なに なん 何 変更 同様 任意 自由 ランダム 別々 バラバラ".split())


# Values after "pass:" / "pw:" that name something: a version, a flag, a path or fraction, a
# percentage, an issue reference, an identifier or a word with a number ("Python3", "node18").
_NAMED_VALUE = _Lazy(r"^(?:v?\d[\d.]*\w*|[-+].*|[A-Za-z]*#\d+|\d+(?:\.\d+)?%|\d+/\d+"
                     r"|(?:\.{0,2}/|~/)?[\w.-]+(?:/[\w.-]+)+/?|/[\w./-]*"
                     r"|[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+|[A-Za-z][a-z]*\d{1,3}|1password)$", lazyre.IGNORECASE)


# A word with a number ("admin123"): a password after "login: user /", though _NAMED_VALUE takes it for a name.
_WORD_NUMBER = _Lazy(r"^[A-Za-z][a-z]*\d{1,3}$")
_OWN_WORD_NUMBER = _Lazy(r"^[A-Za-z]+\d{1,3}$")  # after "pw" or "pass", in any case ("ADMIN123")
# ... except hashes, encodings, browser or runtime builds and steps of work ("the pw is base64 encoded",
# "pw: firefox118", "CI pass: build42")
_NAMED_WORD_NUMBER = _Lazy(r"^(?:sha|md|base|utf|ucs|crc|aes|rsa|argon|pbkdf|blake|ed|x|latin|iso|win|cp"
                           r"|firefox|chrome|chromium|webkit|safari|edge|opera|node|python|py|java|jdk|go|ruby"
                           r"|php|ubuntu|debian|alpine|windows|macos|ios|android|level|phase|step|stage|part"
                           r"|round|case|test|version|build|job|run|attempt|try|batch|shard|sprint|week|day|room"
                           r"|gate|rc|beta|alpha)\d{1,3}$", lazyre.IGNORECASE)


# A command's own options up to a password option: stops at the next command, a pipe, a
# semicolon, "&&" or the end of the line (a line ended by a backslash goes on).
_OWN_OPTIONS = r"(?:(?!\s(?:then|and)\b)(?:[^\n|;&]|\\\r?\n)){0,200}?"
# Between a password option and its value: spaces, "=", or a line ended by "\" (a long command
# split over lines puts the value on the next one)
_OPTION_GAP = r"(?:[ \t]*\\\r?\n[ \t]*|[ \t]+|=)"
_LDAP_TOOL = r"ldap(?:search|add|modify|delete|whoami|passwd)\b"  # the OpenLDAP clients that take -w
_7Z_TOOL = r"7z[arz]?\b"  # 7z, 7za, 7zr, 7zz
# The value of a password option, quoted or not; a full stop, comma, colon or closing bracket
# after it is not part of it ("redis-cli -a X, then ...", "`redis-cli -a X`").
_OPTION_VALUE_AFTER_QUOTE = r"(?P<val>[^\s\"'`]{4,128}?)(?P=q)(?=[.,;:)\]}]*(?:[\s\"'`]|$))"
_OPTION_VALUE = r"(?P<q>[\"']?)" + _OPTION_VALUE_AFTER_QUOTE
# Plain words that follow an option's name in prose about it ("redis-cli -a option is deprecated",
# "zip -P since it shows in ps", "htpasswd -b writes the hash"), beside _PROSE_WORDS and
# _DESCRIBING_WORDS: never read as the option's value.
_OPTION_PROSE = frozenset(
    "option options flag flags switch argument arguments parameter value values mode since because "
    "when while where which only just then than also instead here there this that does doesn "
    "will would can could should must may might cannot isn wasn shows show prints print reads "
    "writes takes expects leaks exposes puts sets asks prompts works fails is are was were be "
    "deprecated insecure unsafe visible plain text directly without among requires accepts needs "
    "defaults encrypts encryption".split())
# A word of prose after a plain word: the word was prose too ("redis-cli -a requires the
# password", "zip -P encrypts with ZipCrypto"; a Japanese particle is _JA_DESCRIPTION_AFTER's).
_PROSE_AFTER = _Lazy(r"[ \t]+(?:the|a|an|to|with|at|among|in|on|of|for|from|by|is|are|was|were|be|and|or|"
                     r"but|as|it|its|this|that|when|if|so|only|inline)\b", lazyre.IGNORECASE)
_CJK_CHAR = _Lazy(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
_NUMBER_OR_VERSION = _Lazy(r"^v?\d[\d.]*$")  # "mongosh -p 27017" names a port; "--pass v1.2.3" a version
# htpasswd's options (-C and -r take a number), its user name (may be "" with -n), and the end of
# its command: a pipe, a redirect, a comment, a closing quote or bracket, or punctuation and prose
_HTPASSWD_OPTIONS = r"(?P<opts>(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d+)?)+)"
_HTPASSWD_USER = r"(?:\"\"|''|[^\s\-]\S*)[ \t]+"
_COMMAND_END = r"(?=[.,;:]+(?:[ \t]|$)|[ \t]*(?:[|;&)\n#`\"'<>]|\d[<>]|$))"
_KEY_FILE = _Lazy(r"\.(?:pem|crt|cer|der|pfx|p12|key|jks|txt)$", lazyre.IGNORECASE)


def _cli_password(m: re.Match[str]) -> bool:
    """A value given to a tool's password option: not a placeholder, a variable (also ``env:NAME``),
    another option, a number or version, a certificate file (``az login --service-principal -p
    cert.pem``), Japanese text, nor a plain word of prose about the option."""
    value = m.group("val")
    if value.isalpha() and (value.islower() or value.istitle()):
        word = value.lower()
        if word in _OPTION_PROSE or word in _PROSE_WORDS or word in _DESCRIBING_WORDS \
                or _PROSE_AFTER.match(m.string, m.end()) or _JA_DESCRIPTION_AFTER.match(m.string, m.end()):
            return False
    return (_value_ok(value) and not value.startswith(("-", "env:", "file:", "fd:"))
            and not _KEY_FILE.search(value) and not _NUMBER_OR_VERSION.match(value)
            and not _CJK_CHAR.search(value))


_FLAG_WORD_NUMBER = _Lazy(r"^[A-Za-z]+\d{1,4}$")  # "hunter2024" after --pass


def _flag_password(m: re.Match[str]) -> bool:
    """After a ``--pass``, ``--passwd`` or ``--password`` option of an unknown tool: a word with a
    number that names nothing (not ``step2``) or a value mixing three kinds of character; not a
    count (``--pass 2``)."""
    value = m.group("val")
    return _cli_password(m) and ((bool(_FLAG_WORD_NUMBER.match(value)) and not _NAMED_WORD_NUMBER.match(value))
                                 or _classes(value) >= 3)


def _htpasswd_password(m: re.Match[str], with_file: bool) -> bool:
    """htpasswd takes the password on the command line only with -b; with -n it names no file."""
    flags = "".join(word for word in m.group("opts").replace("-", "").split() if not word.isdigit())
    return "b" in flags and ("n" not in flags) == with_file and _cli_password(m)


# The characters a value standing before "is my password" may hold (walked back over from the anchor).
_VALUE_CHARS = "".join(chr(c) for c in range(0x21, 0x7f) if chr(c) not in "`")
_PRONOUNS = frozenset("it its his hers theirs there here who whose mine yours ours this that what which".split())
# A word after one of these is a noun, not a value ("the first line is the password").
_DETERMINER_BEFORE = _Lazy(r"(?i:\b(?:the|a|an|this|these|those|my|your|our|their|its|his|her|every|each|"
                           r"first|last|next|same|other)[ \t]+)$")


def _value_first_password(m: re.Match[str]) -> bool:
    """"<value> is my password": the value, unless the phrase goes on to name something else ("…
    is my password manager", "bcrypt is the password hash": the clause must end after it), or the
    value is a pronoun, a word of prose or a noun after "the" ("That is the password", "Mine is
    the password", "the first line is the password")."""
    value = (m.group("val") or m.group("bare")).rstrip(".,;:")
    word = value.lower()
    if word.startswith("redacted") or _DETERMINER_BEFORE.search(m.string, max(0, m.start() - 12), m.start()):
        return False
    end = m.end() + (m.string[m.end():m.end() + 1] in "\"'”’`)]")  # a quote or bracket closing the sentence
    if not _CLAUSE_END.match(m.string, end) or not _value_ok(value) or word in _PRONOUNS \
            or word in _PROSE_WORDS or word in _DESCRIBING_WORDS or word in _OPTION_PROSE:
        return False
    return len(value) >= 4 and not _CJK_CHAR.search(value)


class _AnyCharBut:
    """The characters a ``_Rule`` may walk back over: any but those given."""

    __slots__ = ("excluded",)

    def __init__(self, excluded: str) -> None:
        self.excluded = frozenset(excluded)

    def walk_start(self, text: str, i: int, reach: int) -> int:
        """Where a walk back from ``i`` over these characters stops, at most ``reach`` back."""
        floor = max(0, i - reach)
        return max([floor] + [text.rfind(c, floor, i) + 1 for c in self.excluded])


# a value, が/は and a qualifier ("Wi-Fi", "本番DB", "管理画面") before "のパスワード", within a clause
# (not at ! or ?: the rules see NFKC text, where ！ and ？ are ASCII, and a value may hold them)
_BEFORE_QUALIFIER = _AnyCharBut("\n\r。、")
# where such a clause ends: after です / だ (not だけ, だと) and よ / ね, a full stop, a closing
# bracket or the end of the line
_JA_CLAUSE_END = _Lazy(r"(?:です|でした|だ)?(?:よ|ね)?(?:[。.!?」』)]|[ \t]*(?:\r?\n|$))")


def _ja_qualified_password(m: re.Match[str]) -> bool:
    """「<value>が<words>のパスワード」: the value, when the clause ends after the word."""
    return (_JA_CLAUSE_END.match(m.string, m.end()) is not None
            and _named_password(m.group("val"), m.group("word")))


def _named_password(value: str, word: str) -> bool:
    """A value a sentence names as the password (in Japanese before the word, 「<value>がパスワード」;
    in the other languages after it, "Passwort: <value>"): six characters or more, letters
    with digits or symbols (before 暗証番号 also 4 to 8 digits), not a named build or version
    ("windows11", "v2.1"), a placeholder, a variable or field name (``DB_PASSWORD``, ``api_v1``,
    ``db.pass``, ``DB_PASSWORD=``), a file (``.pgpass``, ``secret.txt``) nor a reference to where
    the password is kept (``op://…``, ``ssm:/…``)."""
    if value.isdigit():
        return word == "暗証番号" and 4 <= len(value) <= 8
    if _HASH_SCHEME.match(value) or _QUANTITY.match(value) or _SETTING.match(value):
        return False  # "argon2id", "12chars+", "min_length=12": how it is kept or checked
    return (len(value) >= 6 and _value_ok(value) and any(c.isalpha() for c in value)
            and any(not c.isalpha() for c in value)
            and not _NAMED_WORD_NUMBER.match(value) and not _NUMBER_OR_VERSION.match(value)
            and not (_NAMED_VALUE.match(value) and not _OWN_WORD_NUMBER.match(value))
            and not _CONSTANT_NAME.match(value) and not _KEY_FILE.search(value)
            and not _CJK_CHAR.search(value) and not value.startswith((".", "$", "-", "<"))
            and ":/" not in value and not value.endswith((":", "=")))


_CHANGED_BEFORE = _Lazy(r"(?i:\b(?:(?:re)?set(?:s|ting)?|chang(?:e|es|ed|ing)|updat(?:e|es|ed|ing)|rotat(?:e|es|ed|ing))\b)"
                         r"[ \t]+(?:[\w\-]+[ \t]+){0,3}$")


def _check_named_elsewhere(m: re.Match[str]) -> bool:
    """A value named after an arrow, a dash, a qualified label or a change: it must look made up
    (``_named_password``) and end the clause, except a value of three kinds of character after
    "to" ("changed to <value> last week"). "password to <value>" also needs a change named
    before or after the word ("reset the password to …", "the password was changed to …"), or
    "I sent the password to bob2024" would count."""
    value = m.group("val")
    if not _named_password(value, "password"):
        return False
    if _CLAUSE_END.match(m.string, m.end()) is None and not (
            m.group("to") is not None and len(value) >= 8 and _classes(value) >= 3 and not _TYPE_NAME.match(value)):
        return False  # "changed to Lp9@rT4mZx last week": three kinds of character are a password whatever follows
    to = m.group("to")
    if to is None:
        return True
    if any(verb in to.lower() for verb in ("set", "chang", "updat", "rotat")):
        return True
    line_start = m.string.rfind("\n", 0, m.start()) + 1
    return _CHANGED_BEFORE.search(m.string, max(line_start, m.start() - 48), m.start()) is not None


# A recovery code as services print them: with a digit ("12345678", "a1b2-c3d4"), or capitals in
# dash-joined groups ("ABCD-EFGH-IJKL"); not a word ("printed", "see vault", "then").
_RECOVERY_CODE = (r"(?:(?=[A-Za-z0-9\-]*[0-9])[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10})*"
                  r"|[A-Z0-9]{4,10}(?:-[A-Z0-9]{4,10})+)")
_CONSTANT_NAME = _Lazy(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")  # DB_PASSWORD, MYSQL_ROOT_PASSWORD
# A type or class name ("KeyData2", "HexKey32", "String"), as a type annotation names after a colon
_TYPE_NAME = _Lazy(r"^[A-Z][a-z]+(?:[A-Z][a-z0-9]*)*\d*$")
# Hashing schemes, which a note names where a password's storage is discussed ("updated the
# password to argon2id", 「パスワードをPBKDF2に変更」)
_HASH_SCHEME = _Lazy(r"^(?:argon2|bcrypt|scrypt|yescrypt|pbkdf2|sha-?\d|md5|blake\d?|ntlm)", lazyre.IGNORECASE)
# A setting, a lower-case name and "=" ("min_length=12", "color=white")
_SETTING = _Lazy(r"^[a-z][a-z_]*=")
# A size or quantity ("12chars+", "8+chars", "16bytes")
_QUANTITY = _Lazy(r"^\d+\+?[a-z]+\+?$", lazyre.IGNORECASE)
# the word for password in Chinese, Korean, German, French, Spanish, Portuguese, Russian, Dutch,
# Polish, Turkish and Vietnamese (lower-cased, as the anchors are looked for; plain words, also
# joined into the rule's pattern as they are)
_OTHER_LANGUAGE_LABELS = ("密码", "密碼", "비밀번호", "패스워드", "passwort", "kennwort", "mot de passe", "contraseña",
                          "senha", "пароль", "wachtwoord", "hasło", "şifre", "mật khẩu")


def _made_up_letters(value: str) -> bool:
    """Three or more letter groups of at most four letters ("abcd1234efgh5678ijkl"), not names
    with versions ("ubuntu2204python311", "gpt4turbo20240409")."""
    runs = _LETTER_RUNS.findall(value)
    return len(runs) >= 3 and sum(map(len, runs)) / len(runs) <= 4


def _check_short_key_password(m: re.Match[str]) -> bool:
    """"pw:" and "pass" are also everyday words ("tests pass: 12/14", "pass: --no-verify"),
    so the value must look made up: three kinds of character, or two with "=" (an assignment).

    After "pw", "pass" or "my pass" / "our pass" (with ":", "is", or a quoted "="), a word with a
    number that ends the clause is the password, unless it names an algorithm, an encoding, a
    browser or runtime build or a step of work ("pass: step2", "CI pass: build42"). After "pw is"
    one plain word that ends the clause is too if it has six letters or is quoted, unless it
    describes ("the pw is required"; "the pw is fixed" is a status); "my pass is ready" is prose."""
    value = m.group("val").strip("\"'`").rstrip(".!,")
    if not _value_ok(value):
        return False
    short_key = m.group("key").lower() == "pw"
    if short_key and m.group("op").lower() in ("is", "was") and value.isalpha() \
            and (len(value) >= 6 or m.group("q")):  # "the pw is fixed": a short word is a status
        return _plain_word_value(value, m.string, m.end())
    if len(value) < 6:
        return False
    glued = m.group("op") == "=" and m.start("val") == m.end("key") + 1  # "pass=" glued to its value, as in a .env line
    if _OWN_WORD_NUMBER.match(value) and not _NAMED_WORD_NUMBER.match(value) \
            and (_CLAUSE_END.match(m.string, m.end()) or (glued and _NEXT_ASSIGNMENT.match(m.string, m.end()))) \
            and (m.group("op") != "=" or m.group("q") or glued):
        return True  # but "pw = offset16", unquoted and spaced, assigns a variable in code
    if m.group("op") == "=" and _mixed_with_digit_groups(value, 10):
        return True  # "pass=" before a value like Hunter2_Prod_2024 or Tr0ub4dor-Horse-77: made up
    if _NAMED_VALUE.match(value) and not _made_up_segments(value):
        return False  # "tests pass: Release-2024-Q1", "pass: Ubuntu-22-04", "pass: node-18-alpine"
    classes = _classes(value)
    return classes >= 3 or (classes == 2 and m.group("op") == "=" and not value.isalpha())


_PORT_MAPPING = _Lazy(r"^\d+(?::\d+)+(?:/(?:tcp|udp))?$")


def _no_operator_password(value: str) -> bool:
    """"password hunter2hunter2": with no "is" or ":" between, only a made-up value counts
    (eight or more letters with digits or symbols), never a word, a path, a file or a version
    ("password manager", "password reset", "password v2.1.0")."""
    value = value.rstrip(".!,")
    if value.endswith(":") and value.rstrip(":").replace("-", "").isalpha():
        return False  # "password manager: Bitwarden", "password requirements:": a label, its value after it
    if not _value_ok(value) or value.isalpha() or value.startswith(("-", ".", "v")) or "/" in value \
            or "." in value or "\\" in value or len(value) < 8 \
            or (("_" in value or "-" in value) and _IDENT_VALUE.match(value)) \
            or _DESCRIBED_COMPOUND.match(value) or _NAMED_SUFFIX.search(value):
        return False  # reset_token, min_length, reset-link, sha256-hashed: names, not values
    head = value.rstrip("0123456789")
    digits = value[len(head):]
    if digits and (head in _FEATURE_NOUNS or (head in _PASSWORD_COMPOUNDS and len(digits) == 4
                                              and digits[:2] in ("19", "20"))):
        return False  # "password policy2", "the password reset2024 flow": a versioned name
    return any(c.isalpha() for c in value) and any(not c.isalpha() for c in value)


# Words that make a compound noun with "password" ("password reset", "password policy"). With a
# year after them the word names a version of the feature ("reset2024"); the feature nouns are no
# plausible password even with other digits ("policy2"), while "change123" or "manager1" can be.
_FEATURE_NOUNS = frozenset(
    "policy policies rules rotation expiry recovery strength hashing migration flow page form field prompt".split())
_PASSWORD_COMPOUNDS = _FEATURE_NOUNS | frozenset("reset resets change changes manager hash update".split())


_NAMED_SUFFIX = _Lazy(r"-(?:hashed|salted|encrypted|protected|based|only|link|field|reset|policy|length)$", lazyre.IGNORECASE)


def _ja_short_password(value: str) -> bool:
    """After パス (short for パスワード, but also "path" and "passed"): letters with digits or symbols,
    never a path, a file name or a named thing ("python311", "windows11")."""
    value = value.strip("\"'`")
    if not _value_ok(value) or "/" in value or "\\" in value or "." in value or _NAMED_VALUE.match(value) \
            or len(value) < 8:
        return False
    return any(c.isalpha() for c in value) and any(not c.isalpha() for c in value)


def _quoted_phrase(value: str) -> bool:
    """A quoted passphrase of three to eight plain lowercase words ("purple monkey dishwasher"),
    not a quoted remark or message ("see the vault", "too weak", "Invalid credentials")."""
    words = value.split()
    if not (_value_ok(value) and 3 <= len(words) <= 8 and all(w.isalpha() for w in words)):
        return False
    if words[0][:1].isupper() and all(w.islower() for w in words[1:]):
        return False  # shaped like a sentence or a message: "Must contain digits"
    low = [w.lower() for w in words]
    if any(w in _PROSE_WORDS for w in low):
        return False  # "see the vault"
    return len(words) > 3 or not any(w in _DESCRIBING_WORDS for w in low)


# Words of a note about a passphrase ("at least twelve characters", "git credential helper"),
# not of a passphrase (beside _PROSE_WORDS, which it is checked against too).
_PASSPHRASE_NOTE_WORDS = frozenset(
    "at least most min max minimum maximum characters chars letters digits words word length long "
    "see readme section docs doc wiki vault helper credential credentials agent forwarding "
    "git ssh gpg pgp key keys keychain diceware generated random ask please tomorrow today later soon pending "
    "unknown someone team".split())


_PASSPHRASE_LINKING_WORDS = frozenset("not only per via by on every since but very now tbd are be".split())


def _japanese_passphrase(value: str) -> bool:
    """Plain words after パスフレーズは: the passphrase itself, unless a word says what it is about
    ("パスフレーズは at least twelve characters です", "… git credential helper です") or how it
    is ("… optional but recommended です", "… unique per user です")."""
    if not _plain_passphrase(value):
        return False
    words = [w.lower() for w in value.split()]
    if any(len(w) > 5 and w.endswith(_DESCRIBING_SUFFIXES) for w in words):
        return False
    return len(words) > 3 or not any(w in _DESCRIBING_WORDS for w in words)


def _security_answer(value: str) -> bool:
    """The answer to a security question, one word or a few ("Fluffy", "New York", "Fluffy the
    cat"), unless it starts like a note ("see vault", "required") or is a name in code
    ("user_input", "stored_in_db")."""
    words = value.split()
    if not words or len(words) > 5 or not _value_ok(words[0]) or not any(c.isalnum() for c in value):
        return False
    first = words[0].lower()
    if first in _PROSE_WORDS or first in _PASSPHRASE_NOTE_WORDS or first in _PASSPHRASE_LINKING_WORDS \
            or ("_" in value and _IDENT_VALUE.match(value)):
        return False
    # one describing word is a status ("required", "new"); before other words it is a name ("New York")
    return len(words) > 1 or (first not in _DESCRIBING_WORDS and first not in _OPTION_PROSE)


def _plain_passphrase(value: str) -> bool:
    """Three to eight plain words after "passphrase:": the passphrase itself, unless a word is one
    of prose or says what the note is about ("at least twelve characters", "see the wiki"). Unlike
    after パスフレーズは, a word ending like a description ("tangent", "frozen") counts: English
    passphrases are made of such words, and leaving them would keep all but the first."""
    words = [w.lower() for w in value.split()]
    return (_value_ok(value) and 3 <= len(words) <= 8
            and not any(w in _PROSE_WORDS or w in _PASSPHRASE_NOTE_WORDS or w in _PASSPHRASE_LINKING_WORDS
                        for w in words))


# Words that are never among a wallet's seed words but fill every sentence.
_SEED_STOP_WORDS = frozenset("the a an of to in for my and or is it on at by with from be are was "
                             "we i he she our your their not no yes".split())


def _seed_phrase(value: str) -> bool:
    """12, 15, 18, 21 or 24 lowercase words of 3 to 8 letters, none a word every sentence has
    (a mnemonic for remembering something is a sentence: "please excuse my dear aunt sally")."""
    words = value.split()
    return len(words) in (12, 15, 18, 21, 24) and not any(w in _SEED_STOP_WORDS for w in words)


def _is_hiragana(c: str) -> bool:
    return "ぁ" <= c <= "ん"


def _is_kana(c: str) -> bool:
    return "ぁ" <= c <= "ん" or "ァ" <= c <= "ヶ" or c == "ー"


# A Japanese description follows an ASCII word: a particle and more text ("Vault にある",
# "bcrypt でハッシュする", "1Password の保管庫"); "hunter2 で、…" is the copula, the value itself.
_JA_DESCRIPTION_AFTER = _Lazy(r"[^\S\n]*(?:の|に|を|が|へ|と|から|より|で(?!す|し|[、,。\s]|$))")


def _ja_described(m: re.Match[str]) -> bool:
    return bool(_JA_DESCRIPTION_AFTER.match(m.string, m.end("val")))


def _check_ja_unmarked(m: re.Match[str]) -> bool:
    """A value after パスワード in brackets, after an arrow, a qualifier and a colon, or が: made up
    (``_named_password``). With nothing between but spaces, also three kinds of character and not
    a word with a number: 「パスワードpolicy2」 and 「パスワード v2」 name things."""
    value = m.group("qval") or m.group("val")
    if not _named_password(value, "パスワード"):
        return False
    if m.group("qval") is not None or m.group("sep").strip():
        return True
    return _classes(value) >= 3 and not _OWN_WORD_NUMBER.match(value)


_JA_SET_TO = _Lazy(r"[^\S\n]*に(?:設定|変更|更新|再設定|リセット|した|する|なった|なる)")


def _ja_set_to(m: re.Match[str]) -> bool:
    """「パスワードは<value>に変更した」: a made-up value the password was set to, not a place
    (「パスワードはVaultに設定済み」 says where it is kept)."""
    return bool(_JA_SET_TO.match(m.string, m.end("val"))) and _named_password(m.group("val"), "パスワード")


_DESCRIBED_COMPOUND = _Lazy(r"^[a-z]+(?:-[a-z]+)*-(?:[a-z]+(?:ed|ing)|based|only|side|wide|free)$")


def _ja_value_ok(value: str) -> bool:
    return _value_ok(value) and value not in _JA_DESCRIBING and not set(value) <= set("*＊・.…xX?？")


def _check_ja_plain_password(m: re.Match[str]) -> bool:
    """An unquoted Japanese value without kanji: a kana word followed by digits ("さくら123"),
    or a kana word of three or more before a copula ("さくらです"). Kanji or a leading number
    reads as a description ("不要です", "12文字以上です", "8けたです" stay prose)."""
    value = m.group("val")
    if not _ja_value_ok(value) or value.isascii() or value[0].isdigit():
        return False  # ASCII values have their own rule
    if not all(c.isascii() or _is_kana(c) for c in value):
        return False
    if any(c.isdigit() for c in value):
        return True
    if not all(_is_hiragana(c) for c in value):
        return False  # a katakana word is a loanword describing it ("ローテーション", "ハッシュ")
    if m.group("op") != "は":
        return True  # after a colon the word is the value itself
    return len(value) >= 3 and m.group("end") in ("です", "でした", "だ")


_IDENT_VALUE = _Lazy(r"^[a-z]+[0-9]*(?:[_\-.:/][a-z]+[0-9]*)*$|^[A-Z][a-z]+(?:[A-Z][a-z]+)+$")


# "key"/"auth" glued to a preceding word count only after these (apikey, ACCESS_KEY, ...).
_KEY_PREFIX_OK = _Lazy(r"(?:api|access|private|secret|session|signing|encryption|master"
                            r"|client|deploy|license|app|service|[^a-z])[_\-.]?$")


_DESCRIBING_SUFFIX = _Lazy(r"-(?:based|only|side|wide|free|enabled|compatible|style|like|aware|signed)$",
                          lazyre.IGNORECASE)


def _made_up_segments(value: str) -> bool:
    """Parts between "-", "_", "." or "/" that no name is made of: two or more that glue letters
    and digits in mixed case or back and forth ("Zx9-Qp7-Lm3", "s3cr3t-Tr0ub4dor"), or one part
    gluing letters to digits beside a run of capitals ("hunter2-XYZ-998"). Names have words,
    numbers and versions as their parts ("Region-2024-01", "Python3_11-Linux-2", "x86_64-v3",
    "i18n-ja-v2")."""
    parts = [p for p in _PIECE_SPLIT_RE.split(value) if p]
    glued = [p for p in parts if any(c.isalpha() for c in p) and any(c.isdigit() for c in p)]
    strong = sum(1 for p in glued if (any(c.islower() for c in p) and any(c.isupper() for c in p))
                 or sum(a.isdigit() != b.isdigit() for a, b in zip(p, p[1:])) >= 3)
    capitals = any(len(p) >= 2 and p.isalpha() and p.isupper() for p in parts)
    return strong >= 2 or (bool(glued) and capitals and any(c.islower() for c in value))


def _mixed_with_digit_groups(value: str, min_len: int) -> bool:
    """Lower and upper case letters with at least two groups of digits, at least ``min_len``
    characters, and nothing but "-" or "_" between them: made up, not a name ("OAuth2Provider"
    has one digit group, "v1-deps-3" one case)."""
    core = value.replace("-", "").replace("_", "")
    return (len(value) >= min_len and value.isascii() and core.isalnum() and _classes(core) == 3
            and len(_DIGIT_RUNS.findall(value)) >= 2)


def _check_token(m: re.Match[str]) -> bool:
    s = m.start()
    if "op" in m.re.groupindex and s and m.string[s - 1].isalpha() \
            and m.group(0)[:1].lower() in "ka" \
            and not _KEY_PREFIX_OK.search(m.string[max(0, s - 12):s].lower()):
        return False  # "monkey: ...", "oauth: ..." are not key assignments
    value = m.group("val").strip("\"'`")
    if _DESCRIBING_SUFFIX.search(value):
        return False  # "OAuth2-based", "JWT-only": what kind of auth, not a key
    if "op" in m.re.groupindex and m.group("op") == ":" and _TYPE_NAME.match(value):
        return False  # "key_data: KeyData2": a type annotation
    if "op" in m.re.groupindex and m.group("op") in ("is", "was") and len(value) < 12 \
            and not (len(value) >= 8 and value.isalnum() and value.isascii() and _classes(value) == 3
                     and len(_DIGIT_RUNS.findall(value)) >= 2) \
            and not (len(value) >= 8 and _made_up_segments(value)):  # "s3cr3tRedis", "Zx9-Qp7-Lm3", not "v1-deps-3"
        return False  # prose ("the key is short"): only clearly random values count
    if len(value) >= 16 and _HEX_RE.match(value) and any(c.isdigit() for c in value) \
            and any(c not in "-" for c in value):
        return True  # a hex key in a key context, whatever its letter runs look like
    if len(value) >= 16 and value.isascii() and value.isalnum() and len(_DIGIT_RUNS.findall(value)) >= 2 \
            and _made_up_letters(value):
        return True  # a run-on mix of letters and digit groups after a key word: a token
    if len(value) >= 30 and "~" in value and value.isascii() and any(c.isdigit() for c in value) \
            and not value.startswith(("~", "http")) and "/" not in value:
        return True  # Azure AD client secrets carry a "~" in a 40-character run
    op = m.group("op") if "op" in m.re.groupindex else ""
    if _value_ok(value) and _mixed_with_digit_groups(value, 10) and (
            op in ("=", ":=", "=>", "") or _made_up_segments(value)):
        return True  # a value like Hunter2_Prod_2024 after "secret=", or hunter2-XYZ-998 after "token:"; not "key is Region-2024-01"
    if not _value_ok(value) or len(value) < 8 or _IDENT_VALUE.match(value) \
            or _avg_run(value) >= 3.0:
        return False  # oauth2_provider, created_at, hookSpecificOutput.context are names
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return (has_digit and has_alpha) or (mixed and len(value) >= 16)


def _check_url_creds(m: re.Match[str]) -> bool:
    # "[REDACTED:...]" keeps a redacted URL from being flagged again
    return _value_ok(m.group("pw")) and "REDACTED" not in m.group("val")


def _check_sk(m: re.Match[str]) -> bool:
    v = m.group(0)
    return any(c.isdigit() for c in v) and any(c.isalpha() for c in v[3:])


_PROSE_WORDS = frozenset(
    "the from in is a an of to and or for with stored kept saved managed rotated set used "
    "required needed missing wrong incorrect reset changed expired empty same different "
    "field column manager policy prompt protected hashed hash reset".split()
)

_DESCRIBING_WORDS = frozenset(
    "correct right wrong invalid valid weak strong long short too not also still now here there "
    "secure unsafe safe old new case sensitive unknown known blank correct fine good bad "
    "mandatory optional required ok okay this that these those what which mine yours ours "
    "different same simple complex random temporary permanent default generated "
    "hidden static global lowercase uppercase numeric alphanumeric plaintext obsolete identical broken "
    "truthy falsy elsewhere playwright "
    # words that say how a secret is kept or hashed (or that there is none), not the secret itself
    "unset none whatever bcrypt argon2 argon2id scrypt pbkdf2 sha256 sha512 md5 sso ldap saml oauth".split()
)

_I = lazyre.IGNORECASE

# also with a suffix naming the form it is kept in (Rails' SECRET_KEY_BASE, KEY_DATA, TOKEN_VALUE)
_TOKEN_KEYS = r"(?i:(?:secret|token|credentials?|auth|key)s?(?:_(?:base|value|data|string|b64|hex|raw))?\b)"
_ASSIGN_VALUE = r"[\"']?\s*(?P<op>=>|:=|=|:|\bis\b|\bwas\b)\s*(?P<q>[\"'`]?)(?P<val>[^\s\"'`,;]{1,512})(?P=q)"
# "API key for the weather service is …": what the key is for may stand between it and "is"
_TOKEN_ASSIGN_RE = _Lazy(_TOKEN_KEYS + r"(?:\s+(?:for|of|on|to)(?:\s+[\w.\-]+){1,4}?(?=\s+(?:is|was)\b))?"
                         + _ASSIGN_VALUE)

_RULES: list[_Rule] = [
    # --- private keys (PEM, also with literal "\n" escapes as inside service-account JSON)
    _Rule("private_key", ("-----begin",), _Lazy(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|[A-Za-z0-9+/=\s\\:\-]{0,20000})"),  # unterminated: take the key material that follows
          in_chunks=False),
    _Rule("gcp_service_account", ("private_key_id",),
          _Lazy(r'private_key_id"\s*:\s*"(?P<val>[0-9a-f]{32,})"'), ("val",), in_chunks=False),
    # --- provider-prefixed tokens
    _Rule("anthropic_api_key", ("sk-ant-",), _Lazy(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{20,}")),
    _Rule("openai_api_key", ("sk-",), _Lazy(
        r"(?<![A-Za-z0-9])sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"), check=_check_sk),
    _Rule("aws_access_key", ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa",
                             "anpa", "anva", "apka"),
          _Lazy(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])")),
    _Rule("aws_secret_key", ("aws",), _Lazy(
        r"(?i:aws)[A-Za-z_\- ]{0,20}(?i:secret)[A-Za-z_\- ]{0,20}[\"']?\s*(?:=|:|=>)\s*"
        r"[\"']?(?P<val>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), ("val",), in_chunks=False),
    _Rule("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), _Lazy(
        r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}(?![A-Za-z0-9])|github_pat_[A-Za-z0-9_]{22,})")),
    _Rule("gitlab_token", ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-"),
          _Lazy(r"(?<![A-Za-z0-9])gl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_\-]{20,}")),
    _Rule("slack_webhook", ("https://hooks.slack.com",), _Lazy(
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{10,}")),
    _Rule("slack_token", ("xox",), _Lazy(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9\-]{10,}")),
    _Rule("stripe_key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"), _Lazy(
        r"(?<![A-Za-z0-9])(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})")),
    _Rule("google_api_key", ("aiza",), _Lazy(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}")),
    _Rule("jwt", ("eyj",), _Lazy(
        r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    _Rule("npm_token", ("npm_",), _Lazy(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    _Rule("pypi_token", ("pypi-",), _Lazy(r"(?<![A-Za-z0-9])pypi-[A-Za-z0-9_\-]{40,}")),
    _Rule("sendgrid_key", ("sg.",), _Lazy(r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{30,}")),
    _Rule("twilio_key", (), _Lazy(r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9])")),  # no anchor: scan
    _Rule("azure_key", ("accountkey=", "sharedaccesskey=", "sharedaccesssignature=", "sig="),
          _Lazy(r"(?i:AccountKey|SharedAccessKey|SharedAccessSignature|sig)="
                     r"(?P<val>[A-Za-z0-9+/%]{20,}={0,2})"), ("val",)),
    _Rule("provider_token", ("hf_", "shpat_", "shpca_", "shppa_", "shpss_", "dop_v1_", "dapi",
                             "hvs.", "dp.st.", "age-secret-key-", "key-", "sq0", "glc_",
                             "lin_api_", "xapp-", "gocspx-", "ya29.", "pmak-", "sbp_", "sb_secret_", "nfp_",
                             "atatt3", "nrak-", "rubygems_", "pat", "gsk_", "r8_", "glsa_", "sntrys_", "sntryu_",
                             "pscale_", "figd_", "ntn_", "tskey-", "fo1_", "dckr_pat_", "hrku-", "ops_ey"), _Lazy(
        r"(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{30,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}"
        r"|dapi[a-f0-9]{32}|hvs\.[A-Za-z0-9_\-]{24,}|dp\.st\.[A-Za-z0-9_\-]{20,}"
        r"|AGE-SECRET-KEY-1[0-9A-Z]{50,}|key-[0-9a-f]{32}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}"
        r"|glc_[A-Za-z0-9+/]{32,}={0,2}|lin_api_[A-Za-z0-9]{32,}|xapp-\d-[A-Za-z0-9\-]{20,}"
        r"|GOCSPX-[A-Za-z0-9_\-]{24,}|ya29\.[A-Za-z0-9_\-]{20,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}"
        # Supabase access token and secret key, Netlify personal access token
        r"|sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,}|nfp_[A-Za-z0-9]{36}"
        # Atlassian, New Relic, RubyGems, Airtable, Groq, Replicate, Grafana service account, Sentry,
        # PlanetScale, Figma, Notion, Tailscale, Fly.io, Docker Hub, Heroku, 1Password service account
        r"|ATATT3[A-Za-z0-9_\-=]{100,}|NRAK-[A-Z0-9]{27}|rubygems_[a-f0-9]{48}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"
        r"|gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}"
        r"|sntrys_[A-Za-z0-9+/=_\-]{40,}|sntryu_[a-f0-9]{64}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,}"
        r"|figd_[A-Za-z0-9_\-]{40,}|ntn_[A-Za-z0-9]{40,}|tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"
        r"|fo1_[A-Za-z0-9_\-]{40,}|dckr_pat_[A-Za-z0-9_\-]{27,}|HRKU-[A-Za-z0-9_\-]{40,}"
        r"|ops_eyJ[A-Za-z0-9+/=_\-]{100,})")),
    _Rule("provider_token", ("-us",), _Lazy(r"(?<![0-9a-f])[0-9a-f]{32}-us\d{1,2}\b"),
          back="0123456789abcdef"),  # Mailchimp API key
    _Rule("provider_token", (), _Lazy(  # Discord bot token: base64(user id).timestamp.hmac
        r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b")),
    _Rule("provider_token", (":aa",), _Lazy(r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_\-]{33}"),
          back="0123456789"),  # Telegram bot token
    # --- credentials in URLs (the match starts at the scheme, found by scanning back)
    _Rule("connection_string", ("://",), _Lazy(
        r"(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver"
        r"|oracle|couchdb|neo4j(?:\+s)?|clickhouse|cockroachdb|ldaps?|ftp|sftp|smtps?)"
        r"://(?P<val>[^\s:/@'\"<>]{0,256}:(?P<pw>[^\s@'\"<>]{1,256}))@"), ("val",), _check_url_creds,
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-", in_chunks=False),
    _Rule("url_credentials", ("://",), _Lazy(
        r"[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://(?P<val>[^\s:/@'\"<>]{1,256}:(?P<pw>[^\s@/'\"<>]{1,256}))@[^\s]"),
          ("val",), _check_url_creds,
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-", in_chunks=False),
    _Rule("bearer_token", ("authorization", "bearer"), _Lazy(
        r"(?i:authorization\b[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|apikey)\s+)"
        r"(?P<val>[A-Za-z0-9._~+/\-]{8,}=*)"
        r"|(?i:bearer\s+)(?P<val2>[A-Za-z0-9._~+/\-]{20,}=*)"), ("val", "val2"), in_chunks=False),
    # --- key = value assignments
    _Rule("password", ("passphrase",), _Lazy(  # "ssh passphrase: <three to eight plain words>", unquoted
        r"(?i:passphrase)[ \t]*(?::|=|\b(?i:is)\b)[ \t]*(?P<q>)(?P<val>[A-Za-z]{2,24}(?:[ \t]+[A-Za-z]{2,24}){2,7})"
        r"(?=[ \t]*(?:$|\n|[.,;!?)]))"), ("val",), lambda m: _plain_passphrase(m.group("val")), in_chunks=False),
    _Rule("password", ("seed phrase", "recovery phrase", "mnemonic", "seed words", "wallet seed"), _Lazy(
        # a wallet's 12 to 24 seed words
        r"(?i:(?:secret[ \t]+)?recovery[ \t]+phrase|seed[ \t]+(?:phrase|words)|wallet[ \t]+seed|mnemonic(?:[ \t]+phrase)?)"
        r"(?:[ \t]+[\w\-]+){0,4}?[ \t]*(?::|=|\b(?i:is)\b)[ \t]*[\"'`]?(?P<val>[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23})"
        r"(?![ \t]*[a-z])"),
          ("val",), lambda m: _seed_phrase(m.group("val")), in_chunks=False),
    _Rule("secret_assignment", ("secret=", "secret:", "secret_key=", "secret_key:"), _Lazy(
        # an environment variable named for a secret (JWT_SECRET=, SESSION_SECRET=): a made-up value
        r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*_(?i:secret(?:_key)?)[ \t]*[=:][ \t]*(?P<q>[\"']?)"
        r"(?P<val>[^\s\"'`,;()]{6,256})(?P=q)(?![(.\w])"), ("val",),
          lambda m: _named_password(m.group("val"), "password") and not m.group("val").startswith(("self.", "!"))
          and not any(c in "[]{}<>" for c in m.group("val")) and m.group("val")[-1] not in "?!"
          and not _TYPE_NAME.match(m.group("val")),
          back="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_", reach=60, in_chunks=False),
    _Rule("secret_assignment", ("cookie:",), _Lazy(  # a session cookie in a Cookie / Set-Cookie header
        # the cookie's name ends like a session's or a token's (connect.sid, user_session, XSRF-TOKEN),
        # at most 20 cookies before it
        r"(?i:(?:set-)?cookie):[ \t]*(?:[^\s=;]{1,64}=[^\s;]{0,512};[ \t]*){0,20}?"
        r"[\w.\-]{0,40}?(?i:sess(?:ion)?(?:_?id)?|sid|auth(?:_?token)?|access_?token|refresh_?token|token|jwt"
        r"|remember_[\w\-]+)=(?P<q>\"?)(?P<val>[^\s\";,\\]{12,512})(?P=q)"), ("val",),
          lambda m: _classes(m.group("val")) >= 2 and any(c.isdigit() for c in m.group("val")), in_chunks=False),
    _Rule("password", ("password", "passwd", "passphrase", "pwd", "pass", "pw", "sshpass", "p/w"), _Lazy(
        # also a name ending in _pass / _pw (DB_PASS, MY_PW), sshpass's own variable, SSHPASS=, and P/W
        r"(?i:(?:(?:password|passwd|passphrase|passcode)(?P<plural>s)?|(?<![a-z])(?:pwd|p/w)|(?<=[a-z0-9][_\-])(?:pass|pw)"
        r"|(?<![a-z])sshpass(?==))\b)"
        r"(?:\s+(?:for|of|on|to)(?:\s+[\w.\-]+){1,4}?(?=\s+(?:is|was|are|were)\b))?"  # "password for dev is"
        # "are"/"were" only after a plural: "the db passwords are …", not "1Password are …"
        r"[\"']?\s*(?P<op>=>|:=|=|:|\bis[ \t]*:|\bis\b|\bwas\b|(?(plural)\b(?i:are|were)\b|(?!)))\s*(?P<q>[\"'`]?)"
        r"(?P<val>[^\s\"'`,;]{1,512})(?P=q)"),
          ("val",), _check_password, in_chunks=False),
    _Rule("password", (" -u ", " --user ", " --user="), _Lazy(
        r" (?:-u|--user)[ =]['\"]?(?P<val>[^\s:'\"]+:(?P<pw>[^\s'\"]{3,}))"), ("val",), _check_url_creds,
          in_chunks=False),  # curl -u user:password
    _Rule("password", ("mysql",), _Lazy(
        r"mysql(?:dump|admin|sh)?\b[^\n]*?\s-p(?P<val>[^\s\-][^\s]{2,})"), ("val",),
          lambda m: _value_ok(m.group("val")), in_chunks=False),  # mysql -u root -pSecret
    _Rule("password", ("パスフレーズ",), _Lazy(  # plain words, quoted or not: "correct horse battery staple"
        r"パスフレーズ\s*(?:は|:|：|=|＝)\s*[「『\"“]?(?P<q>)(?P<val>[A-Za-z]{2,24}(?:[ \t]+[A-Za-z]{2,24}){2,7})"
        r"(?=[」』\"”]|[ \t]*(?:\n|です|でした|だ|で[、,\s]|ね|[。、,.（(]|$))"), ("val",),
          lambda m: _japanese_passphrase(m.group("val")), in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ", "合言葉"), _Lazy(
        r"(?:パスワード|暗証番号|パスフレーズ|合言葉)\s*(?P<jop>は|:|：|=|＝|を)\s*(?:[、,]\s*)?[「『\"']?"
        r"(?P<q>)(?P<val>[\x21-\x7e]{4,}?)(?=[」』\"'）)(（]|です|でした|だ|で[、,。\s]|で$|[。、,\s]|$"
        r"|に(?:設定|変更|更新|再設定|リセット|した|する|なった|なる))"),
          ("val",), lambda m: _check_password(m) and not (m.group("jop") == "は" and _ja_described(m)
                                                           and not _ja_set_to(m)),
          in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ"), _Lazy(
        # 「パスワード「<value>」」, 「パスワード→<value>」, 「パスワード <value>」, 「パスワード（本番）: <value>」,
        # 「パスワードが <value> になった」
        r"(?:パスワード|暗証番号|パスフレーズ)(?:[「『](?P<qval>[^」』\s]{6,64})[」』]"
        r"|(?P<sep>\s*(?:→|⇒|->)|[ \t]*\([^()\n]{1,20}\)[ \t]*[:=：＝]|[ \t]*が|[ \t]*)\s*[「『\"']?"
        r"(?P<val>[\x21-\x7e]{6,64}?)(?=[」』\"'）)(（]|です|でした|だ|で[、,。\s]|で$|[。、,\s]|$"
        r"|に(?:設定|変更|更新|再設定|リセット|した|する|なった|なる)))"),
          ("qval", "val"), _check_ja_unmarked, in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ", "合言葉"), _Lazy(  # a quoted value, any script
        r"(?:パスワード|暗証番号|パスフレーズ|合言葉)\s*(?:は|:|：|=|＝|を)\s*[「『\"]"
        r"(?P<val>[^」』\"\s]{2,64})[」』\"]"), ("val",), lambda m: _ja_value_ok(m.group("val")), in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ", "合言葉"), _Lazy(  # an unquoted kana value
        r"(?:パスワード|暗証番号|パスフレーズ|合言葉)\s*(?P<op>は|:|：|=|＝)\s*"
        r"(?P<val>[ぁ-んァ-ヶー一-龥々0-9A-Za-z]{2,32}?)(?P<end>です|でした|だ(?=[よね。、\s]|$)|(?=[。、\s]|$))"),
          ("val",), _check_ja_plain_password, in_chunks=False),
    _Rule("password", ("pw", "pass"), _Lazy(  # short key words ("pw:", "pass =") before a random-looking value
        r"(?<![A-Za-z0-9_\-])(?P<key>(?i:pw|pass))(?:(?<=[\"']pass)[\"']|(?<=[\"']pw)[\"'])?\s*"
        r"(?P<op>=>|=|:|：|\b(?i:is|was)\b|は[、,]?)\s*(?P<q>[\"'`]?)"
        r"(?P<val>[^\s\"'`,;]{4,512})(?P=q)"), ("val",),
          _check_short_key_password, in_chunks=False),
    _Rule("password", ("password", "passphrase", "passcode"), _Lazy(  # a quoted phrase: "purple monkey dishwasher"
        r"(?i:password|passphrase|passcode)\s*(?:=|:|\bis\b|\bwas\b)\s*(?P<q>[\"'`“])"
        r"(?P<val>[^\"'`”\n]{3,128}\s[^\"'`”\n]{1,128})[\"'`”]"), ("val",),
          lambda m: _quoted_phrase(m.group("val")), in_chunks=False),
    _Rule("password", ("password", "passwd"), _Lazy(  # no operator: "password hunter2hunter2"
        r"(?<![A-Za-z0-9_\-])(?i:password|passwd)[ \t]+(?P<q>)(?P<val>[^\s\"'`,;]{8,128})(?=[\s.,;)]|$)"), ("val",),
          lambda m: _no_operator_password(m.group("val")), in_chunks=False),
    _Rule("password", ("sshpass", "docker", "podman", "buildah", "helm", "oras", "nerdctl"), _Lazy(  # sshpass -p X, docker login -p X
        r"\b(?:sshpass|(?:docker|podman|buildah|helm(?:\s+registry)?|oras|nerdctl)\s+login)\b"
        r"(?:(?!\s(?:ssh|scp|rsync|sftp|then|and)\b|\s(?:docker|podman|helm|kubectl|nerdctl|buildah|oras)\s+(?!login)\w"
        r"|,)(?:[^\n|;&]|\\\r?\n)){0,200}?"  # its own options, not the next command's (a line ended by "\" goes on)
        r"\s(?:-p|--password)(?:\s+|=)(?P<q>[\"']?)(?P<val>[^\s\"']{4,128})(?P=q)"), ("val",),
          lambda m: _value_ok(m.group("val")) and not m.group("val").startswith("-")
          and not _PORT_MAPPING.match(m.group("val")), in_chunks=False),
    # Password options of command-line tools, within the tool's own options: redis-cli -a,
    # smbclient -U user%secret, lftp -u user,secret, az login -p, zip / unzip -P, ldapsearch -w,
    # sqlcmd -P, mongosh -p, 7z -p<secret>, keytool -storepass, gpg --passphrase, htpasswd -b.
    _Rule("password", ("redis-cli", "az login", "zip", "unzip", "ldap", "sqlcmd", "mongo"), _Lazy(
        r"(?<![\w.\-])(?:redis-cli\b" + _OWN_OPTIONS + r"[ \t](?:-a|--pass)"
        r"|az[ \t]+login\b" + _OWN_OPTIONS + r"[ \t](?:-p|--password)"
        r"|(?:zip|unzip)\b" + _OWN_OPTIONS + r"[ \t](?:-P|--password)"  # unzip -p writes to stdout
        "|" + _LDAP_TOOL + _OWN_OPTIONS + r"[ \t]-w"
        r"|sqlcmd\b" + _OWN_OPTIONS + r"[ \t]-P"
        r"|mongo(?:sh|dump|restore|import|export)?\b" + _OWN_OPTIONS + r"[ \t](?:-p|--password))"
        + _OPTION_GAP + _OPTION_VALUE), ("val",), _cli_password, in_chunks=False),
    _Rule("password", ("smbclient", "rpcclient", "smbget", "lftp"), _Lazy(  # also lftp -u bob,'secret'
        r"(?<![\w.\-])(?:smbclient|rpcclient|smbget|lftp)\b" + _OWN_OPTIONS +
        r"[ \t](?:-U|-u|--user(?:name)?)" + _OPTION_GAP + r"(?P<q>[\"']?)[^\s%,\"'`]+[%,]"
        r"(?P<inner>[\"']?)(?P<val>[^\s\"'`]{4,128}?)(?P=inner)(?P=q)(?=[.,;:)\]}]*(?:[\s\"'`]|$))"),
          ("val",), _cli_password, in_chunks=False),
    _Rule("password", ("7z",), _Lazy(  # 7z / 7za / 7zz a -pSecret x.7z (a bare -p asks for it)
        r"(?<![\w.\-])" + _7Z_TOOL + _OWN_OPTIONS + r"[ \t]-p" + _OPTION_VALUE), ("val",), _cli_password,
          in_chunks=False),
    # A password glued to its option, the option or the value quoted or not: 7z x "-pSecret",
    # ldapsearch -wSecret, sqlcmd -P"Secret" (getopt-style tools take the rest of the word); a
    # value of letters only is another option or a word ("-PassThru").
    _Rule("password", ("7z", "ldap", "sqlcmd"), _Lazy(
        r"(?<![\w.\-])(?:" + _7Z_TOOL + _OWN_OPTIONS + r"[ \t](?P<q>[\"'])-p"
        "|" + _LDAP_TOOL + _OWN_OPTIONS + r"[ \t](?P<lq>[\"']?)-w"
        r"|sqlcmd\b" + _OWN_OPTIONS + r"[ \t](?P<sq>[\"']?)-P)"
        r"(?P<iq>[\"']?)(?P<val>[^\s\"'`]{4,128}?)(?P=iq)(?:(?P=q)|(?P=lq)|(?P=sq))"
        r"(?=[.,;:)\]}]*(?:[\s\"'`]|$))"), ("val",),
          lambda m: _cli_password(m) and not m.group("val").isalpha(),  # not -PassThru, -Property, -wrapped
          in_chunks=False),
    _Rule("password", ("-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass",
                       "-destkeypass", "--passphrase"), _Lazy(  # keytool / jarsigner, gpg; not -storepass:env
        r"(?:-(?:src|dest)?(?:store|key)pass|--passphrase)" + _OPTION_GAP + _OPTION_VALUE), ("val",), _cli_password,
          in_chunks=False),
    _Rule("password", ("--pass",), _Lazy(  # any tool's --pass / --passwd / --password: a value that looks made up
        r"--pass(?:wd|word)?" + _OPTION_GAP + _OPTION_VALUE), ("val",), _flag_password, in_chunks=False),
    _Rule("password", ("htpasswd",), _Lazy(  # htpasswd -b FILE USER PASSWORD, the password last
        r"(?<![\w.\-])htpasswd" + _HTPASSWD_OPTIONS + r"[ \t]+[^\s\-]\S*[ \t]+" + _HTPASSWD_USER
        + _OPTION_VALUE + _COMMAND_END), ("val",), lambda m: _htpasswd_password(m, with_file=True), in_chunks=False),
    _Rule("password", ("htpasswd",), _Lazy(  # htpasswd -nb USER PASSWORD (printed, no file), as in -bnBC 10 "" pw
        r"(?<![\w.\-])htpasswd" + _HTPASSWD_OPTIONS + r"[ \t]+" + _HTPASSWD_USER
        + _OPTION_VALUE + _COMMAND_END), ("val",), lambda m: _htpasswd_password(m, with_file=False), in_chunks=False),
    _Rule("password", (" is my ", " is our ", " is the ", " was my ", " was the ", " is your "), _Lazy(
        # the value first: "<value> is my wifi password", "'<value>' is the password for staging",
        # "`<value>` is the password" (in backticks, as developers write a literal)
        # (a quote or bracket opening the whole sentence is not the value's)
        r"(?:(?P<q>[\"'`])(?P<val>[^\s\"'`]{4,64}?)(?P=q)|[\"'(\[]?(?P<bare>[^\s\"'`(\[]{4,64}?))"
        r"[ \t]+(?i:is|was)[ \t]+(?i:my|our|the|your)"
        r"(?:[ \t]+[\w\-]+){0,3}?[ \t]+(?i:password|passcode|passphrase|pw|pin)\b"),
          ("val", "bare"), _value_first_password, back=_VALUE_CHARS + "`", in_chunks=False),
    _Rule("password", tuple(space + particle + word for space in ("", " ") for particle in "がは"
                            for word in ("パスワード", "暗証番号", "パスフレーズ", "私の", "僕の", "俺の", "うちの")), _Lazy(
        # the value first in Japanese: 「<value>がパスワードです」, "<value>は私のパスワード"
        r"(?P<q>[\"'`]?)(?P<val>[^\s\"'`]{4,64}?)(?P=q)[」』]?[ \t]?(?:が|は)(?:私の|僕の|俺の|うちの)?"
        r"(?P<word>パスワード|暗証番号|パスフレーズ)(?=です|でした|だ|[。！!\s]|$)"),
          ("val",), lambda m: _named_password(m.group("val"), m.group("word")), back=_VALUE_CHARS + "`」』",
          in_chunks=False),
    _Rule("password", tuple("の" + word for word in ("パスワード", "暗証番号", "パスフレーズ")), _Lazy(
        # the value first with words between: 「<value>がWi-Fiのパスワードです」, "<value>は本番DBの暗証番号"
        # (matched up to the anchor from as far back as the clause goes, at most ``reach``: the lazy
        # lead skips the words before the value; the clause must end after the anchor,
        # _ja_qualified_password)
        r"(?=[^\n]*?[がは])[^\n]*?(?<![\x21-\x7e])\(?(?P<q>[\"'`]?)(?P<val>[\x21\x23-\x26\x28-\x5f\x61-\x7e]{4,64}?)(?P=q)"
        r"[」』]?[ \t]?(?:が|は)[ \t]?[^\s。、,!?「」『』がは]{1,16}?[ \t]?の(?P<word>パスワード|暗証番号|パスフレーズ)"),
          ("val",), _ja_qualified_password, back=_BEFORE_QUALIFIER, reach=96, in_chunks=False),
    _Rule("password", ("パス",), _Lazy(  # パス, short for パスワード, before a made-up value
        r"(?<![ァ-ヶー])パス\s*(?P<op>は|:|：|=|＝)\s*[「『\"']?(?P<q>)(?P<val>[\x21-\x7e]{6,64}?)"
        r"(?=[」』\"'）)]|です|でした|だ|で[、,。\s]|で$|[。、,\s]|$)"), ("val",),
          lambda m: _ja_short_password(m.group("val")) and not _ja_described(m), in_chunks=False),
    _Rule("password", _OTHER_LANGUAGE_LABELS, _Lazy(  # the word for password in other languages
        r"(?i:" + "|".join(_OTHER_LANGUAGE_LABELS) + r")(?:\s*(?:[:：=＝]|是|为|為|는|은)|\s+(?:ist|est|es|é|—)(?=\s))\s*"
        r"(?:[\"'`「](?P<qval>[^\s\"'`」]{4,64})[\"'`」]|(?P<val>[\x21\x23-\x26\x28-\x2b\x2d-\x3a\x3c-\x5f\x61-\x7e]{4,64}))"),
          ("qval", "val"), lambda m: _named_password(m.group("qval") or m.group("val"), "パスワード"), in_chunks=False),
    _Rule("password", ("password", "passwd", "passphrase", "passcode", "pwd", "p/w", "pw"), _Lazy(
        # other ways a note names the value: an arrow or a dash ("password -> …"), a qualifier
        # before the colon ("password (staging): …", "password for db: …"), a change ("the password
        # was reset to …", "changed the admin password to …")
        r"(?<![A-Za-z0-9])(?i:password|passwd|passphrase|passcode|pwd|p/w|pw)(?:"
        r"\s*(?:→|⇒|->|=>|–|—|-)(?=\s)"
        r"|[ \t]*\([^()\n]{1,30}\)\s*[:=：]"
        r"|[ \t]+(?i:for)[ \t]+[\w.@\-]+(?:[ \t]+[\w.@\-]+){0,2}?[ \t]*[:=]"
        r"|[ \t]+(?i:is|was)[ \t]+(?i:now|currently)"
        r"|(?P<to>(?:[ \t]+(?i:was|is|has|have|been|got|gets|will|be|now|just|also)){0,3}"
        r"(?:[ \t]+(?i:(?:re)?set|changed?|updated?|rotated?))?[ \t]+(?i:to))"
        r")[ \t]*(?P<q>[\"'`]?)(?P<val>[^\s\"'`,;]{6,128}?)(?P=q)(?=[.,;:!?)\]]*(?:\s|$))"),
          ("val",), _check_named_elsewhere, in_chunks=False),
    _Rule("password", ("use ",), _Lazy(  # "use <value> as the password"
        r"(?<![A-Za-z])(?i:use)[ \t]+(?P<q>[\"'`]?)(?P<val>[^\s\"'`,;]{6,128}?)(?P=q)[ \t]+(?i:as)[ \t]+"
        r"(?:(?i:the|my|our|your|a|an)[ \t]+)?(?:[\w\-]+[ \t]+)?(?i:password|passphrase|passcode)\b"),
          ("val",), lambda m: _named_password(m.group("val"), "password") and _CLAUSE_END.match(m.string, m.end())
          is not None, in_chunks=False),
    _Rule("password", ("/pass", "/pw", "/ pass", "/ pw"), _Lazy(  # "user/pass: admin/<password>"
        r"[A-Za-z \t]*?(?<![A-Za-z])(?i:user(?:name)?|login|id)[ \t]*/[ \t]*(?i:pass(?:word)?|pwd?)[ \t]*[:=][ \t]*"
        r"[\w.@+\-]{1,64}[ \t]*/[ \t]*(?P<q>)(?P<val>[^\s/\"'`,;]{6,128})"),
          ("val",), lambda m: _named_password(m.group("val"), "password"),
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/ \t", reach=12, in_chunks=False),
    _Rule("password", ("<password>", "<passwd>", "<pass>", "<pwd>"), _Lazy(  # XML: <password>…</password>
        r"<(?P<tag>(?i:password|passwd|pass|pwd))>(?P<q>)(?P<val>[^<\s][^<\n]{2,126}[^<\s])</(?P=tag)>"), ("val",),
          lambda m: _value_ok(m.group("val")), in_chunks=False),
    _Rule("password", ('password" value=', "password' value="), _Lazy(  # .NET config: <add key="DbPassword" value="…"/>
        r"(?i:password)[\"'][ \t]+value=(?P<q>[\"'])(?P<val>[^\"'\n]{4,128})(?P=q)"), ("val",),
          lambda m: _value_ok(m.group("val")), in_chunks=False),
    _Rule("password", ("--password-stdin", "sudo -s", "passwd --stdin"), _Lazy(  # echo <value> | docker login --password-stdin
        r".*?(?<![\w\-])(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+|(?P<f>[\"']?)%s(?:\\n)?(?P=f)[ \t]+)?(?P<q>[\"']?)"
        r"(?P<val>[^\s\"'`|;&]{4,128})(?P=q)"
        r"[ \t]*\|[ \t]*[^\n|;&]*?(?:--password-stdin|sudo[ \t]+-S|passwd[ \t]+--stdin)"), ("val",),
          lambda m: _value_ok(m.group("val")), back=_AnyCharBut("\n;&"), reach=200,
          in_chunks=False),
    _Rule("password", ("chpasswd",), _Lazy(  # echo "user:<value>" | chpasswd
        r".*?(?<![\w\-])(?:echo|printf)[ \t]+(?P<q>[\"']?)[^\s:\"']+:(?P<val>[^\s\"'`|]{4,128})(?P=q)"
        r"[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd"), ("val",), lambda m: _value_ok(m.group("val")),
          back=_AnyCharBut("\n;&"), reach=200, in_chunks=False),
    _Rule("password", ("--password-stdin",), _Lazy(  # docker login --password-stdin <<< '<value>'
        r"--password-stdin[ \t]*<<<[ \t]*(?P<q>[\"']?)(?P<val>[^\s\"'`]{4,128})(?P=q)"), ("val",),
          lambda m: _value_ok(m.group("val")), in_chunks=False),
    _Rule("password", ("chpasswd",), _Lazy(  # chpasswd <<< "user:<value>"
        r"chpasswd[ \t]*<<<[ \t]*(?P<q>[\"']?)[^\s:\"']+:(?P<val>[^\s\"'`]{4,128})(?P=q)"), ("val",),
          lambda m: _value_ok(m.group("val")), in_chunks=False),
    _Rule("password", ("wpa_passphrase",), _Lazy(  # wpa_passphrase SSID <passphrase>
        r"wpa_passphrase[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+)[ \t]+"
        r"(?:\"(?P<qval>[^\"\n]{8,63})\"|'(?P<sval>[^'\n]{8,63})'|(?P<val>[^\s\"'`,;]{8,63}))"),
          ("qval", "sval", "val"), lambda m: _value_ok(m.group("qval") or m.group("sval") or m.group("val")),
          in_chunks=False),
    _Rule("password", ("psk",), _Lazy(  # wpa_supplicant's psk="…", WIFI_PSK=…
        r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+_)?(?i:psk)[ \t]*[=:][ \t]*"
        r"(?:\"(?P<qval>[^\"\n]{8,63})\"|(?P<val>[^\s\"'`,;]{8,63}))"),
          ("qval", "val"), lambda m: _value_ok(m.group("qval")) if m.group("qval") is not None
          else _named_password(m.group("val"), "password"), back="ABCDEFGHIJKLMNOPQRSTUVWXYZ"
          "abcdefghijklmnopqrstuvwxyz0123456789_", in_chunks=False),
    _Rule("password", ("net user",), _Lazy(  # Windows: net user <name> <password>
        r"(?<![\w\-])(?i:net)[ \t]+(?i:user)[ \t]+(?:\"[^\"\n]+\"|[^\s\"'/]+)[ \t]+"
        r"(?:\"(?P<qval>[^\"\n]{4,127})\"|(?P<val>[^\s\"'`/*][^\s\"'`,;]{3,127}))"),
          ("qval", "val"), lambda m: _value_ok(m.group("qval")) if m.group("qval") is not None
          else _named_password(m.group("val"), "password"), in_chunks=False),
    _Rule("password", ("openssl",), _Lazy(  # openssl enc -k <passphrase>
        r"openssl\b[^\n|;&]{0,200}?[ \t]-k[ \t]+(?:\"(?P<qval>[^\"\n]{4,128})\"|'(?P<sval>[^'\n]{4,128})'"
        r"|(?P<val>[^\s\"'`,;]{4,128}))"), ("qval", "sval", "val"),
          lambda m: _value_ok(m.group("qval") or m.group("sval") or m.group("val")), in_chunks=False),
    _Rule("password", ("convertto-securestring",), _Lazy(  # PowerShell: ConvertTo-SecureString "<value>" -AsPlainText
        r"(?i:convertto-securestring)(?:[ \t]+-(?i:asplaintext|force|string)\b)*[ \t]+(?P<q>[\"'])"
        r"(?P<val>[^\"'\n]{4,128})(?P=q)[^\n|;]{0,80}"), ("val",),  # -AsPlainText before or after the value
          lambda m: _value_ok(m.group("val")) and "-asplaintext" in m.group(0).lower(), in_chunks=False),
    _Rule("secret_assignment", ("otpauth://",), _Lazy(  # a TOTP seed in an authenticator URL
        r"otpauth://[^\s\"'<>]{0,256}?[?&](?i:secret)=(?P<val>[A-Za-z2-7]{16,}=*)"), ("val",), in_chunks=False),
    _Rule("password", ("login", "credential", "creds", "ログイン"), _Lazy(  # "login: <user> / <password>"
        r"(?:(?i:login|credentials?|creds)|ログイン(?:情報)?)\s*(?:[:=]|は)\s*[\w.@+\-]{1,64}\s*/\s*(?P<q>)"
        r"(?P<val>[^\s/\"'`,;]{6,128})"),
          ("val",), lambda m: _value_ok(m.group("val")) and _classes(m.group("val")) >= 2
          and not (_NAMED_VALUE.match(m.group("val")) and not _WORD_NUMBER.match(m.group("val"))),
          in_chunks=False),
    _Rule("provider_token", ("/api/webhooks/",), _Lazy(  # Discord webhook: the URL is the credential
        r"(?i:https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/)\d{15,20}/[A-Za-z0-9_\-]{50,}"),
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:/.-", in_chunks=False),
    _Rule("secret_assignment", ("api key", "api_key", "apikey", "api-key"), _Lazy(  # "heroku api key <uuid>"
        r"(?i:api[ _\-]?key)\s*(?:=|:|\bis\b)?\s*[\"'`]?(?P<val>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
        r"-[0-9a-f]{12})\b"), ("val",), in_chunks=False),
    _Rule("password", ("pin",), _Lazy(  # a door or card PIN of 4-8 digits
        r"(?<![A-Za-z])(?i:pin)(?:\s+(?i:code|number)|\s*(?:コード|番号))?\s*(?:\bis\b|\bwas\b|=|:|：|は[、,]?)\s*[\"'`]?"
        r"(?P<val>\d{4,8})(?![\d\w])(?!\s+(?i:digits?|characters?|chars|numbers|long))"), ("val",),
          in_chunks=False),
    _Rule("password", ("pin code", "pin number", "passcode", "door code", "gate code", "alarm code", "entry code",
                       "access code", "keypad code", "lock code", "garage code"), _Lazy(
        # the code that opens something, 4-8 digits (a keypad's # or * after it), with or without "is"/":"
        r"(?<![A-Za-z])(?i:pin[ \t]+(?:code|number)|passcode|(?:door|gate|alarm|entry|access|keypad|lock|garage)"
        r"[ \t]+code)(?P<op>[ \t]+(?i:is|was)\b|[ \t]*[=:：])?[ \t]*[\"'`]?"
        r"(?P<val>\d{4,8})[#*]?(?![\d\w:/\-]|[.,]\S)(?![ \t]+(?i:digits?|characters?|chars|numbers|long|times|tries))"),
          ("val",), lambda m: m.group("op") is not None or _CLAUSE_END.match(m.string, m.end()) is not None,
          in_chunks=False),
    _Rule("password", ("recovery code", "backup code"), _Lazy(  # two-factor recovery codes, one or a list
        r"(?<![A-Za-z])(?i:(?:2fa|mfa|two-factor)[ \t]+)?(?i:recovery|backup)[ \t]+(?i:codes?)[ \t]*(?::|=|(?i:is|are)\b)"
        r"\s*(?:[-*][ \t]+)?(?P<val>" + _RECOVERY_CODE + r"(?:(?:,[ \t]*|[ \t]+|[ \t]*\n[ \t]*(?:[-*][ \t]+)?)"
        + _RECOVERY_CODE + r"){0,31})(?![\w\-])"), ("val",),
          in_chunks=False),
    _Rule("password", ("security answer", "secret answer", "秘密の質問の答え"), _Lazy(  # the answer to a security question
        r"(?:(?i:security|secret)[ \t]+answer|秘密の質問の答え)[ \t]*(?P<op>:|：|=|は|\b(?i:is|was)\b)[ \t]*"
        r"(?P<q>[\"'`「]?)(?P<val>[^\s\"'`,;」。、][^\n\"'`,;」。、]{0,63}?)(?=[ \t]*(?:$|\n|[\"'`,;」。、.!?)(]|です))"),
          ("val",), lambda m: _security_answer(m.group("val")), in_chunks=False),
    _Rule("secret_assignment", ("secret", "token", "key", "auth", "credential"),
          _TOKEN_ASSIGN_RE, ("val",), _check_token, in_chunks=False),
    _Rule("secret_assignment", ("トークン", "apiキー", "api キー", "シークレット", "秘密鍵",
                                "アクセスキー"), _Lazy(
        r"(?i:トークン|APIキー|API キー|シークレット|秘密鍵|アクセスキー)\s*(?:は|:|：|=|＝)\s*[「『\"']?"
        r"(?P<q>)(?P<val>[\x21-\x7e]{8,}?)(?=[」』\"']|です|だ|[。、\s]|$)"), ("val",), _check_token, in_chunks=False),
]

_CARD_RE = _Lazy(r"\d\d\d\d(?:[ \-]?\d){9,15}")
_FOUR_DIGITS = _Lazy(r"\d\d\d\d")
_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CARD_EDGE = frozenset("0123456789-_./:" + _ASCII_UPPER + _ASCII_UPPER.lower())
_CARD_PREFIX = _Lazy(r"^(?:4|5[1-5]|2[2-7]|3[47]|6011|65|35)")
_URL_RE = _Lazy(r"\b[a-z][a-z0-9+.\-]*://[^\s<>\"'`]+", _I)
# after "=" too: NAME=<token> is an assignment, whatever the name
_CANDIDATE_RE = _Lazy(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}(?![A-Za-z0-9+/_=\-])")
_DIGIT_RE = _Lazy(r"\d")
_SSH_PUBKEY_RE = _Lazy(
    r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[A-Za-z0-9+/]+=*")
_PEM_PUBLIC_RE = _Lazy(
    r"-----BEGIN ((?:[A-Z0-9]+ )*(?:PUBLIC KEY|CERTIFICATE(?: REQUEST)?))-----[\s\S]*?-----END \1-----")
_DATA_URI_TAILS = ("base64,", "base64,/")
_SRI_RE = _Lazy(r"sha\d+-")
_PROSE_NEXT = _Lazy(r" [a-z]")
_HEX_RE = _Lazy(r"^[0-9a-fA-F\-]+$")
_DIGIT_RUNS = _Lazy(r"\d+")
_LETTER_RUNS = _Lazy(r"[A-Za-z]+")
_WORD_RUNS_RE = _Lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_PIECE_SPLIT_RE = _Lazy(r"[\-_./+]")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _entropy(s: str) -> float:
    n = len(s)
    import math  # bisect, math and collections are imported on first need: clean text never needs them
    from collections import Counter

    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _avg_run(s: str) -> float:
    """Mean length of the letter-word / digit runs: ~1.5-2 for random data, >= 3 for names
    ("hookSpecificOutput" 6, "oauth2_provider" 4.3, "settings.AUTO_MEMORY_KEY" 5.3)."""
    runs = _WORD_RUNS_RE.findall(s)
    return sum(map(len, runs)) / len(runs) if runs else 0.0


def _is_high_entropy(tok: str) -> bool:
    core = tok.rstrip("=")
    if len(core) < 20 or _HEX_RE.match(core):
        return False  # pure hex: hashes / SHAs / UUIDs are fine in prose (see docstring)
    if _SRI_RE.match(core):
        return False  # subresource-integrity digests
    if core.upper() == core or core.lower() == core or not _DIGIT_RE.search(core):
        return False  # needs upper, lower and digits
    # Random data has at least one long separator-free piece that is fragmented into short
    # case/digit runs; names like "2026-03-29-Issues-Triage" or "all-MiniLM-L6-v2" do not.
    if not any(len(piece) >= 12 and _avg_run(piece) < 3.0 and piece.upper() != piece
               for piece in _PIECE_SPLIT_RE.split(core)):
        return False
    import math

    threshold = min(4.0, math.log2(len(core)) - 0.7)
    return _entropy(core) >= threshold


def _benign_spans(text: str, low: str) -> list[tuple[int, int]]:
    """Where high-entropy data is expected and harmless: URLs without credentials, SSH public
    keys, PEM public keys and certificates."""
    spans = [u.span() for u in _URL_RE.finditer(text)] if "://" in text else []
    if "aaaa" in low:
        spans += [m.span() for m in _SSH_PUBKEY_RE.finditer(text)]
    if "-----begin" in low:
        spans += [m.span() for m in _PEM_PUBLIC_RE.finditer(text)]
    return spans


def _overlaps(spans: list[tuple[int, int]], s: int, e: int) -> bool:
    return any(s < b and a < e for a, b in spans)


# A table cell naming the password: the word alone (a trailing colon allowed), in English,
# Japanese or one of the other languages. "pass" is left out: a "Pass" column holds test results.
_TABLE_LABELS = frozenset(("password", "passwd", "passphrase", "passcode", "pwd", "pw", "パスワード", "暗証番号",
                           "パスフレーズ") + _OTHER_LANGUAGE_LABELS)
_TABLE_SEPARATOR = _Lazy(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_TABLE_ROWS = 1000  # the most body rows read below one header


def _table_cells(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The cells of a Markdown table row ``text[start:end]`` as (start, end) spans of their
    content, spaces trimmed; None when the line is not a row (it must begin with "|")."""
    line = text[start:end]
    lead = len(line) - len(line.lstrip())
    if not line.startswith("|", lead):
        return None
    bars = [start + lead] + [start + i for i in range(lead + 1, len(line)) if line[i] == "|" and line[i - 1] != "\\"]
    if len(bars) < 2:
        return None
    cells = []
    for a, b in zip(bars, bars[1:]):
        a += 1
        while a < b and text[a] in " \t":
            a += 1
        while b > a and text[b - 1] in " \t":
            b -= 1
        cells.append((a, b))
    return cells


def _table_label(cell: str) -> bool:
    """A header or key cell naming the password: the word alone, after other words ("DB password",
    "admin pw") or before a qualifier ("Password (prod)"), in backticks or emphasis, with a colon."""
    word = cell.strip("`*_").rstrip(":：").strip().lower()
    if word.endswith(")") and "(" in word:
        word = word[:word.rindex("(")].strip()
    return word in _TABLE_LABELS or word.rsplit(" ", 1)[-1] in _TABLE_LABELS


def _table_passwords(text: str, low: str) -> list[tuple[int, int]]:
    """Passwords in Markdown tables: the cell after one that names the password
    (``| password | <value> |``), and the cells of a column headed by such a word. A cell counts
    when its value looks made up, by the same check as a value a sentence names as the password
    (``_named_password``: "see vault", "—", ``$DB_PASS`` and "required" are not values). Only
    the rows where a label occurs are read, and the rows below a header."""
    spans: set[tuple[int, int]] = set()
    rows_read: set[int] = set()
    for label in _TABLE_LABELS:
        i = low.find(label)
        while i != -1:
            start = text.rfind("\n", 0, i) + 1
            if start not in rows_read:
                rows_read.add(start)
                spans.update(_table_passwords_from(text, start))
            i = low.find(label, i + len(label))
    return sorted(spans)


def _is_separator(text: str, start: int) -> bool:
    """Whether the line at ``start`` is a table's separator row (``|---|:--:|``)."""
    return "-" in text[start:start + 8] and _TABLE_SEPARATOR.match(text, start, _line_end(text, start)) is not None


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end == -1 else end


def _table_passwords_from(text: str, start: int) -> list[tuple[int, int]]:
    """The password cells of the row at ``start``: after a label cell, or, when the row is a
    header (a separator row below it), in the labelled columns of the rows under it."""
    end = _line_end(text, start)
    cells = _table_cells(text, start, end)
    if cells is None:
        return []
    labels = [i for i, (a, b) in enumerate(cells) if _table_label(text[a:b])]
    if not labels:
        return []
    below = end + 1
    if below < len(text) and _is_separator(text, below):
        found = []
        row = _line_end(text, below) + 1
        for _ in range(_TABLE_ROWS):
            if row >= len(text):
                break
            row_end = _line_end(text, row)
            body = _table_cells(text, row, row_end)
            if body is None or (row_end + 1 < len(text) and _is_separator(text, row_end + 1)):
                break  # the table ends, or this row heads the next one
            found += [cell for i in labels if i < len(body) and (cell := _password_cell(text, *body[i]))]
            row = row_end + 1
        return found
    return [cell for i in labels if i + 1 < len(cells) and (cell := _password_cell(text, *cells[i + 1]))]


def _password_cell(text: str, a: int, b: int) -> tuple[int, int] | None:
    """The value's span in a table cell, when it looks made up; None otherwise."""
    if text[a:b].startswith("`") and text[a:b].endswith("`") and b - a > 2:
        a, b = a + 1, b - 1
    value = text[a:b]
    if any(c.isspace() for c in value) or not _named_password(value, "パスワード"):
        return None
    return a, b


# A line of PostgreSQL's password file, host:port:database:user:password ("*" for any; a
# colon or a backslash in a field escaped with a backslash), as pasted into a note or an
# ``echo … >> ~/.pgpass``.
_PGPASS_ENTRY = _Lazy(r"(?<![^\s'\"`(])(?:[A-Za-z0-9.\-]*[A-Za-z][A-Za-z0-9.\-]*|\d+(?:\.\d+){3}|\*)"
                      r":(?:\d{2,5}|\*):[^\s:'\"`=]+:[^\s:'\"`=]+:"
                      r"(?P<val>(?:[^\s:'\"`\\=]|\\.){4,128})(?=[\s'\"`)]|$)")


def _pgpass_passwords(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The password field of .pgpass entries within these whitespace-delimited spans of ``text``
    (those with four colons or more), when it looks made up (``_named_password``: a linter's
    ``file.py:12:3:E501:line-too-long`` is not an entry)."""
    found = []
    for start, end in spans:
        for m in _PGPASS_ENTRY.finditer(text, start, end):
            if _named_password(m.group("val"), "パスワード"):
                found.append(m.span("val"))
    return found


class _Taken:
    """Non-overlapping spans kept sorted, so an overlap test is O(log n) even for texts with
    thousands of findings."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, s: int, e: int) -> bool:
        import bisect

        i = bisect.bisect_left(self.starts, e)  # spans starting before e
        return i > 0 and self.ends[i - 1] > s

    def add(self, s: int, e: int) -> None:
        import bisect

        i = bisect.bisect_left(self.starts, s)
        self.starts.insert(i, s)
        self.ends.insert(i, e)


_ASCII_LOWER = str.maketrans(_ASCII_UPPER, _ASCII_UPPER.lower())


def _rule_matches(rule: _Rule, text: str, low: str, lo: int, hi: int):
    """Matches of ``rule`` that start at (or, with ``back``, just before) an anchor in lo:hi.

    A rule that walks back over any character but some (:class:`_AnyCharBut`) is matched once per
    anchor, ending at the anchor's end, from where the walk stopped: the words before the value
    are its pattern's to skip, and the clause may hold several anchors."""
    if not rule.anchors:  # short literal-led pattern: a plain scan is cheap enough
        yield from rule.pattern.finditer(text, lo, hi)
        return
    seen: set[int] = set()
    for anchor in rule.anchors:
        last_end = -1
        i = low.find(anchor, lo, hi)
        while i != -1:
            start = i
            if isinstance(rule.back, _AnyCharBut):
                m = rule.pattern.fullmatch(text, max(rule.back.walk_start(text, i, rule.reach), last_end),
                                           i + len(anchor))
                if m is not None:
                    last_end = m.end()
                    yield m
                i = low.find(anchor, i + 1, hi)
                continue
            if rule.back:
                while start > 0 and i - start < rule.reach and text[start - 1] in rule.back:
                    start -= 1
            if start not in seen and start >= last_end:
                seen.add(start)
                m = rule.pattern.match(text, start)
                if m is not None:
                    last_end = m.end()  # anchors inside a match are not tried again
                    yield m
            i = low.find(anchor, i + 1, hi)


def _span(rule: _Rule, m: re.Match[str]) -> tuple[int, int]:
    for name in rule.group:
        if m.group(name) is not None:
            return m.span(name)
    return m.span()


# Typographic quotes, which editors and chat apps put in place of typed ones (“…”, ‘…’), read as
# the ASCII quotes the rules know; NFKC keeps them as they are.
_QUOTE_FOLD = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
               "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"'}


def _nfkc_with_offsets(text: str) -> tuple[str, list[int]] | None:
    """``text`` NFKC-normalised character by character (full-width ``ｓｋ＿ｌｉｖｅ`` becomes
    ``sk_live``), typographic quotes as ASCII ones (``“hunter22”`` becomes ``"hunter22"``), and,
    for each normalised character, the offset of the original character it came from; None when
    normalising changes nothing."""
    import unicodedata

    if unicodedata.is_normalized("NFKC", text) and not any(q in text for q in _QUOTE_FOLD):
        return None
    out: list[str] = []
    origin: list[int] = []
    pos = 0
    # only the characters that normalising changes are visited one by one (a MEMORY.md of 200
    # lines holds a few thousand characters, nearly all ASCII, and one "…" makes it unnormalised)
    for m in lazyre.NON_ASCII.finditer(text):
        i = m.start()
        folded = _QUOTE_FOLD.get(text[i]) or unicodedata.normalize("NFKC", text[i])
        if folded == text[i]:
            continue
        out.append(text[pos:i])
        origin.extend(range(pos, i))
        out.append(folded)
        origin.extend([i] * len(folded))
        pos = i + 1
    out.append(text[pos:])
    origin.extend(range(pos, len(text)))
    origin.append(len(text))
    return "".join(out), origin


# Markdown emphasis round a word or phrase on one line: ``**Password:**``, ``*hunter22*``,
# ``***x***``: two runs of one to three "*", the same length, with no other "*" between. The
# markers must not touch an ASCII letter or digit outside (``2*x*y``, ``a*b*`` are arithmetic and
# globs), but may touch kana and kanji (``パスワードは**x**です``, where Markdown reads them as
# emphasis too). What they enclose must hold a letter or a digit, so ``*:*:*`` (a .pgpass
# wildcard) is left alone. Found with ``str.find``, not a pattern: the hooks' recall reads
# Markdown, and a pattern would load ``re`` for every "*".
_OUTSIDE_EMPHASIS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_*")
_BEFORE_EMPHASIS = frozenset("([{\"'>|:-")


def _star_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of every run of "*" in ``text``."""
    runs = []
    i = text.find("*")
    while i != -1:
        j = i + 1
        while j < len(text) and text[j] == "*":
            j += 1
        runs.append((i, j))
        i = text.find("*", j)
    return runs


def _emphasis_pair(text: str, opening: tuple[int, int], closing: tuple[int, int]) -> bool:
    """Whether two runs of "*" open and close one emphasis (see :data:`_OUTSIDE_EMPHASIS`)."""
    (a, b), (c, d) = opening, closing
    if b - a > 3 or d - c != b - a or c == b or "\n" in text[b:c]:
        return False
    if a > 0 and text[a - 1].isascii() and not text[a - 1].isspace() and text[a - 1] not in _BEFORE_EMPHASIS:
        return False  # "Xk9!*mP2*" is a value with stars in it, "2*x*y" arithmetic
    if d < len(text) and text[d] in _OUTSIDE_EMPHASIS:
        return False
    inner = text[b:c]
    return (not inner[0].isspace() and not inner[-1].isspace() and inner[-1] != "\\"
            and any(ch.isalnum() for ch in inner))


def _without_emphasis(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``text`` with its Markdown emphasis markers taken out (``- **password**: x`` reads as
    ``- password: x``, so the rules see the label next to its value) and the segments kept, as
    (offset in the result, offset in ``text``) of each segment's start (:func:`_through_segments`
    maps an offset back); None when there is no emphasis."""
    runs = _star_runs(text)
    pieces: list[str] = []
    segments: list[tuple[int, int]] = []
    length = pos = k = 0
    while k + 1 < len(runs):
        if not _emphasis_pair(text, runs[k], runs[k + 1]):
            k += 1
            continue
        (a, b), (c, d) = runs[k], runs[k + 1]
        for start, end in ((pos, a), (b, c)):
            segments.append((length, start))
            pieces.append(text[start:end])
            length += end - start
        pos = d
        k += 2
    if not pieces:
        return None
    segments.append((length, pos))
    pieces.append(text[pos:])
    return "".join(pieces), segments


def _through_segments(segments: list[tuple[int, int]], offset: int) -> int:
    """The offset in the original text of ``offset`` in the text :func:`_without_emphasis` made."""
    import bisect

    i = bisect.bisect_right(segments, (offset, float("inf"))) - 1
    start, source = segments[i]
    return source + offset - start


def find_secrets(text: str) -> list[SecretFinding]:
    """All secrets in ``text``, non-overlapping, sorted by start offset. Lookalike characters
    (full-width letters and digits, compatibility forms) are matched as their NFKC form, and
    Markdown emphasis markers are read past (``**Password:** x``); offsets always refer to
    ``text``."""
    if not text:
        return []
    view, origin = text, None
    if not text.isascii():
        folded = _nfkc_with_offsets(text)
        if folded is not None:
            view, origin = folded
    segments = None
    if "*" in view:
        plain = _without_emphasis(view)
        if plain is not None:
            view, segments = plain
    if origin is None and segments is None:
        return _find_in_normalised(text)

    def in_text(offset: int) -> int:
        if segments is not None:
            offset = _through_segments(segments, offset)
        return origin[offset] if origin is not None else offset

    return [SecretFinding(f.kind, in_text(f.start), in_text(f.end - 1) + 1) for f in _find_in_normalised(view)]


def _find_in_normalised(text: str) -> list[SecretFinding]:
    if not text:
        return []
    # Same-length lower-casing so anchor offsets are text offsets ("İ".lower() grows).
    low = text.lower()
    if len(low) != len(text):
        low = text.translate(_ASCII_LOWER)
    found: list[SecretFinding] = []
    taken = _Taken()
    # Long whitespace-delimited chunks, joined by "\n" into one short string so token-shaped
    # rules scan it once: (offset in joined, offset in text) pairs map positions back.
    chunks: list[tuple[int, int]] = []
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    colon_chunks: list[tuple[int, int]] = []  # with four colons or more: a .pgpass entry's shape
    pos = jpos = 0
    for chunk in text.split():
        if len(chunk) >= 20:
            c0 = text.find(chunk, pos)
            pos = c0 + len(chunk)
            chunks.append((c0, pos))
            starts.append((jpos, c0))
            parts.append(chunk)
            jpos += len(chunk) + 1
            if chunk.count(":") >= 4:
                colon_chunks.append((c0, pos))
        elif len(chunk) >= 12 and chunk.count(":") >= 4:
            c0 = text.find(chunk, pos)
            pos = c0 + len(chunk)
            colon_chunks.append((c0, pos))
    joined = "\n".join(parts)
    jlow = joined.lower() if len(joined.lower()) == len(joined) else joined.translate(_ASCII_LOWER)
    for rule in _RULES:
        src, src_low = (joined, jlow) if rule.in_chunks else (text, low)
        if not src:
            continue
        for m in _rule_matches(rule, src, src_low, 0, len(src)):
            if rule.check is not None and not rule.check(m):
                continue
            s, e = _span(rule, m)
            if rule.in_chunks:
                import bisect

                j0, t0 = starts[bisect.bisect_right(starts, (s, len(text))) - 1]
                s, e = s - j0 + t0, e - j0 + t0
            if e > s and not taken.overlaps(s, e):
                taken.add(s, e)
                found.append(SecretFinding(rule.kind, s, e))
    for s, e in _pgpass_passwords(text, colon_chunks) if colon_chunks else ():
        if not taken.overlaps(s, e):
            taken.add(s, e)
            found.append(SecretFinding("password", s, e))
    if "|" in text and any(label in low for label in _TABLE_LABELS):
        for s, e in _table_passwords(text, low):
            if not taken.overlaps(s, e):
                taken.add(s, e)
                found.append(SecretFinding("password", s, e))
    has_digits = any(d in text for d in "0123456789")  # substring scans: no regex for text without digits
    for m in (_CARD_RE.finditer(text) if has_digits and _FOUR_DIGITS.search(text) else ()):
        s, e = m.span()
        if (s and text[s - 1] in _CARD_EDGE) or (e < len(text) and text[e] in _CARD_EDGE):
            continue  # part of a longer number, a date range or an identifier
        digits = m.group(0).replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _luhn(digits) \
                and len(set(digits)) > 1 and not taken.overlaps(s, e):
            taken.add(s, e)
            found.append(SecretFinding("credit_card", s, e))
    # Generic entropy layer, also only inside the long chunks.
    url_spans: list[tuple[int, int]] | None = None
    for c0, c1 in chunks:
        for m in _CANDIDATE_RE.finditer(text, c0, c1):
            s, e = m.span()
            if taken.overlaps(s, e) or not _is_high_entropy(m.group(0)):
                continue
            if text.endswith(_DATA_URI_TAILS, max(0, s - 8), s):
                continue  # inline data (data:image/png;base64,...) is content, not a key
            if url_spans is None:
                url_spans = _benign_spans(text, low)
            if _overlaps(url_spans, s, e):
                continue
            taken.add(s, e)
            found.append(SecretFinding("high_entropy", s, e))
    found.sort(key=lambda f: f.start)
    return found


def contains_secret(text: str) -> bool:
    return bool(find_secrets(text))


def redact(text: str) -> str:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``."""
    findings = find_secrets(text)
    return _redact_findings(text, findings) if findings else text


def redact_across_lines(text: str) -> str:
    """:func:`redact`, and a secret split over lines ("ghp_Zq9X…⏎N3mL…", a token pasted into
    a wrapped prompt) is removed whole: every part of it, not only the part that is a secret on
    its own line."""
    if "\n" not in text:
        return redact(text)
    glued: list[str] = []
    origin: list[int] = []  # position in ``text`` of each character of the glued text
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] in " \t\r":
            j += 1
        if j < len(text) and text[j] == "\n":  # a line break and the blanks around it are dropped
            j += 1
            while j < len(text) and text[j] in " \t":
                j += 1
            i = j
            continue
        glued.append(text[i])
        origin.append(i)
        i += 1
    joined = "".join(glued)
    spans = [(origin[f.start], origin[f.end - 1] + 1, f.kind) for f in find_secrets(joined)
             if "\n" in text[origin[f.start]:origin[f.end - 1] + 1]]
    if not spans:
        return redact(text)
    out: list[str] = []
    pos = 0
    for start, end, kind in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    out.append(text[pos:])
    return redact("".join(out))


def ensure_storable(text: str, what: str = "memory") -> None:
    """Raise ``SecretRejected`` if ``text`` contains a secret. The message names only kinds."""
    findings = find_secrets(text)
    if not findings:
        return
    labels: list[str] = []
    for f in findings:
        if f.label not in labels:
            labels.append(f.label)
    if len(labels) == 1:
        desc = labels[0]
    else:
        desc = ", ".join(labels[:-1]) + " and " + labels[-1]
    raise SecretRejected(
        f"refusing to store {what}: it looks like it contains {desc}; nothing was saved"
    )


def redact_lines(lines: list[str]) -> list[str]:
    """``[redact(line) for line in lines]``, in one scan instead of one per line.

    The lines are joined and scanned once; only lines that a finding touches are redacted
    again on their own, so the result is exactly the per-line result, except in a Markdown
    table whose header names a password column: its cells are redacted too, though a cell's
    line alone does not show its header. The rest holds because
    every rule, the card check and the entropy layer are confined to one line (their
    character classes exclude newlines, and a newline looks like the end of the text to
    their boundary and look-around checks), so a per-line finding always overlaps a finding
    of the joined scan. (A command-line option's tool may stand on an earlier line ended by a
    backslash, and a password option's value on the line after it: the joined scan finds
    such a value, and the line is then redacted on its own, where the tool or the option is not
    seen, so it stays as a per-line scan leaves it. A note with one is
    refused at save, where the whole text is scanned, and :func:`redact_notes` reads such a
    command's lines together.) The exceptions are multi-line
    constructs (PEM blocks, SSH public keys, whose benign spans could cross lines): with their
    markers present, every line is scanned on its own.
    """
    if len(lines) < 2:
        return [redact(line) for line in lines]
    joined = "\n".join(lines)
    low = joined.lower()
    if "-----" in low or "aaaa" in low or "\r" in joined or any("\n" in line for line in lines):
        return [redact(line) for line in lines]
    findings = find_secrets(joined)
    if not findings:
        return list(lines)
    import bisect

    out = list(lines)
    line_starts: list[int] = []
    pos = 0
    for line in lines:
        line_starts.append(pos)
        pos += len(line) + 1
    touched: set[int] = set()
    for f in findings:
        first = bisect.bisect_right(line_starts, f.start) - 1
        last = bisect.bisect_right(line_starts, max(f.end - 1, f.start)) - 1
        touched.update(range(first, last + 1))
    # A password column's header stands on another line than its cells: those cells are
    # redacted from the joined text's table scan, which a line scanned alone cannot repeat.
    columns: dict[int, list[SecretFinding]] = {}
    if "|" in joined and any(label in low for label in _TABLE_LABELS):
        for start, end in _table_passwords(joined, low):
            i = bisect.bisect_right(line_starts, start) - 1
            columns.setdefault(i, []).append(SecretFinding("password", start - line_starts[i], end - line_starts[i]))
            touched.add(i)
    for i in touched:
        own = find_secrets(lines[i])
        out[i] = _redact_findings(lines[i], _merged(own, columns[i])) if i in columns else redact(lines[i])
    return out


def _merged(first: list[SecretFinding], second: list[SecretFinding]) -> list[SecretFinding]:
    """The findings of ``first`` and those of ``second`` that overlap none of them, by start."""
    kept = list(first)
    for f in second:
        if not any(f.start < g.end and g.start < f.end for g in first):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


def _redact_findings(text: str, findings: list[SecretFinding]) -> str:
    """``text`` with these findings (sorted by start; one overlapping an earlier one is skipped)
    replaced by ``[REDACTED:<kind>]``."""
    out: list[str] = []
    pos = 0
    for f in findings:
        if f.start < pos:
            continue
        out.append(text[pos:f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def redact_notes(lines: list[str], probe: list[bool] | None = None) -> list[str]:
    """:func:`redact_lines` for notes a person wrote line by line, where a secret can span lines:

    - a line that continues a secret begun on the line before ("The admin password is" ⏎
      "Xk9#mP2$qL7!vR4@"), or a command whose earlier lines end with a backslash
      ("redis-cli -h db \\" ⏎ "-a Xk9mP2qL7 ping"), is redacted whole;
    - the lines of a private key block (a BEGIN line of its own, then base64 and header lines,
      up to its END line or the first line that is neither) are redacted whole.

    ``probe[i]`` False skips the continuation check for line ``i`` (lines Kioku wrote itself). A
    line is checked only when the one before it ends the way a secret's name does ("is", ":",
    "=", "token", "は", ...) or with a backslash, which keeps a long file cheap.
    """
    out = redact_lines(lines)
    inside_key = False
    for i, line in enumerate(lines):
        bare = line.strip()
        if bare[:2] in ("- ", "* ", "+ ", "> "):
            bare = bare[2:].strip()
        bare = bare.strip("`\"'")
        if inside_key:
            if bare.upper().startswith("-----END") or _KEY_MATERIAL.fullmatch(bare):
                out[i] = "[REDACTED:private_key]"
                inside_key = not bare.upper().startswith("-----END")
                continue
            inside_key = False
        if _KEY_BEGIN.fullmatch(bare):
            out[i] = "[REDACTED:private_key]"
            inside_key = True
            continue
        if not i or not bare or (probe is not None and not probe[i]):
            continue
        before = lines[i - 1].rstrip()
        if before.endswith("\\"):  # a command continued with a backslash: its earlier lines, joined
            parts: list[str] = []
            first, size = i - 1, 0
            while first >= 0 and lines[first].rstrip().endswith("\\") and size <= _CONTINUED_CHARS:
                parts.insert(0, lines[first].rstrip()[:-1].rstrip())
                size += len(parts[0])
                first -= 1
            before = " ".join(parts)
        elif not before.lower().endswith(_SECRET_NAME_ENDINGS):
            continue
        # a secret found in this line only with the line before it (a value after "password is")
        # makes the whole line a secret; one this line holds on its own is redacted as usual
        start = len(before) + 1
        text = _LIST_MARKER.sub("", line.strip(), count=1)  # "- [ ] Xk9#…": the value, not the task box
        alone = [(f.start + start, f.end + start) for f in find_secrets(text)]
        joined = f"{before} {text}"
        crossing = [f for f in find_secrets(joined) if f.end > start
                    and not any(a < f.end and f.start < b for a, b in alone)]
        if crossing:
            out[i] = f"[REDACTED:{crossing[0].kind}]"
    return out


_LIST_MARKER = _Lazy(r"^(?:[-*+>]\s+)?(?:\[[ xX]\]\s+)?")
_CONTINUED_CHARS = 400  # how much of the backslash-ended lines before a line is read as one command with it
_KEY_BEGIN = _Lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_MATERIAL = _Lazy(r"[A-Za-z0-9+/=]{16,}|[A-Za-z-]+:.*")
# How the line before a secret's value ends when the value is on the next line.
_SECRET_NAME_ENDINGS = (":", "=", "：", " is", " was", "は", "password", "passwd", "passphrase", "token",
                        "secret", "key", "bearer", "pw", "pin", "パスワード", "暗証番号")
