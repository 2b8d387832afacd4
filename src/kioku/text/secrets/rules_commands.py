"""Rules for passwords given to command-line tools (options, pipes, here-strings)."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.rule import _AnyCharBut, _Rule
from kioku.text.secrets.words import _PORT_MAPPING
from kioku.text.secrets.values import _named_password, _value_ok
from kioku.text.secrets.checks import _check_url_creds, _cli_password, _flag_password, _htpasswd_password


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

# htpasswd's options (-C and -r take a number), its user name (may be "" with -n), and the end of
# its command: a pipe, a redirect, a comment, a closing quote or bracket, or punctuation and prose
_HTPASSWD_OPTIONS = r"(?P<opts>(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d+)?)+)"

_HTPASSWD_USER = r"(?:\"\"|''|[^\s\-]\S*)[ \t]+"

_COMMAND_END = r"(?=[.,;:]+(?:[ \t]|$)|[ \t]*(?:[|;&)\n#`\"'<>]|\d[<>]|$))"


RULES: list[_Rule] = [
    _Rule("password", (" -u ", " --user ", " --user="), _Lazy(
        r" (?:-u|--user)[ =]['\"]?(?P<val>[^\s:'\"]+:(?P<pw>[^\s'\"]{3,}))"), ("val",), _check_url_creds,
          in_chunks=False),  # curl -u user:password
    _Rule("password", ("mysql",), _Lazy(
        r"mysql(?:dump|admin|sh)?\b[^\n]*?\s-p(?P<val>[^\s\-][^\s]{2,})"), ("val",),
          lambda m: _value_ok(m.group("val")), in_chunks=False),  # mysql -u root -pSecret
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
]
