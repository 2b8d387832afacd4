"""Topic files: YAML frontmatter + one Markdown section per memory (standard library only).

A topic file Kioku creates looks like::

    ---
    type: project
    created: 2026-11-29T19:40:00.123Z
    updated: 2026-11-29T19:41:07.456Z
    description: Project conventions remembered by Kioku
    ---

    # Project conventions

    ## 2026-11-29 Use bun, never npm
    <!-- kioku: id=5e6f7a8b type=project created=2026-11-29T19:41:07Z supersedes=1a2b3c4d -->
    Use bun, never npm.
    Supersedes: 1a2b3c4d "Use npm for installs" (2026-11-20)

The heading carries the same summary as the MEMORY.md line, which is how index lines and
entries are matched (and how the index is rebuilt). A superseded entry stays in place,
struck through and annotated, so nothing disappears silently.

Speed: the save path runs inside a hook, so frontmatter is parsed by a tiny line parser
(``key: value`` scalars, which is all Kioku writes) and the frontmatter block is kept
verbatim on rewrite except for the ``updated:`` line. Only frontmatter the tiny parser
cannot vouch for (nested values, lists) is checked with PyYAML, imported lazily. A file
whose frontmatter is broken, or which is not UTF-8, is repaired on the next write: the
original bytes are copied to ``<name>.corrupt-<time>`` first, so no data is lost. The body
is kept; the broken frontmatter lines are not (they are settings, not memories: turned into
body text, search would return them as notes). The repaired file gets fresh frontmatter
that keeps the broken block's ``type`` and ``created`` when they are still readable.
Headings written by hand (``## anything``) count as memories.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from pathlib import Path

from kioku.infra.errors import KiokuError, UsageError
from kioku.infra.clock import now_iso

MAX_TOPIC_BYTES = 4 * 1024 * 1024
STANDARD_TOPICS = {
    "user-preferences.md": ("user", "User preferences"),
    "project-conventions.md": ("project", "Project conventions"),
    "tech-decisions.md": ("project", "Technical decisions"),
    "feedback-history.md": ("feedback", "Feedback history"),
    "infrastructure-notes.md": ("reference", "Infrastructure notes"),
    "references.md": ("reference", "References"),
}
RESERVED = {"memory", "archive", "lock"}
# Device names Windows refuses as file names whatever the extension ("con.md" included).
WINDOWS_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)),
                              *(f"lpt{n}" for n in range(10))})

_HEADING = re.compile(r"^##\s+(.*\S)\s*$")
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+(.*)$")
_META = re.compile(r"^<!--\s*kioku:(.*?)-->\s*$")
_SUPERSEDED_TAIL = r"\s*\((?:superseded|merged|archived)\b[^)]*\)\s*$"  # re.sub caches it: only old entries need it
_SIMPLE_KEY = re.compile(r"^([A-Za-z_][\w-]*):(?:\s+(.*))?$")
NOTE_PREFIXES = ("Supersedes: ", "(superseded ", "Merged from: ", "(merged ", "(archived ")


class TopicFileError(KiokuError):
    """A topic file cannot be used as is (too large); nothing was written."""


class Entry:
    """One memory in a topic file (a plain class: dataclasses costs an inspect import)."""

    def __init__(self, id: str, type: str, created: str, summary: str, text: str, status: str = "active",
                 meta: dict[str, str] | None = None, notes: list[str] | None = None,
                 raw: list[str] | None = None, line: int = 0) -> None:
        self.id, self.type, self.created, self.summary, self.text = id, type, created, summary, text
        self.status = status  # active | superseded | merged | archived
        self.meta: dict[str, str] = meta if meta is not None else {}
        self.notes: list[str] = notes if notes is not None else []
        self.raw = raw  # verbatim lines while unchanged (keeps hand edits intact)
        self.line = line  # 1-based line of the heading in the file it was read from

    def __repr__(self) -> str:
        return f"Entry({self.id!r}, {self.type!r}, {self.summary!r}, status={self.status!r})"

    @property
    def date(self) -> str:
        return self.created[:10]

    def render(self) -> list[str]:
        if self.raw is not None:
            return list(self.raw)
        meta = {"id": self.id, "type": self.type, "created": self.created}
        if self.status != "active":
            meta["status"] = self.status
        meta.update({k: v for k, v in self.meta.items() if k not in meta and v})
        comment = "<!-- kioku: " + " ".join(f"{k}={_meta_value(v)}" for k, v in meta.items()) + " -->"
        body = [escape_line(line) for line in self.text.strip("\n").splitlines()] or [""]
        if self.status == "active":
            heading = f"## {self.date} {self.summary}"
        else:
            by, on = self.meta.get(f"{self.status}_by", ""), self.meta.get(f"{self.status}_on", "")
            tail = f"({self.status} {on}" + (f" by {by})" if by else ")")
            if self.status == "archived":  # archived on request: still true, just put away
                heading = f"## {self.date} {self.summary} {tail}"
            else:  # superseded / merged: visibly no longer current
                heading = f"## {self.date} ~~{self.summary}~~ {tail}"
                body = [f"~~{line}~~" if line.strip() else line for line in body]
        return [heading, comment, *body, *self.notes, ""]

    def touch(self) -> None:
        """Mark as changed so it is re-rendered from fields instead of the raw lines."""
        self.raw = None


def _needs_escape(line: str) -> bool:
    return line.startswith(("#", "<!--", "---")) or line.startswith(NOTE_PREFIXES)


def escape_line(line: str) -> str:
    """Memory text is data: a line that would read as a heading, our metadata comment or a
    note is written with a leading backslash (Markdown shows it literally)."""
    if _needs_escape(line) or (line.startswith("\\") and _needs_escape(line[1:])):
        return "\\" + line
    return line


def unescape_line(line: str) -> str:
    if line.startswith("\\") and (_needs_escape(line[1:]) or (line.startswith("\\\\") and _needs_escape(line[2:]))):
        return line[1:]
    return line


def _meta_value(value: str) -> str:
    return re.sub(r"[\s>]+", "_", str(value))


def make_id(created: str, text: str) -> str:
    # crc32, not hashlib: importing hashlib loads OpenSSL (~10-20 ms) on the hook save path;
    # ids only need to be short and distinct within one memory folder.
    return f"{zlib.crc32(f'{created}|{text}'.encode('utf-8')):08x}"


def unique_id(created: str, text: str, taken: set[str]) -> str:
    """``make_id``, salted until it is not in ``taken`` (the folder's ids): the same text saved
    again within a second (after it was superseded) must not share its old entry's id."""
    entry_id, salt = make_id(created, text), 0
    while entry_id in taken:
        salt += 1
        entry_id = make_id(f"{created}#{salt}", text)
    return entry_id


def fresh_id(old: str, created: str, content: str, taken: set[str]) -> str:
    """The id an entry repeating ``old`` gets (``content``: its summary and text, a line apart)."""
    new = unique_id(created, content, taken)
    if old.startswith("h"):  # an entry without a comment line: its id is derived, never written
        new = "h" + new[:7]
        while new in taken:
            new = "h" + make_id(new, content)[:7]
    return new


def distinct_ids(entries: list[Entry], taken: set[str]) -> list[tuple[str, str]]:
    """Give each entry whose id is already in ``taken`` (an earlier entry's) a new one.

    A block copied by hand keeps its ``<!-- kioku: id=... -->`` line, and two memories with one
    id would be forgotten, merged or edited together. The first entry keeps the id; a later one
    gets ``unique_id`` of its own date and text, so every load of the same files gives it the
    same new id, and its comment line is changed with it (the next write of the file keeps it).
    ``taken`` grows with every entry's id. Returns the (old id, new id) pairs.
    """
    changed: list[tuple[str, str]] = []
    for entry in entries:
        if entry.id in taken:
            old = entry.id
            new = entry.id = fresh_id(old, entry.created, f"{entry.summary}\n{entry.text}", taken)
            if entry.raw and len(entry.raw) > 1 and _META.match(entry.raw[1].strip()):
                entry.raw[1] = re.sub(rf"(?<=\bid=){re.escape(old)}(?=\s|-->)", new, entry.raw[1], count=1)
            changed.append((old, new))
        taken.add(entry.id)
    return changed


class TopicFile:
    def __init__(self, path: Path, frontmatter: list[str] | None = None, preamble: list[str] | None = None,
                 entries: list[Entry] | None = None, broken: str = "", original: bytes | None = None) -> None:
        self.path = path
        self.frontmatter = frontmatter  # verbatim lines between the --- delimiters
        self.preamble: list[str] = preamble if preamble is not None else []
        self.entries: list[Entry] = entries if entries is not None else []
        self.broken = broken  # why the file needs repair on the next write ("" = fine)
        self.original = original
        # ``type`` / ``created`` still readable in a broken frontmatter block, for the fresh one
        self.salvaged: dict[str, str] = {}
        # (old id, new id) of entries that repeated an earlier entry's id (see distinct_ids)
        self.renumbered: list[tuple[str, str]] = []

    @property
    def name(self) -> str:
        return self.path.name

    def fm(self) -> dict[str, str]:
        return simple_frontmatter(self.frontmatter or [])

    def active(self) -> list[Entry]:
        return [e for e in self.entries if e.status == "active"]

    def render(self, updated: str | None = None) -> str:
        updated = updated or now_iso(millis=True)
        if self.frontmatter is not None:
            fm = list(self.frontmatter)
        else:
            fm = new_frontmatter(self.path.name, updated, self.salvaged.get("type"))
            if self.salvaged.get("created"):
                fm[1] = f"created: {self.salvaged['created']}"
        for i, line in enumerate(fm):
            if line.startswith("updated:"):
                fm[i] = f"updated: {updated}"
                break
        else:
            fm.append(f"updated: {updated}")
        out = ["---", *fm, "---", ""]
        preamble = list(self.preamble)
        while preamble and not preamble[-1].strip():
            preamble.pop()
        while preamble and not preamble[0].strip():
            preamble.pop(0)
        if preamble:
            out.extend([*preamble, ""])
        for entry in self.entries:
            out.extend(entry.render())
        return "\n".join(out).rstrip("\n") + "\n"


def default_type(topic_name: str) -> str:
    return STANDARD_TOPICS.get(topic_name, ("project", ""))[0]


def new_frontmatter(topic_name: str, when: str, type_: str | None = None) -> list[str]:
    type_ = type_ or default_type(topic_name)
    title = STANDARD_TOPICS.get(topic_name, (type_, topic_name[:-3].replace("-", " ").capitalize()))[1]
    return [f"type: {type_}", f"created: {when}", f"updated: {when}",
            f"description: {title} remembered by Kioku"]


def new_topic(path: Path, type_: str) -> TopicFile:
    when = now_iso(millis=True)
    title = STANDARD_TOPICS.get(path.name, (type_, path.name[:-3].replace("-", " ").capitalize()))[1]
    return TopicFile(path, new_frontmatter(path.name, when, type_), [f"# {title}"], [])


def simple_frontmatter(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        match = _SIMPLE_KEY.match(line)
        if match:
            out[match.group(1)] = (match.group(2) or "").strip().strip("'\"")
    return out


def _frontmatter_ok(lines: list[str]) -> bool:
    """True if the block is valid YAML mapping; tiny check first, PyYAML only if needed."""
    complex_ = False
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t-":
            complex_ = True
            continue
        match = _SIMPLE_KEY.match(line)
        if not match:
            return False
        value = (match.group(2) or "").strip()
        if value[:1] in "[{\"'|>&*!%@`":
            complex_ = True
    if not complex_:
        return True
    try:
        import yaml  # lazy: only hand-edited files with nested YAML get here

        data = yaml.safe_load("\n".join(lines))
    except Exception:
        return False
    return data is None or isinstance(data, dict)


def parse_topic(path: Path, data: bytes) -> TopicFile:
    """Parse a topic file's bytes; never raises (problems are recorded in ``broken``)."""
    topic = TopicFile(path, original=data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        topic.broken = f"not valid UTF-8 (byte {exc.start})"
    text = text.replace("\x00", "").removeprefix("\ufeff")  # a byte order mark is not text
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, min(len(lines), 200)) if lines[i].strip() in ("---", "...")), None)
        if end is None:
            topic.broken = topic.broken or "frontmatter has no closing ---"
            start = _settings_run(lines, 1)  # the key: value block after the opening ---
            topic.salvaged = _salvage(lines[1:start])
        elif not _frontmatter_ok(lines[1:end]):
            topic.broken = topic.broken or "frontmatter is not valid YAML"
            topic.salvaged = _salvage(lines[1:end])
            start = end + 1
        else:
            topic.frontmatter = lines[1:end]
            start = end + 1
    elif text.strip():
        topic.broken = topic.broken or "no frontmatter"
    settings = simple_frontmatter(topic.frontmatter) if topic.frontmatter is not None else topic.salvaged
    file_type = settings.get("type") or default_type(path.name)
    file_created = settings.get("created", "")
    current: list[str] | None = None
    current_line = 0
    for number, line in enumerate(lines[start:], start=start + 1):
        if line.startswith("##") and _HEADING.match(line):  # startswith: most lines are not headings
            if current is not None:
                topic.entries.append(_parse_entry(current, current_line, file_type, file_created))
            current, current_line = [line], number
        elif current is None:
            topic.preamble.append(line)
        else:
            current.append(line)
    if current is not None:
        topic.entries.append(_parse_entry(current, current_line, file_type, file_created))
    topic.renumbered = distinct_ids(topic.entries, set())
    return topic


