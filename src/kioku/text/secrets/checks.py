"""Checks on a rule's match: whether the value it caught is a secret in its context."""

from __future__ import annotations

from kioku.text.secrets.words import (
    _CHANGED_BEFORE, _CJK_CHAR, _CLAUSE_END, _DESCRIBED_COMPOUND, _DESCRIBING_SUFFIX, _DESCRIBING_WORDS,
    _DETERMINER_BEFORE, _DIGIT_RUNS, _FLAG_WORD_NUMBER, _HASH_SCHEME, _HEX_RE, _IDENT_VALUE, _JA_CLAUSE_END,
    _JA_DESCRIPTION_AFTER, _JA_SET_TO, _KEY_FILE, _KEY_PREFIX_OK, _NAMED_VALUE, _NAMED_WORD_NUMBER,
    _NEXT_ASSIGNMENT, _NUMBER_OR_VERSION, _OPTION_PROSE, _OWN_WORD_NUMBER, _PRONOUNS, _PROSE_AFTER,
    _PROSE_NEXT, _PROSE_WORDS, _TYPE_NAME,
)
from kioku.text.secrets.values import (
    _avg_run, _classes, _is_hiragana, _is_kana, _ja_value_ok, _looks_random, _made_up_letters,
    _made_up_segments, _mixed_with_digit_groups, _named_password, _plain_word_value, _value_ok,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing (and re, until a pattern is used) stay out of the hook start-up path
    import re


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


def _ja_qualified_password(m: re.Match[str]) -> bool:
    """「<value>が<words>のパスワード」: the value, when the clause ends after the word."""
    return (_JA_CLAUSE_END.match(m.string, m.end()) is not None
            and _named_password(m.group("val"), m.group("word")))


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


def _ja_set_to(m: re.Match[str]) -> bool:
    """「パスワードは<value>に変更した」: a made-up value the password was set to, not a place
    (「パスワードはVaultに設定済み」 says where it is kept)."""
    return bool(_JA_SET_TO.match(m.string, m.end("val"))) and _named_password(m.group("val"), "パスワード")


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
