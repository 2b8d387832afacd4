"""MEMORY.md: parse and render the one-line-per-memory index (standard library only).

Format (what Claude Code and people read)::

    # Memory index
    <!-- how to edit -->

    ## User
    - [user] Prefers concise answers → user-preferences.md
    ## Project
    ## Feedback
    ## Reference

Each entry is ``- [type] summary → topic-file.md`` and at most ``MAX_LINE_CHARS``
characters. The file never grows past ``MAX_LINES`` lines: the memory store stops adding
index lines at the limit (the memory is still saved in its topic file) and asks for
``kioku organize``; ``WARN_LINES`` is where warnings start.

Parsing is tolerant because people edit this file by hand: lines that are not entries are
kept verbatim (``extras``) in the section where they were found and rendered back, so a
rewrite never drops what someone typed; unknown ``## Sections`` are kept too. Missing
sections are simply re-created. Entry-shaped lines with no memory behind them (the store
marks them ``hand``) count as written by hand too.

Only when the index would pass ``MAX_LINES`` do hand-written lines give way: the store moves
them, verbatim and under their section headings (``render_moved``), to
``MEMORY.md.hand-written-<time>`` beside the index, so Kioku's own entries keep their place;
should those alone not fit, they are kept in ``TYPE_PRIORITY`` order (feedback first, as
recall ranks them), newest first within a type.

``read_index_text`` refuses files that are not text (invalid UTF-8, NUL bytes, absurd size)
so the caller can back them up and rebuild the index from the topic files, which are the
source of truth.
"""

from __future__ import annotations

import re
from pathlib import Path

from kioku.memory.textutil import escape_comment_opener, summarize

INDEX_NAME = "MEMORY.md"
TYPES = ("user", "project", "feedback", "reference")
SECTIONS = {"user": "User", "project": "Project", "feedback": "Feedback", "reference": "Reference"}
SECTION_TYPES = {v.lower(): k for k, v in SECTIONS.items()}
MAX_LINES = 200
WARN_LINES = 150
MAX_LINE_CHARS = 150
MAX_INDEX_BYTES = 512 * 1024  # 200 lines x 150 chars is ~30 KB; far beyond that is not an index
# Which entries keep their index line when not all fit: the order recall ranks types in
# (kioku.memory.recall.TYPE_WEIGHT), corrections of behaviour first.
TYPE_PRIORITY = ("feedback", "user", "project", "reference")
MOVED_PREFIX = f"{INDEX_NAME}.hand-written-"

TITLE = "# Memory index"
HELP_COMMENT = (
    "<!-- Kioku memory index: one line per memory, `- [type] summary → topic-file.md`; the full "
    "text lives in the topic files. `kioku organize --repair` rebuilds this file from them. -->"
)

_ENTRY_SOURCE = (
    r"^\s*[-*]\s+\[(user|project|feedback|reference)\]\s+(.*?)\s*(?:(?:→|->)\s*([^\s/\\]+\.md))?\s*$"
)
_entry_re: re.Pattern[str] | None = None


def entry_re() -> re.Pattern[str]:
    """The entry regex, compiled on first use (Kioku's own lines never need it)."""
    global _entry_re
    if _entry_re is None:
        _entry_re = re.compile(_ENTRY_SOURCE, re.IGNORECASE)
    return _entry_re


def __getattr__(name: str):  # ``ENTRY_RE`` stays importable, compiled lazily
    if name == "ENTRY_RE":
        return entry_re()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SECTION_RE = re.compile(r"^##\s+(.+?)\s*#*\s*$")
ARROW = " → "


def entry_groups(line: str) -> tuple[str, str, str | None] | None:
    """``ENTRY_RE.match(line).groups()`` (type as written, summary, topic or None), or None.

    Lines as Kioku writes them (``- [type] summary → topic.md``) are split with string
    methods; the regex (whose lazy summary makes it the slowest step of reading a full index)
    runs only for anything else, so both give the same answer.
    """
    if line.startswith("- ["):
        close = line.find("] ", 3)
        if close > 0 and line[3:close] in SECTIONS:
            rest = line[close + 2:]
            cut = rest.rfind(ARROW)
            if cut > 0 and not rest[0].isspace() and not rest[cut - 1].isspace():
                topic = rest[cut + 3:]
                if len(topic) > 3 and topic.endswith(".md") and "/" not in topic and "\\" not in topic \
                        and "".join(topic.split()) == topic:  # no whitespace
                    return line[3:close], rest[:cut], topic
    if line.lstrip()[:1] not in ("-", "*"):  # the regex needs one of them first
        return None
    match = entry_re().match(line)
    return match.groups() if match else None  # type: ignore[return-value]