def _settings_run(lines: list[str], start: int) -> int:
    """End of the frontmatter-like block from ``start`` when the closing ``---`` is missing:
    ``key: value`` lines and their indented or ``- item`` continuations, up to the first
    blank line, heading or other text."""
    end = start
    while end < len(lines):
        line = lines[end]
        if not line.strip() or line.startswith("#") or not (_SIMPLE_KEY.match(line) or line[0] in " \t-"):
            break
        end += 1
    return end


def _salvage(lines: list[str]) -> dict[str, str]:
    """``type`` and ``created`` of a broken frontmatter block, when they are still plain and valid."""
    found = simple_frontmatter([line for line in lines if line[:1] not in " \t-"])
    out: dict[str, str] = {}
    if found.get("type", "").lower() in ("user", "project", "feedback", "reference"):
        out["type"] = found["type"].lower()
    if re.match(r"^\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?$", found.get("created", "")):
        out["created"] = found["created"]
    return out


def _parse_entry(lines: list[str], line_no: int, file_type: str, file_created: str) -> Entry:
    heading = _HEADING.match(lines[0]).group(1)  # type: ignore[union-attr]
    body = lines[1:]
    meta: dict[str, str] = {}
    found = _META.match(body[0].strip()) if body and "<!--" in body[0] else None
    if found:
        for part in found.group(1).split():
            key, _, value = part.partition("=")
            if key:
                meta[key] = value
        body = body[1:]
    dated = _DATED.match(heading)
    date, summary = (dated.group(1), dated.group(2)) if dated else ("", heading)
    status = meta.pop("status", "active")
    if status != "active":
        summary = re.sub(_SUPERSEDED_TAIL, "", summary)
        if summary.startswith("~~") and summary.endswith("~~") and len(summary) > 4:
            summary = summary[2:-2]
    notes: list[str] = []
    text_lines: list[str] = []
    for line in body:
        (notes if line.startswith(NOTE_PREFIXES) else text_lines).append(line)
    if status != "active":
        text_lines = [line[2:-2] if line.startswith("~~") and line.endswith("~~") and len(line) > 4 else line
                      for line in text_lines]
    text = "\n".join(unescape_line(line) if line.startswith("\\") else line for line in text_lines).strip("\n")
    created = meta.pop("created", "") or (f"{date}T00:00:00Z" if date else file_created or now_iso())
    type_ = meta.pop("type", "") or file_type
    entry_id = meta.pop("id", "") or "h" + make_id(created, heading + "\n" + text)[:7]
    raw = list(lines)
    while raw and not raw[-1].strip():
        raw.pop()
    raw.append("")
    return Entry(entry_id, type_ if type_ in ("user", "project", "feedback", "reference") else file_type,
                 created, summary.strip(), text or summary.strip(), status, meta, notes, raw, line_no)


