"""Every ``kioku …`` command the documentation shows parses with the real CLI parser.

The files are read when the tests run: README.md, docs/**/*.md and skills/**/*.md, whatever
they say at the time. Two kinds of command are taken from them:

- lines of fenced shell blocks (```bash, sh, shell, console, zsh or no language): commands to
  run as written, so each must parse completely and name a command that runs something;
- inline code spans that start with ``kioku `` (or a launcher path ending in ``/kioku``): they
  often name a command or an option without its arguments (`kioku recall --query`), so a span
  only has to name real commands and options with valid values. Usage notation is read as
  such: ``[…]`` optional parts and ``a|b`` alternatives (``\\|`` in tables) stand for their first
  choice, ``…`` and ``...`` for more of the same, ``<name>`` for a value.

Nothing runs: the arguments are only parsed (``kioku.cli.main`` routes old command names the
same way before parsing). The skills, which Claude follows, must also use the current names.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from kioku.cli.main import MOVED, build_parser, command_of, moved_to

REPO = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console", "zsh"}
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n(.*?)^[ \t]*\1[`~]*[ \t]*$", re.M | re.S)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"<([\w.-]+)>")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
# parse errors that only mean arguments were left out or stand as placeholders (`kioku COMMAND
# --help`, `--confidence X`), which a mention in the text may do
_ONLY_LEFT_OUT = re.compile(r"the following arguments are required|expected one argument|"
                            r"one of the arguments .* is required|"
                            r"(?:invalid \w+ value: |invalid choice: |: )'[A-Z][A-Z0-9_]*'(?: is not a whole number|"
                            r" \(choose from .*\))?$")
OPERATOR_CHARS = "|&;<>"


def doc_files() -> list[Path]:
    files = [REPO / "README.md"] if (REPO / "README.md").is_file() else []
    for folder in ("docs", "skills"):
        files += sorted((REPO / folder).rglob("*.md"))
    return files


def commands_in(text: str) -> list[tuple[int, list[str], bool]]:
    """(line number, words from ``kioku`` on, is a mention) for every kioku command of a Markdown text."""
    found: list[tuple[int, list[str], bool]] = []
    blanked = list(text)
    for fence in _FENCE.finditer(text):
        language = (fence.group(2).split() or [""])[0].lower()
        first_line = text.count("\n", 0, fence.start(3)) + 1
        if language in SHELL_LANGUAGES:
            lines = fence.group(3).split("\n")
            n = 0
            while n < len(lines):
                line, at = lines[n], n
                while line.endswith("\\") and n + 1 < len(lines):  # a continued line
                    n += 1
                    line = line[:-1] + " " + lines[n]
                found += [(first_line + at, words, False) for words in _shell_commands(line)]
                n += 1
        blanked[fence.start():fence.end()] = [c if c == "\n" else " " for c in text[fence.start():fence.end()]]
    prose = "".join(blanked)
    for span in _INLINE.finditer(prose):
        content = span.group(1).strip()
        if " " in content and _is_kioku(content.split(" ", 1)[0]):
            found.append((prose.count("\n", 0, span.start()) + 1, _words(_read_notation(content)), True))
    return sorted(found, key=lambda item: item[0])  # in the order of the text


def _is_kioku(word: str) -> bool:
    word = word.strip("\"'")
    return word == "kioku" or word.endswith("/kioku")


def _words(command: str) -> list[str]:
    """Shell words, with each operator (pipe, list, redirection) a word of its own."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=OPERATOR_CHARS)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError as exc:  # an unclosed quote
        return ["kioku", f"<{exc}>"]


def _shell_commands(line: str) -> list[list[str]]:
    """The kioku commands of one shell line (after a ``$ `` prompt, between ``&&``, ``;`` or pipes)."""
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:]
    commands, words = [], []
    for word in [*_words(line), ";"]:
        if not set(word) <= set(OPERATOR_CHARS):
            words.append(word)
            continue
        if word[:1] in "<>" and words and words[-1].isdigit():
            words.pop()  # the file descriptor of "2>/dev/null"
        while words and _ENV_ASSIGNMENT.match(words[0]):
            words.pop(0)
        if words[:2] in (["python", "-m"], ["python3", "-m"]) and words[2:3] == ["kioku"]:
            words = words[2:]
        if words and _is_kioku(words[0]):
            commands.append(words)
        # a redirection's target is not a command
        words = [] if word[:1] not in "<>" else ["<redirected>"]
    return commands