class IndexUnreadable(Exception):
    """MEMORY.md exists but is not a text index (encoding, NUL bytes, size)."""


class IndexEntry:
    # plain classes, not dataclasses, on the hook paths: importing dataclasses pulls in
    # inspect (~10 ms), a good part of a hook's budget
    __slots__ = ("type", "summary", "topic", "hand")

    def __init__(self, type: str, summary: str, topic: str) -> None:
        self.type, self.summary, self.topic = type, summary, topic
        self.hand = False  # entry-shaped, but no memory in the topic files is behind it

    def __repr__(self) -> str:
        return f"IndexEntry({self.line!r})"

    @property
    def line(self) -> str:
        return f"- [{self.type}] {self.summary} → {self.topic}"


def same_summary(index_summary: str, entry_summary: str) -> bool:
    """Whether an index line's summary names this entry: the same words, or the line's cut-off
    ("…") start of them (summaries write "→" as "->", so the line's arrow stays the topic's)."""
    entry_summary = entry_summary.replace("→", "->")
    if index_summary == entry_summary:
        return True
    return index_summary.endswith("…") and entry_summary.startswith(index_summary[:-1].rstrip())


_RULE_CHARS = frozenset("-*_=`~|: ")


def index_notes(lines: list[str]) -> list[tuple[int, str, str, str | None, bool]]:
    """What MEMORY.md remembers, line by line: ``(line number, type, text, topic file, entry)``.

    Kioku's entries (``entry`` True: the summary and its topic file) and the notes a person
    wrote there by hand (``entry`` False: the line's text without its list marker, typed by
    the section it stands in, "" outside the four sections). The title, headings, HTML
    comments (also where they open or close inside a line), blank lines, rules (``---``) and
    fenced code blocks are not notes.
    """
    out: list[tuple[int, str, str, str | None, bool]] = []
    section = ""
    in_comment = in_fence = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if in_fence:
            in_fence = not line.startswith(("```", "~~~"))
            continue
        if not in_comment and line.startswith("- ["):
            # Kioku's entries are whole lines of their own: a "<!--" in one (written before
            # summaries escaped it) is its text, not a comment hiding the lines after it
            groups = entry_groups(line)
            if groups and groups[2] and groups[1].strip():
                out.append((number, groups[0].lower(), groups[1].strip(), groups[2], True))
                continue
        if in_comment or "<!--" in line:
            line, in_comment = _outside_comments(line, in_comment)
            line = line.strip()
        if line.startswith(("```", "~~~")):
            in_fence = True
            continue
        if line.startswith("#"):
            heading = SECTION_RE.match(line) if line.startswith("##") else None
            if heading:
                section = SECTION_TYPES.get(heading.group(1).strip().lower(), "")
            continue
        if not line or set(line) <= _RULE_CHARS:
            continue
        groups = entry_groups(line)
        if groups and groups[1].strip():
            out.append((number, groups[0].lower(), groups[1].strip(), groups[2], True))
            continue
        text = line[2:].strip() if line[:2] in ("- ", "* ", "+ ") else line
        if text:
            out.append((number, section, text, None, False))
    return out


def redacted_index_lines(lines: list[str]) -> list[str]:
    """MEMORY.md's lines with secrets redacted (``kioku.text.secrets.redact_notes``): notes written
    by hand were never checked, and a secret can span their lines; Kioku's own entries were
    checked when saved, so only the other lines are looked at across line breaks."""
    from kioku.text.secrets import redact_notes

    return redact_notes(lines, [entry_groups(line) is None for line in lines])


def _outside_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """The parts of ``line`` outside HTML comments, and whether a comment is still open after it."""
    kept: list[str] = []
    pos = 0
    while pos < len(line):
        if in_comment:
            close = line.find("-->", pos)
            if close < 0:
                return "".join(kept), True
            pos, in_comment = close + 3, False
        else:
            opening = line.find("<!--", pos)
            if opening < 0:
                kept.append(line[pos:])
                break
            kept.append(line[pos:opening])
            pos, in_comment = opening + 4, True
    return "".join(kept), in_comment


