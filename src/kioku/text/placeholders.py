"""Machine- and project-specific details in a command or a sentence, replaced by placeholders
(standard library only).

``placeholders(text)`` replaces URLs, absolute and relative paths, ``user@host``, host names
(any dotted name whose last part is not a file extension, and IPv4 addresses), the server and
login given to database and network clients (``psql -h db1 -U alice``, ``PGUSER=alice``,
``ssh buildbox``) and git branch names by ``{url}``, ``{path}``, ``{user}``, ``{host}`` and
``{branch}``. A lesson learned on one machine must not carry them into another project, and
:func:`names_machine` tells a sentence that names something of one machine for sure.
"""

from __future__ import annotations

import re

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)
_WIN_PATH = re.compile(r"\b[A-Za-z]:\\\\\S+")
_PATH = re.compile(r"(?<![\w{])(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]+/?|\b(?:[\w.@+-]+/)+[\w.@+-]+")
_FILE_EXTENSIONS = ("py|pyi|js|mjs|cjs|ts|tsx|jsx|ex|exs|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|md|rst|json|"
                    "jsonl|ya?ml|toml|ini|cfg|conf|lock|txt|sh|bash|zsh|sql|html?|css|scss|xml|csv|log|env|"
                    "gz|tgz|zip|tar|whl|so|o|a|db|sqlite3?|png|jpe?g|gif|svg|pdf|out|tmp|bak|d")
# A dotted name ending in letters that are not a file extension is a host (db.acme.ai,
# build.corp, example.co.uk), unless it is a Python module run with -m; so is an IPv4 address.
_IPV4_SOURCE = r"\b\d{1,3}(?:\.\d{1,3}){3}\b"
# (a host starts where a dotted name starts, not after one of its dots: "a.a.a…" is then read
# once, not once from every dot, which took seconds on a 2,000-character command)
_HOST = re.compile(r"(?<!-m )(?<![\w.-])(?:[a-z0-9-]+\.)+(?!(?:" + _FILE_EXTENSIONS + r")\b)[a-z]{2,24}\b(?![\w/-])"
                   r"|" + _IPV4_SOURCE, re.I)
_USER_AT = re.compile(r"\b[\w.-]+@(?=\{host\}|[\w.-]+)")
# Clients that name a server and a login in flags: the values are this machine's, not the lesson's.
_CLIENT = re.compile(r"\b(?:psql|pg_dump|pg_restore|pg_isready|mysql|mysqldump|mariadb|redis-cli|mongo|mongosh|"
                     r"clickhouse-client|sqlcmd|nc|telnet|ssh|scp|sftp|rsync|curl|wget|ftp)\b", re.I)
_HOST_FLAG = re.compile(r"((?:^|\s)(?:-h|-H|--host|--hostname|--server)(?:=|\s+))(?!-)(?!\{)[\w.-]+")
_USER_FLAG = re.compile(r"((?:^|\s)(?:-U|-u|--user|--username|-l|--login)(?:=|\s+))(?!-)(?!\{)[\w.-]+")
_ENV_VALUE = re.compile(r"\b((?:PG|MYSQL_|DB_|REDIS_)?(?:HOST|USER|USERNAME)=)(?!\{)[\w.-]+")
# options, each with at most one value that is not itself an option; possessive, so a long run of
# options is read once (no backtracking through every way of pairing them)
_SSH_TARGET = re.compile(r"\b((?:ssh|sftp)\s+(?:-\w+(?:\s+(?!-)\S+)?\s+)*+)(?!-)(?!\{)[\w.-]+(?=\s|$)")
_BRANCH = re.compile(r"(--set-upstream(?:-to)?[= ](?:[\w-]+[ /])?|-u\s+[\w-]+\s+|\b(?:origin|upstream)\s+|checkout\s+-b\s+|"
                     r"switch\s+-c\s+|branch\s+(?:-[dDmM]\s+)?)(?!-)([\w./-]+)(?![\w./-])(?!\s+\{branch\})")