def _read_notation(command: str) -> str:
    """A mention's usage notation read as one choice: ``[a|b]`` → ``a``, ``<x>`` → ``x``."""
    command = command.replace("\\|", "|")
    while _OPTIONAL.search(command):
        command = _OPTIONAL.sub(lambda m: m.group(1).split("|")[0].strip(), command)
    return _PLACEHOLDER.sub(r"\1", command)


def argv_of(words: list[str]) -> list[str]:
    """The arguments after ``kioku``, up to the first operator (``a|b`` alternatives: the first)."""
    argv = []
    for word in words[1:]:
        if set(word) <= set(OPERATOR_CHARS):
            break
        argv.append(word)
    return [w for w in argv if w not in ("...", "…")]


def parse_error(argv: list[str], mention: bool) -> str | None:
    """Why ``kioku ARGV`` does not parse with the real parser, None when it does."""
    routed, _notice = moved_to(argv)
    parser = build_parser(command_of(routed) or "")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            args = parser.parse_args(routed)
        except SystemExit as exc:
            if exc.code == 0:  # --help, --version
                return None
            message = err.getvalue().strip()
            if mention and _ONLY_LEFT_OUT.search(message):
                return None
            return message.splitlines()[-1] if message else f"exit {exc.code}"
    if not argv:
        return None if mention else "no command"
    return None if getattr(args, "func", None) else "runs nothing"


def problems_in(text: str) -> list[str]:
    return [f"line {number}: `{shlex.join(words)}`: {why}" for number, words, mention in commands_in(text)
            if (why := parse_error(argv_of(words), mention))]


FILES = doc_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPO)) for p in FILES])
def test_every_kioku_command_the_documentation_shows_parses(path: Path) -> None:
    problems = problems_in(path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(REPO)}:\n" + "\n".join(problems)


def test_the_documentation_check_reads_the_skills_commands() -> None:
    """The extraction finds what the skills show: a check that reads nothing would pass anything."""
    skills = [p for p in FILES if "skills" in p.parts]
    found = [c for p in skills for c in commands_in(p.read_text(encoding="utf-8"))]
    blocks = [words for _, words, mention in found if not mention]
    assert len(skills) >= 8 and len(found) > 100
    assert ["kioku", "remember", "The team uses bun, never npm, for installs and scripts"] in blocks
    assert ["kioku", "lessons", "learn", "--agent", "code-finder", "Search for the decorator name before the "
            "function name when routes are registered by decorators", "--category", "search_strategy",
            "--confidence", "0.8", "--tags", "routing,python"] in blocks  # from a fence indented in a list


def test_the_documentation_check_rejects_what_does_not_parse() -> None:
    text = "\n".join([
        "Run `kioku recall --query` or `kioku lessons maintain --agent A --daily\\|--weekly` any time; "
        "`kioku COMMAND --help` and `kioku lessons VERB --help` show the options.",
        "```bash", "kioku search \"package manager\" --limit 3 | head -1", "```",
        "Broken: `kioku recall --budgets 5`, `kioku lessons teach`, `kioku store rebuild --scope mars`.",
        "```bash", "kioku lessons learn \"Pin Node\" --confidence 0.8", "kioku remembr x", "```",
        "   ```sh", "   KIOKU_DEBUG=1 kioku organize --aply && kioku doctor", "   ```",
    ])
    problems = problems_in(text)
    assert [p.split(":")[0] for p in problems] == ["line 5", "line 5", "line 5", "line 7", "line 8", "line 11"], problems
    assert "unrecognized arguments: --budgets" in problems[0]
    assert "--category" in problems[3]  # a fenced command must be complete


def test_the_notation_of_a_mention_stands_for_its_first_choice() -> None:
    def mention(text: str) -> list[str]:
        [(_, words, _)] = commands_in(text)
        return argv_of(words)

    assert mention("`kioku dashboard --agent NAME [--json \\| --html OUT]`") == ["dashboard", "--agent", "NAME",
                                                                                "--json"]
    assert mention("`kioku forget QUERY|--id ID [--scope user|project]`") == ["forget", "QUERY"]
    assert mention("`kioku agent-section <name> ...`") == ["agent-section", "name"]
    assert [argv_of(w) for w in _shell_commands("X=1 kioku search 'a | b; c' 2>/dev/null | head -1; kioku ui")] == [
        ["search", "a | b; c"], ["ui"]]


def test_the_skills_use_the_current_command_names() -> None:
    old = [f"{p.relative_to(REPO)} line {number}: `{command}`" for p in FILES if "skills" in p.parts
           for number, command, mention in commands_in(p.read_text(encoding="utf-8"))
           if (argv := argv_of(command)) and argv[0] in MOVED]
    assert not old, "the skills name commands by their names before the groups:\n" + "\n".join(old)
