"""Word lists and small patterns the validators read values against (prose, descriptions, names)."""

from __future__ import annotations

from kioku.infra import lazyre
from kioku.infra.lazyre import LazyPattern as _Lazy


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

_NEXT_ASSIGNMENT = _Lazy(r"[ \t]+[A-Za-z_][\w.\-]*=")  # another assignment after the value: "user=bob"

# a line break ends a clause as the end of the text does (redact_lines scans many lines joined)
_CLAUSE_END = _Lazy(r"[^\S\n]*(?:$|\n|[.,;!?)(\]」。、（]|[^\S\n](?:and|but|so|for|on|in|at|from)\b)")

_DESCRIBING_SUFFIXES = ("ed", "ing", "able", "ible", "ful", "less", "ive", "ous", "ent", "ant", "ly")

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

_KEY_FILE = _Lazy(r"\.(?:pem|crt|cer|der|pfx|p12|key|jks|txt)$", lazyre.IGNORECASE)

_FLAG_WORD_NUMBER = _Lazy(r"^[A-Za-z]+\d{1,4}$")  # "hunter2024" after --pass

# The characters a value standing before "is my password" may hold (walked back over from the anchor).
_VALUE_CHARS = "".join(chr(c) for c in range(0x21, 0x7f) if chr(c) not in "`")

_PRONOUNS = frozenset("it its his hers theirs there here who whose mine yours ours this that what which".split())

# A word after one of these is a noun, not a value ("the first line is the password").
_DETERMINER_BEFORE = _Lazy(r"(?i:\b(?:the|a|an|this|these|those|my|your|our|their|its|his|her|every|each|"
                           r"first|last|next|same|other)[ \t]+)$")

# where such a clause ends: after です / だ (not だけ, だと) and よ / ね, a full stop, a closing
# bracket or the end of the line
_JA_CLAUSE_END = _Lazy(r"(?:です|でした|だ)?(?:よ|ね)?(?:[。.!?」』)]|[ \t]*(?:\r?\n|$))")

_CHANGED_BEFORE = _Lazy(r"(?i:\b(?:(?:re)?set(?:s|ting)?|chang(?:e|es|ed|ing)|updat(?:e|es|ed|ing)|rotat(?:e|es|ed|ing))\b)"
                         r"[ \t]+(?:[\w\-]+[ \t]+){0,3}$")

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

_PORT_MAPPING = _Lazy(r"^\d+(?::\d+)+(?:/(?:tcp|udp))?$")

# Words that make a compound noun with "password" ("password reset", "password policy"). With a
# year after them the word names a version of the feature ("reset2024"); the feature nouns are no
# plausible password even with other digits ("policy2"), while "change123" or "manager1" can be.
_FEATURE_NOUNS = frozenset(
    "policy policies rules rotation expiry recovery strength hashing migration flow page form field prompt".split())

_PASSWORD_COMPOUNDS = _FEATURE_NOUNS | frozenset("reset resets change changes manager hash update".split())

_NAMED_SUFFIX = _Lazy(r"-(?:hashed|salted|encrypted|protected|based|only|link|field|reset|policy|length)$", lazyre.IGNORECASE)

# Words of a note about a passphrase ("at least twelve characters", "git credential helper"),
# not of a passphrase (beside _PROSE_WORDS, which it is checked against too).
_PASSPHRASE_NOTE_WORDS = frozenset(
    "at least most min max minimum maximum characters chars letters digits words word length long "
    "see readme section docs doc wiki vault helper credential credentials agent forwarding "
    "git ssh gpg pgp key keys keychain diceware generated random ask please tomorrow today later soon pending "
    "unknown someone team".split())

_PASSPHRASE_LINKING_WORDS = frozenset("not only per via by on every since but very now tbd are be".split())

# Words that are never among a wallet's seed words but fill every sentence.
_SEED_STOP_WORDS = frozenset("the a an of to in for my and or is it on at by with from be are was "
                             "we i he she our your their not no yes".split())

# A Japanese description follows an ASCII word: a particle and more text ("Vault にある",
# "bcrypt でハッシュする", "1Password の保管庫"); "hunter2 で、…" is the copula, the value itself.
_JA_DESCRIPTION_AFTER = _Lazy(r"[^\S\n]*(?:の|に|を|が|へ|と|から|より|で(?!す|し|[、,。\s]|$))")

_JA_SET_TO = _Lazy(r"[^\S\n]*に(?:設定|変更|更新|再設定|リセット|した|する|なった|なる)")

_DESCRIBED_COMPOUND = _Lazy(r"^[a-z]+(?:-[a-z]+)*-(?:[a-z]+(?:ed|ing)|based|only|side|wide|free)$")

_IDENT_VALUE = _Lazy(r"^[a-z]+[0-9]*(?:[_\-.:/][a-z]+[0-9]*)*$|^[A-Z][a-z]+(?:[A-Z][a-z]+)+$")

# "key"/"auth" glued to a preceding word count only after these (apikey, ACCESS_KEY, ...).
_KEY_PREFIX_OK = _Lazy(r"(?:api|access|private|secret|session|signing|encryption|master"
                            r"|client|deploy|license|app|service|[^a-z])[_\-.]?$")

_DESCRIBING_SUFFIX = _Lazy(r"-(?:based|only|side|wide|free|enabled|compatible|style|like|aware|signed)$",
                          lazyre.IGNORECASE)

_PROSE_WORDS = frozenset(
    "the from in is a an of to and or for with stored kept saved managed rotated set used "
    "required needed missing wrong incorrect reset changed expired empty same different "
    "field column manager policy prompt protected hashed hash reset written printed shown".split()
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

_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_PROSE_NEXT = _Lazy(r" [a-z]")

_HEX_RE = _Lazy(r"^[0-9a-fA-F\-]+$")

_DIGIT_RUNS = _Lazy(r"\d+")

_LETTER_RUNS = _Lazy(r"[A-Za-z]+")

_WORD_RUNS_RE = _Lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

_PIECE_SPLIT_RE = _Lazy(r"[\-_./+]")

# A table cell naming the password: the word alone (a trailing colon allowed), in English,
# Japanese or one of the other languages. "pass" is left out: a "Pass" column holds test results.
_TABLE_LABELS = frozenset(("password", "passwd", "passphrase", "passcode", "pwd", "pw", "パスワード", "暗証番号",
                           "パスフレーズ") + _OTHER_LANGUAGE_LABELS)