def placeholders(text: str) -> str:
    """Machine- and project-specific parts replaced by ``{path}``, ``{url}``, ``{host}``, ``{user}``, ``{branch}``
    (``text`` is cut to :data:`MAX_SCAN_CHARS` first: the rules are meant for one command)."""
    text = text[:MAX_SCAN_CHARS]
    text = _URL.sub("{url}", text)
    if re.search(r"\bgit\b", text):  # "-u origin main" names a branch only in git
        text = _BRANCH.sub(lambda m: m.group(1) + "{branch}", text)
    text = _WIN_PATH.sub("{path}", text)
    text = _PATH.sub("{path}", text)
    text = _USER_AT.sub("{user}@", text)
    text = _HOST.sub("{host}", text)
    text = _ENV_VALUE.sub(lambda m: m.group(1) + ("{user}" if "USER" in m.group(1).upper() else "{host}"), text)
    if _CLIENT.search(text):
        text = _HOST_FLAG.sub(lambda m: m.group(1) + "{host}", text)
        text = _USER_FLAG.sub(lambda m: m.group(1) + "{user}", text)
        if not re.search(r"\b(?:ssh|sftp)\b[^|;&]*\{host\}", text):  # its target is already a placeholder
            text = _SSH_TARGET.sub(lambda m: m.group(1) + "{host}", text)
    return text


# What makes a sentence machine-bound for sure (names_machine); the broader rules above are for
# commands, where a dotted word is a host far more often than in a sentence ("pathlib.Path").
_ABSOLUTE_PATH = re.compile(r"(?<![\w.{])(?:~|/(?:home|Users|root|var|etc|opt|srv|mnt|tmp|usr|private|Volumes))/[\w.@+-]")
_IPV4 = re.compile(_IPV4_SOURCE)
# not "lodash@4.17.21" nor "eslint@8.x": a host's labels hold letters
_LOGIN_AT_HOST = re.compile(r"\b[\w.-]+@(?:[\w-]*[A-Za-z][\w-]*\.)+[A-Za-z][\w-]*\b")
# "socket.io" is a library, whatever its top-level domain says
_KNOWN_TLD_HOST = re.compile(r"\b(?!socket\.io\b)(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|co|app|cloud|internal|local|lan|corp|"
                             r"home|intra|uk|de|jp|fr|nl|eu|us|ca|au|in)\b(?![\w/.-])", re.I)
MAX_SCAN_CHARS = 2000  # a command or a lesson longer than this is cut before the rules scan it


# A file of a repository named by its relative path: at least one folder and a known extension
# ("src/app/container.py", "tests/fixtures/x.json"); "and/or", "CI/CD" and "v1/v2" have none.
# "React/Next.js", "Node/Express.js", "D3/Chart.js" name libraries, not files: a capitalised
# "Name/Name.js" pair is not taken for a path
_PROJECT_FILE = re.compile(r"(?<![\w/{.-])(?!(?-i:[A-Z][\w.]*/[A-Z]\w*\.[jt]s)\b(?!/))(?:\.{1,2}/)?(?:[\w.@+-]+/)+"
                           r"[\w@+-][\w.@+-]*\.(?:" + _FILE_EXTENSIONS + r")(?![\w/])", re.I)


def names_project_file(text: str) -> bool:
    """Whether a sentence names a file of one repository by its relative path."""
    return bool(_PROJECT_FILE.search(text[:MAX_SCAN_CHARS]))


def names_machine(text: str) -> bool:
    """Whether a sentence names something of one machine: a URL, an absolute or home path, a
    login at a host, an IP address, a host under a common top-level domain, or a HOST=/USER=
    setting. Dotted API names ("pathlib.Path"), "and/or" and "npm install x@1.2" do not count."""
    text = text[:MAX_SCAN_CHARS]
    return any(rule.search(text) for rule in (_URL, _WIN_PATH, _ABSOLUTE_PATH, _IPV4, _LOGIN_AT_HOST,
                                              _KNOWN_TLD_HOST, _ENV_VALUE))