def read_topic_bytes(path: Path) -> bytes:
    """The bytes of a topic file; TopicFileError for a file too large to be memory notes or one
    that is not a regular file (a FIFO would block the read)."""
    from kioku.infra.fsutil import NotRegularFile, read_regular

    try:
        data = read_regular(path, MAX_TOPIC_BYTES)
    except (NotRegularFile, IsADirectoryError):  # a FIFO, a device or a folder in its place
        raise TopicFileError(f"topic file {path.name} is not a regular file; Kioku leaves it alone") from None
    if len(data) > MAX_TOPIC_BYTES:
        size = path.stat().st_size
        raise TopicFileError(
            f"topic file {path.name} is too large ({size // 1024} KB, limit {MAX_TOPIC_BYTES // 1024} KB); "
            "split it by hand or use --topic NEW-NAME"
        )
    return data


def read_topic(path: Path) -> TopicFile:
    """Read and parse; raises TopicFileError for files too large to be memory notes."""
    return parse_topic(path, read_topic_bytes(path))


def slugify_topic(name: str) -> str:
    """A safe topic file name (``<slug>.md``) for ``name``; UsageError if it cannot be one.

    Path separators, NUL, and names that are only dots are rejected outright (they are
    attempts to leave the memory folder, not typos); anything else odd (spaces, punctuation,
    control or bidi characters) is folded into a lower-case slug; Japanese letters are kept.
    Names that look like a credential (``SecretRejected``) and Windows device names (``con``,
    ``nul``, ``com1`` ...) are refused.
    """
    raw = name or ""
    from kioku.text.secrets import ensure_storable

    ensure_storable(raw, what="the topic name")  # a topic name becomes a file name and an index line
    if "\x00" in raw or "/" in raw or "\\" in raw or raw.strip().strip(".") == "":
        raise UsageError(f"invalid topic name {raw!r}: use a plain name such as 'release-process'")
    text = unicodedata.normalize("NFKC", raw).strip()
    if text.lower().endswith(".md"):
        text = text[:-3]
    text = text.lower().replace("_", "-")
    text = re.sub(r"\s+", "-", text)
    text = "".join(ch for ch in text if ch == "-" or (ch.isalnum() and unicodedata.category(ch)[0] in "LN"))
    text = re.sub(r"-{2,}", "-", text).strip("-")[:60].strip("-")
    if not text or text in RESERVED:
        raise UsageError(f"invalid topic name {raw!r}: use a plain name such as 'release-process'")
    if text in WINDOWS_RESERVED:
        raise UsageError(f"invalid topic name {raw!r}: {text} is a reserved device name on Windows; "
                         "use a plain name such as 'release-process'")
    return text + ".md"


def topic_path(memory_dir: Path, file_name: str) -> Path:
    """Path of a topic file inside ``memory_dir``; refuses anything that would leave it, and a
    topic file that is a symbolic link (``SymlinkRefused``, naming the link: links are never
    followed, wherever they point)."""
    path = memory_dir / file_name
    if path.parent != memory_dir or path.name != file_name:
        raise UsageError(f"invalid topic file {file_name!r}")
    if path.is_symlink():
        from kioku.infra.fsutil import refuse_symlink

        refuse_symlink(memory_dir, path)
    if path.resolve().parent != memory_dir.resolve():
        raise UsageError(f"invalid topic file {file_name!r}")
    return path
