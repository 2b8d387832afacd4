"""Whether a value reads as a secret: placeholders, names, versions and prose are not."""

from __future__ import annotations

from kioku.text.secrets.words import (
    _CJK_CHAR, _CLAUSE_END, _CONSTANT_NAME, _DESCRIBED_COMPOUND, _DESCRIBING_SUFFIXES, _DESCRIBING_WORDS,
    _DIGIT_RUNS, _FEATURE_NOUNS, _HASH_SCHEME, _IDENT_VALUE, _JA_DESCRIBING, _KEY_FILE, _LETTER_RUNS,
    _NAMED_SUFFIX, _NAMED_VALUE, _NAMED_WORD_NUMBER, _NUMBER_OR_VERSION, _OPTION_PROSE, _OWN_WORD_NUMBER,
    _PASSPHRASE_LINKING_WORDS, _PASSPHRASE_NOTE_WORDS, _PASSWORD_COMPOUNDS, _PIECE_SPLIT_RE, _PLACEHOLDER_RE,
    _PROSE_WORDS, _QUANTITY, _SEED_STOP_WORDS, _SETTING, _WORD_RUNS_RE,
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


def _plain_word_value(word: str, text: str, end: int) -> bool:
    """True when ``word`` (after "password is") reads as the password itself."""
    low = word.lower().rstrip(".")
    if not low or low in _PROSE_WORDS or low in _DESCRIBING_WORDS or not _CLAUSE_END.match(text, end):
        return False
    if word.isalpha() and len(low) > 5 and low.endswith(_DESCRIBING_SUFFIXES):
        return False  # "expired", "missing", "unusable", "insecure" describe a password
    return len(low) >= 4


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


def _made_up_letters(value: str) -> bool:
    """Three or more letter groups of at most four letters ("abcd1234efgh5678ijkl"), not names
    with versions ("ubuntu2204python311", "gpt4turbo20240409")."""
    runs = _LETTER_RUNS.findall(value)
    return len(runs) >= 3 and sum(map(len, runs)) / len(runs) <= 4


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


def _seed_phrase(value: str) -> bool:
    """12, 15, 18, 21 or 24 lowercase words of 3 to 8 letters, none a word every sentence has
    (a mnemonic for remembering something is a sentence: "please excuse my dear aunt sally")."""
    words = value.split()
    return len(words) in (12, 15, 18, 21, 24) and not any(w in _SEED_STOP_WORDS for w in words)


def _is_hiragana(c: str) -> bool:
    return "ぁ" <= c <= "ん"


def _is_kana(c: str) -> bool:
    return "ぁ" <= c <= "ん" or "ァ" <= c <= "ヶ" or c == "ー"


def _ja_value_ok(value: str) -> bool:
    return _value_ok(value) and value not in _JA_DESCRIBING and not set(value) <= set("*＊・.…xX?？")


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


def _avg_run(s: str) -> float:
    """Mean length of the letter-word / digit runs: ~1.5-2 for random data, >= 3 for names
    ("hookSpecificOutput" 6, "oauth2_provider" 4.3, "settings.AUTO_MEMORY_KEY" 5.3)."""
    runs = _WORD_RUNS_RE.findall(s)
    return sum(map(len, runs)) / len(runs) if runs else 0.0


# Words of prose that no passphrase of plain words holds ("the password is never shared with
# anyone", "… is the same for every environment"), beside the word lists above.
_PROSE_FUNCTION_WORDS = frozenset(
    "with without into onto about after before while when where which who whom whose that this these those there "
    "here then than very really just only also never always ever every each all any some many much more most less "
    "few both either neither such same other another again already still yet soon today tomorrow now if unless "
    "because though although until since so as at by for from in of on to up out off over under "
    "you your yours we our ours they their them he she his her it its me my mine us i".split())


def _passphrase_after_password(value: str) -> bool:
    """Three to eight plain words after "password is" or "password:" ("the wifi password is correct
    horse battery staple"): a passphrase, unless they read as prose about the password. None may
    be a word of prose, of a note or of linking (``the``, ``with``, ``never``, ``characters``,
    ``vault``), nor an adverb or a participle ("automatically", "generated", "rotating"); three
    words may hold no describing word ("case sensitive obviously"), four or more at most one
    ("correct horse battery staple")."""
    words = value.split()
    if not 3 <= len(words) <= 8 or not _value_ok(value):
        return False
    low = [w.lower() for w in words]
    if not all(w.isalpha() and w.isascii() for w in words) or not (
            all(w.islower() for w in words) or all(w.istitle() for w in words)):
        return False  # one way of writing throughout: "Hey John" after a word is a sentence going on
    for w in low:
        if w in _PROSE_WORDS or w in _PASSPHRASE_NOTE_WORDS or w in _PASSPHRASE_LINKING_WORDS \
                or w in _PROSE_FUNCTION_WORDS or w in _OPTION_PROSE or w in _SEED_STOP_WORDS:
            return False
        if len(w) > 4 and w.endswith("ly") or len(w) > 5 and w.endswith(("ed", "ing")):
            return False
    describing = sum(1 for w in low if w in _DESCRIBING_WORDS)
    return describing == 0 or (len(words) >= 4 and describing == 1)


# How a note says a value is written in an encoding ("password base64", "hex-encoded PIN")
_ENCODING_WORDS = ("base64", "base-64", "b64", "hex", "encoded", "urlencoded", "percent")


def _encoded_value(value: str, qualifier: str) -> bool:
    """A value after the name of a secret that is written in an encoding: it decodes from hex,
    base64 or percent-escapes to printable text, or the words between name the encoding
    ("the db password base64 is …")."""
    from kioku.text.secrets.disguised import decode_value

    bare = value.strip("\"'`")
    if not _value_ok(bare) or len(bare) < 4:
        return False
    if decode_value(bare, 3) is not None:
        return True
    # named as encoded, a value that is not a plain word ("the password base64 is stored …")
    return any(word in qualifier.lower() for word in _ENCODING_WORDS) and not (bare.isalpha() and bare.islower())


# Prefixes a provider puts before its tokens, distinctive enough that a part of a token after
# one is still the token (the first twelve characters of a GitHub token, or its first half).
_PARTIAL_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-ant-", "sk-proj-",
                     "sk_live_", "sk_test_", "rk_live_", "rk_test_", "xoxb-", "xoxp-", "xoxa-", "xoxs-", "xoxe-",
                     "npm_", "pypi-", "hf_", "dckr_pat_", "glsa_", "shpat_", "xapp-", "sbp_", "nfp_", "hrku-",
                     "gsk_", "figd_", "ntn_", "lin_api_", "gocspx-", "aiza")


def _partial_token(value: str) -> bool:
    """The rest of a token after its provider's prefix, at least 8 characters that look random
    (two kinds of character, short runs), not a placeholder ("ghp_your_token_here", "ghp_xxxxxxxx")."""
    if len(value) < 8 or not _value_ok(value) or len(set(value)) < 5:
        return False
    low = value.lower()
    if any(word in low for word in ("your", "token", "here", "example", "xxxx", "dummy", "fake", "test")):
        return False
    return _classes(value) >= 2 and any(c.isdigit() for c in value) and _avg_run(value) < 3.0
