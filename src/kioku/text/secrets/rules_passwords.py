"""Rules for passwords, passphrases and codes named in English prose, configuration and notes."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.rule import _Rule
from kioku.text.secrets.words import _CLAUSE_END, _NAMED_VALUE, _VALUE_CHARS, _WORD_NUMBER
from kioku.text.secrets.values import (
    _classes, _encoded_value, _named_password, _passphrase_after_password, _no_operator_password, _plain_passphrase, _quoted_phrase, _security_answer,
    _seed_phrase, _value_ok,
)
from kioku.text.secrets.checks import (
    _check_named_elsewhere, _check_password, _check_short_key_password, _value_first_password,
)


# A recovery code as services print them: with a digit ("12345678", "a1b2-c3d4"), or capitals in
# dash-joined groups ("ABCD-EFGH-IJKL"); not a word ("printed", "see vault", "then").
_RECOVERY_CODE = (r"(?:(?=[A-Za-z0-9\-]*[0-9])[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10})*"
                  r"|[A-Z0-9]{4,10}(?:-[A-Z0-9]{4,10})+)")


RULES: list[_Rule] = [
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
    _Rule("password", ("password", "passwd", "passphrase", "pwd", "pass", "pw", "sshpass", "p/w"), _Lazy(
        # also a name ending in _pass / _pw (DB_PASS, MY_PW), sshpass's own variable, SSHPASS=, and P/W
        r"(?i:(?:(?:password|passwd|passphrase|passcode)(?P<plural>s)?|(?<![a-z])(?:pwd|p/w)|(?<=[a-z0-9][_\-])(?:pass|pw)"
        r"|(?<![a-z])sshpass(?==))\b)"
        r"(?:\s+(?:for|of|on|to)(?:\s+[\w.\-]+){1,4}?(?=\s+(?:is|was|are|were)\b))?"  # "password for dev is"
        # "are"/"were" only after a plural: "the db passwords are …", not "1Password are …"
        r"[\"']?\s*(?P<op>=>|:=|=|:|\bis[ \t]*:|\bis\b|\bwas\b|(?(plural)\b(?i:are|were)\b|(?!)))\s*(?P<q>[\"'`]?)"
        r"(?P<val>[^\s\"'`,;]{1,512})(?P=q)"),
          ("val",), _check_password, in_chunks=False),
    _Rule("password", ("password", "passphrase", "passcode"), _Lazy(  # "the wifi password is correct horse battery staple"
        r"(?i:password|passphrase|passcode)(?:\s+(?:for|of|on|to)(?:\s+[\w.\-]+){1,4}?(?=\s+(?:is|was)\b))?"
        r"[ \t]*(?::|=|\b(?i:is|was)\b(?:[ \t]*:)?)[ \t]*(?P<q>)(?P<val>[A-Za-z]{2,24}(?:[ \t]+[A-Za-z]{2,24}){2,7})"
        r"(?=[ \t]*(?:$|\n|[.,;!?)]))"), ("val",), lambda m: _passphrase_after_password(m.group("val")),
          in_chunks=False),
    _Rule("password", ("password", "passwd", "passphrase", "passcode", "pin", "secret", "pwd"), _Lazy(
        # a value written in an encoding after the name of a secret: "the db password base64 is …",
        # "PIN: NDgyMQ==", "secret (hex) = 73336372…"
        r"(?<![A-Za-z])(?i:password|passwd|passphrase|passcode|pin|secret|pwd)"
        r"(?P<qual>(?:[ \t_-]+[\w()-]+){0,3}?)[ \t]*(?::|=|：|\b(?i:is|was)\b)[ \t]*(?P<q>[\"'`]?)"
        r"(?P<val>[A-Za-z0-9+/=%_\\-]{4,512})(?P=q)(?=[.,;:!?)\]]*(?:\s|$))"), ("val",),
          lambda m: _encoded_value(m.group("val"), m.group("qual")), in_chunks=False),
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
    _Rule("password", (" is my ", " is our ", " is the ", " was my ", " was the ", " is your "), _Lazy(
        # the value first: "<value> is my wifi password", "'<value>' is the password for staging",
        # "`<value>` is the password" (in backticks, as developers write a literal)
        # (a quote or bracket opening the whole sentence is not the value's)
        r"(?:(?P<q>[\"'`])(?P<val>[^\s\"'`]{4,64}?)(?P=q)|[\"'(\[]?(?P<bare>[^\s\"'`(\[]{4,64}?))"
        r"[ \t]+(?i:is|was)[ \t]+(?i:my|our|the|your)"
        r"(?:[ \t]+[\w\-]+){0,3}?[ \t]+(?i:password|passcode|passphrase|pw|pin)\b"),
          ("val", "bare"), _value_first_password, back=_VALUE_CHARS + "`", in_chunks=False),
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
    _Rule("password", ("login", "credential", "creds", "ログイン"), _Lazy(  # "login: <user> / <password>"
        r"(?:(?i:login|credentials?|creds)|ログイン(?:情報)?)\s*(?:[:=]|は)\s*[\w.@+\-]{1,64}\s*/\s*(?P<q>)"
        r"(?P<val>[^\s/\"'`,;]{6,128})"),
          ("val",), lambda m: _value_ok(m.group("val")) and _classes(m.group("val")) >= 2
          and not (_NAMED_VALUE.match(m.group("val")) and not _WORD_NUMBER.match(m.group("val"))),
          in_chunks=False),
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
]