class IndexDoc:
    def __init__(self) -> None:
        self.entries: list[IndexEntry] = []
        self.extras: dict[str, list[str]] = {}  # section key -> verbatim lines
        self.other_sections: list[tuple[str, list[str]]] = []
        # set once MemoryDir.mark_hand has judged every entry loaded from the file; entries added
        # afterwards are Kioku's own (hand False), so a write need not judge them again
        self.hand_marked = False

    def render(self) -> str:
        lines = [TITLE, HELP_COMMENT, ""]
        for key in [""]:
            if self.extras.get(key):
                lines.extend(self.extras[key])
                lines.append("")
        for type_ in TYPES:
            lines.append(f"## {SECTIONS[type_]}")
            lines.extend(e.line for e in self.entries if e.type == type_)
            lines.extend(self.extras.get(type_, []))
            lines.append("")
        for title, body in self.other_sections:
            lines.append(f"## {title}")
            lines.extend(body)
            lines.append("")
        return "\n".join(lines).rstrip("\n") + "\n"

    def line_count(self) -> int:
        return self.render().count("\n")

    def entry_line_count(self) -> int:
        """Lines of Kioku's own entries, without hand-written lines (those give way when the
        index is full)."""
        bare = IndexDoc()
        bare.entries = [e for e in self.entries if not e.hand]
        return bare.line_count()

    def hand_written(self) -> int:
        """Lines written by hand: extras, other sections (with their headings), entry-shaped
        lines with no memory behind them."""
        return (sum(len(lines) for lines in self.extras.values())
                + sum(len(body) + 1 for _, body in self.other_sections)
                + sum(1 for e in self.entries if e.hand))

    def render_moved(self, when: str) -> str:
        """The hand-written lines of this index under their section headings: the file they
        are moved to when the index would pass ``MAX_LINES``."""
        lines = ["# Lines moved out of MEMORY.md",
                 f"<!-- Kioku moved these hand-written lines here on {when}: with them MEMORY.md would have "
                 f"passed {MAX_LINES} lines. Nothing else was changed; keep what matters in a memory "
                 "(`kioku remember`) or a topic file. -->", ""]
        if self.extras.get(""):
            lines.extend([*self.extras[""], ""])
        for type_ in TYPES:
            mine = [e.line for e in self.entries if e.hand and e.type == type_] + self.extras.get(type_, [])
            if mine:
                lines.extend([f"## {SECTIONS[type_]}", *mine, ""])
        for title, body in self.other_sections:
            lines.extend([f"## {title}", *body, ""])
        return "\n".join(lines).rstrip("\n") + "\n"

    def find(self, topic: str, summary: str) -> int:
        for i, entry in enumerate(self.entries):
            if entry.topic == topic and entry.summary == summary:
                return i
        return -1


def format_entry(type_: str, text: str, topic: str) -> IndexEntry:
    """An index entry whose rendered line fits ``MAX_LINE_CHARS``."""
    overhead = len(f"- [{type_}]  → {topic}")
    return IndexEntry(type_, summarize(text, max(MAX_LINE_CHARS - overhead, 20)), topic)


def parse_index(text: str) -> IndexDoc:
    doc = IndexDoc()
    section = ""  # before the first heading
    other: list[str] | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("# ") and not line.startswith("## ") and line.strip() == TITLE:
            continue
        if line.strip() == HELP_COMMENT:
            continue
        heading = SECTION_RE.match(line) if line.startswith("##") else None
        if heading:
            name = heading.group(1).strip()
            if name.lower() in SECTION_TYPES:
                section, other = SECTION_TYPES[name.lower()], None
            else:
                other = []
                doc.other_sections.append((name, other))
            continue
        if not line.strip():
            continue
        groups = entry_groups(line) if other is None else None
        if groups and groups[2] and groups[1]:
            # a line written before summaries escaped "<!--" reads as Kioku writes it now
            doc.entries.append(IndexEntry(groups[0].lower(), escape_comment_opener(groups[1]), groups[2]))
        elif other is not None:
            other.append(line)
        else:
            doc.extras.setdefault(section, []).append(line)
    return doc


def read_index_text(path: Path) -> str | None:
    """Text of MEMORY.md, None if absent; raises IndexUnreadable if it is not a sane index."""
    from kioku.infra.fsutil import NotRegularFile, read_regular

    try:
        data = read_regular(path, MAX_INDEX_BYTES)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise IndexUnreadable(f"{path.name} is not a regular file") from None
    except IsADirectoryError:
        raise IndexUnreadable(f"{path.name} is a folder, not a file") from None
    if len(data) > MAX_INDEX_BYTES:
        size = path.stat().st_size
        raise IndexUnreadable(f"{path.name} is {size} bytes (limit {MAX_INDEX_BYTES})")
    if b"\x00" in data:
        raise IndexUnreadable(f"{path.name} contains NUL bytes")
    try:
        # A byte order mark (Windows editors add one) is not part of the first line.
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise IndexUnreadable(f"{path.name} is not valid UTF-8 (byte {exc.start})") from None
