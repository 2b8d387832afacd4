"""The save path of the memory-system: ``remember`` and its duplicate rules (stdlib only).

Kept apart from ``kioku.memory.api`` (which re-exports it) so that reading memory
(``build_recall`` on SessionStart) does not import the save machinery: classify,
contradict, guard, store and topics cost several ms of a hook's start-up.
"""

from __future__ import annotations

from kioku.infra.disk import disk_full
from kioku.infra.errors import DiskFull, UsageError
from kioku.infra.sha import sha256
from kioku.memory.folders import target_dir
from kioku.memory.classify import classify_type, pick_topic
from kioku.memory.contradict import assess, could_flag, fold
from kioku.memory.guard import ensure_rememberable
from kioku.memory.index import MAX_LINES, TYPES, WARN_LINES, format_entry
from kioku.memory.store import index_entry_for
from kioku.infra.clock import now_iso, today
from kioku.memory.textutil import jaccard, normalize, stem, token_set
from kioku.memory.topics import Entry, new_topic, read_topic, slugify_topic, topic_path, unique_id
from kioku.memory.written import record_entries
from kioku.memory.wanted import want_enrichment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DUPLICATE_JACCARD = 0.8


def request_key(scope: str, type_: str, topic: str, text: str) -> str:
    """The idempotency key of one ``remember`` request, kept on the memory it saved (``request=``): a retry of
    the same request (same folder, type, topic and words) finds that memory and saves nothing."""
    body = "\x1f".join((scope, type_, topic, normalize(text)))
    return sha256(body.encode("utf-8")).hexdigest()[:12]


class SaveResult:
    """What ``remember`` did. A plain class: importing dataclasses costs the hook ~10 ms."""

    FIELDS = ("status", "type", "summary", "topic_file", "index_line", "superseded", "scope", "id", "indexed",
              "warnings")

    def __init__(self, status: str, type: str, summary: str, topic_file: str, index_line: str,
                 superseded: list[str] | None = None, scope: str = "project", id: str = "",
                 indexed: bool = True, warnings: list[str] | None = None) -> None:
        self.status = status  # "saved" | "duplicate" | "superseded"
        self.type = type
        self.summary = summary
        self.topic_file = topic_file
        self.index_line = index_line
        self.superseded: list[str] = superseded or []
        self.scope = scope  # "project" | "user"
        self.id = id
        self.indexed = indexed
        self.warnings: list[str] = warnings or []

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.FIELDS}

    def __repr__(self) -> str:
        return f"SaveResult({self.to_dict()!r})"


def _hand_notes(doc) -> list[str]:
    """The notes written by hand in a loaded index (``IndexDoc``): its lines that are not entries."""
    from kioku.memory.index import index_notes

    lines = [line for body in doc.extras.values() for line in body]
    lines += [line for _title, body in doc.other_sections for line in body]
    return [text for _n, _t, text, _topic, entry in index_notes(lines) if not entry] if lines else []


def _quoted(note: str) -> str:
    """A hand-written note as a save may quote it: it was never checked, and a committed
    MEMORY.md can come from anyone with access to the repository, so it is redacted and
    defanged (which also strips control characters)."""
    from kioku.text.defang import defang
    from kioku.text.secrets import redact

    return defang(redact(note))


def _for_agent(md, topic_name: str, entry: Entry) -> str:
    """An older memory's summary as the confirmation may show it to the agent: a project memory
    not written on this machine that asks the agent to act is named by a placeholder instead
    (``kioku.memory.screen``)."""
    if md.scope != "project":
        return entry.summary
    from kioku.memory.screen import screened_summary

    return screened_summary(md.base, topic_name, entry.summary, entry.text, entry.id)


def _note_for_agent(md, note: str) -> str:
    if md.scope != "project":
        return note
    from kioku.memory.screen import screened_note

    return screened_note(md.base, note)


# Words whose addition says nothing new ("we use pnpm now" repeats "we use pnpm"), as stems.
_NOT_DETAIL = frozenset(stem(w) for w in ("now", "also", "too", "please", "still", "just", "really",
                                          "actually", "currently", "always", "important", "yes", "ok",
                                          "okay", "note", "fyi", "btw", "remember", "so", "hey", "anyway"))


def _says_something(token: str) -> bool:
    """A word that adds to what a memory says: not filler, and not kana alone (a Japanese
    particle or ending such as よ or ですね)."""
    if token in _NOT_DETAIL:
        return False
    return token.isascii() or any(not ("\u3040" <= ch <= "\u30ff") for ch in token)


def is_duplicate(new_text: str, new_tokens: set[str], old_text: str) -> bool:
    if new_tokens and old_text.isascii():
        # Cheap bound first (the save path compares with every memory in the folder): each
        # token of an ASCII text is a substring of its lower-cased form, and Jaccard ≤
        # |new ∩ old| / |new|, so too few new tokens inside the old text rules it out (equal
        # normalised texts have equal token sets, so that case is ruled out as well).
        low = old_text.lower()
        hits = sum(1 for token in new_tokens if token in low)
        if hits / len(new_tokens) < DUPLICATE_JACCARD:
            return False
    if normalize(new_text) == normalize(old_text):
        return True
    old_tokens = token_set(old_text)
    if jaccard(new_tokens, old_tokens) < DUPLICATE_JACCARD:
        return False
    # Near-identical wording is a duplicate only if no word was swapped for another: "the docs
    # package" after "the web package" is a new fact, however long the shared sentence. Nor
    # when it keeps every word and adds one that says more: "we deploy with fly.io on Mondays"
    # after "we deploy with fly.io" is saved beside it (not in its place: "in CI" after "we
    # run the unit tests with pytest" may narrow the old memory rather than refine it).
    added = {stem(t) for t in new_tokens - old_tokens}
    dropped = {stem(t) for t in old_tokens - new_tokens}
    swapped = added - dropped and dropped - added
    says_more = not dropped and any(_says_something(token) for token in added)
    return not (swapped or says_more)


def _folded_file(data: bytes) -> str | None:
    """A topic file's text folded as the comparisons fold a memory's text, or None when it
    cannot be (the file is then parsed as usual).

    NFKC, lower case, ’ → '. A newline is a normalisation boundary, so only lines that are not
    ASCII need NFKC (the whole file costs ~3 ms). NUL bytes are dropped by the parser, which
    could join two words, and damaged files are parsed as usual.
    """
    if b"\x00" in data:
        return None
    if data.isascii():
        return data.decode("ascii").lower()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    import unicodedata

    return "\n".join(line if line.isascii() else unicodedata.normalize("NFKC", line)
                     for line in text.split("\n")).lower().replace("’", "'")


def _unrelated_file(tokens: set[str], flaggable):  # -> Callable[[bytes], bool] | None
    """A test for a whole topic file's bytes: True when no entry in it can be a duplicate of a
    memory with these tokens (the ``is_duplicate`` bound: every entry's tokens are substrings
    of its folded text, so too few of them in the whole file rules out every entry) and
    ``flaggable`` (what ``kioku.memory.contradict.could_flag`` returns for the new memory) rules
    out a contradiction, so the file need not be parsed."""
    if not tokens:
        return None

    def skip(data: bytes) -> bool:
        low = _folded_file(data)
        if low is None:
            return False
        if sum(1 for token in tokens if token in low) / len(tokens) >= DUPLICATE_JACCARD:
            return False
        return not flaggable(low)

    return skip


def _assess_entry(new: str, entry: Entry) -> tuple[str, str] | None:
    """``assess`` against a stored memory. A memory ``kioku organize`` merged holds several
    statements, one per line: it is replaced only when every one of them is; when only some
    are, both stay and the user is asked, so a correction of one part never drops the rest."""
    parts = entry.text.split("\n") if entry.meta.get("merged_from") else []
    if len(parts) < 2:
        return assess(new, entry.text)
    verdicts = [assess(new, part) for part in parts if part.strip()]
    said = [v for v in verdicts if v]
    if not said:
        return None
    if len(said) == len(verdicts) and all(v[0] == "replaces" for v in said):
        return said[0]
    return "unsure", f"{said[0][1]} (one part of a merged memory)"


def remember(text: str, type: str | None = None, topic: str | None = None,
             project_root: Path | None = None) -> SaveResult:
    """Save one memory; raises SecretRejected, MemoryRejected, UsageError or KiokuError."""
    cleaned = ensure_rememberable(text)
    type_ = (type or classify_type(cleaned)).lower()
    if type_ not in TYPES:
        raise UsageError(f"unknown memory type {type!r}: use one of {', '.join(TYPES)}")
    topic_name = slugify_topic(topic) if topic else pick_topic(cleaned, type_)
    md = target_dir(type_, project_root)
    path = topic_path(md.path, topic_name)
    tokens = token_set(cleaned)

    # topic files that can hold neither a duplicate nor a contradiction are left unparsed
    flaggable = could_flag(cleaned)
    skip = _unrelated_file(tokens, flaggable)
    with md.lock():
        topics = md.load_topics(skip=skip, keep=topic_name)
        doc = md.load_index(topics)
        old: list[tuple[str, Entry, str]] = []
        unsure: list[Entry] = []
        normal = normalize(cleaned)
        key = request_key(md.scope, type_, topic_name, cleaned)
        for name, entry in md.active_entries(topics):
            if entry.meta.get("request") == key:
                verdict = None  # the same request again (a retry): the memory it saved
            else:
                verdict = _assess_entry(cleaned, entry)
            if verdict and normalize(entry.text) == normal:
                verdict = None  # the same words again are the same memory, even when they say "now"
            if verdict and verdict[0] == "replaces":
                old.append((name, entry, verdict[1]))
            elif verdict:
                unsure.append(entry)
            elif entry.meta.get("request") == key or is_duplicate(cleaned, tokens, entry.text):
                line = index_entry_for(entry, name)
                notes = list(md.notices)
                if doc.find(name, line.summary) < 0 and doc.entry_line_count() + 1 <= MAX_LINES:
                    # a save killed between its topic file and the index left it unlisted, and
                    # the line of a memory it superseded in place
                    md.drop_stale_lines(doc, topics)
                    doc.entries.append(line)
                    try:
                        md.write_index(doc)
                        notes.append(f"it was missing from {md.index_path.name}; its line was added back")
                    except DiskFull as exc:
                        notes.append(f"it is missing from {md.index_path.name}, and {exc}")
                elif not md.index_path.exists():
                    md.write_index(doc)  # rebuilt from the topic files, this memory included
                return SaveResult("duplicate", entry.type, _for_agent(md, name, entry), str(md.path / name),
                                  line.line, scope=md.scope, id=entry.id, warnings=notes)

        # notes written by hand in MEMORY.md are memories too: the same note again is not saved
        # twice, and one the new memory may replace is named (Kioku never rewrites them)
        hand = _hand_notes(doc)
        for note in hand:
            if is_duplicate(cleaned, tokens, note):
                shown = _quoted(_note_for_agent(md, note))
                return SaveResult("duplicate", type_, shown, str(md.index_path), f"- {shown}", scope=md.scope,
                                  warnings=list(md.notices))
        # the same shortcut as for topic files: a note that cannot be flagged is not compared
        hand_conflicts = [note for note in hand if flaggable(fold(note)) and assess(cleaned, note)]

        created = now_iso()
        entry_id = unique_id(created, cleaned, {e.id for t in topics.values() for e in t.entries})
        index_entry = format_entry(type_, cleaned, topic_name)
        new = Entry(entry_id, type_, created, index_entry.summary, cleaned, meta={"request": key})
        if old:
            new.meta["supersedes"] = ",".join(e.id for _, e, _ in old)
        changed: dict[str, object] = {}
        for name, entry, reason in old:
            new.notes.append(f'Supersedes: {entry.id} "{entry.summary}" ({entry.date}; {reason})')
            stale = index_entry_for(entry, name)
            position = doc.find(name, stale.summary)
            if position >= 0:
                del doc.entries[position]
            entry.touch()
            entry.status = "superseded"
            entry.meta.update({"superseded_by": entry_id, "superseded_on": today()})
            entry.notes.append(f"(superseded {today()} by {entry_id}: {new.summary})")
            changed[name] = topics[name]

        target = topics.get(topic_name)
        if target is None:
            # exists but was skipped (too large, unreadable): read_topic raises the clear error
            # instead of us creating a fresh file over it
            target = read_topic(path) if path.exists() else new_topic(path, type_)
        if target.frontmatter is None and not target.entries and not target.salvaged.get("type"):
            target.salvaged["type"] = type_  # an emptied file takes the type of what it now holds
        target.entries.append(new)
        changed[topic_name] = target
        topics[topic_name] = target
        # recorded as written here before it is written: a crash leaves a digest nothing has,
        # never a memory of the user's that reads as arrived from elsewhere
        record_entries(md, [new])
        warnings: list[str] = []
        # topic files first (they are the source of truth), the new memory's own file before the
        # files of the memories it replaces: a write that fails part-way never leaves a memory
        # marked replaced by one that was not saved
        try:
            md.write_topic(target)
        except DiskFull as exc:
            raise disk_full(md.path, "the memory was not saved; free some space and say it again") from exc
        for name in sorted(n for n in changed if n != topic_name):
            try:
                md.write_topic(topics[name])
            except DiskFull as exc:
                warnings.append(f"saved, but {name} still shows the memory this one replaces as current ({exc})")

        if unsure:
            # Losing a true memory is the worse error: when it is unclear whether the new memory
            # replaces an older one, both stay and the user is told how to drop one.
            shown = "; ".join(f'"{_for_agent(md, "", e)}"' for e in unsure[:2])
            warnings.append(f"kept both this and {shown}; if one replaces the other, run `kioku forget`")
        if hand_conflicts:
            shown = "; ".join(f'"{_quoted(_note_for_agent(md, note))}"' for note in hand_conflicts[:2])
            warnings.append(f"a note written by hand in {md.index_path.name} says {shown}; edit it if this "
                            "memory replaces it")
        # At the limit the index keeps its lines by type priority (feedback first, then user,
        # project, reference; within a type the newest): the new line is added and write_index
        # leaves out whichever line ranks lowest, which may be this one.
        doc.entries.append(index_entry)
        try:
            md.write_index(doc)
            indexed = any(e is index_entry for e in doc.entries)
            unwritten = False
        except DiskFull as exc:
            indexed, unwritten = False, True
            warnings.append(f"saved in {topic_name}, but {exc}: the next save (or `kioku organize --repair`) "
                            f"lists it in {md.index_path.name}")
        if not indexed and not unwritten:
            warnings.append(f"memory index is full ({MAX_LINES} lines): saved in {topic_name} but not "
                            "listed in MEMORY.md; run `kioku organize` to merge or archive old entries")
        lines = doc.line_count()
        if indexed and lines >= WARN_LINES:
            warnings.append(f"memory index has {lines} of {MAX_LINES} lines; run `kioku organize`")
    want_enrichment(md, entry_id, project_root)  # a marker file: the worker asks a model later, if one may be

    return SaveResult("superseded" if old else "saved", type_, index_entry.summary, str(path),
                      index_entry.line, [_for_agent(md, name, e) for name, e, _ in old], md.scope, entry_id, indexed,
                      md.notices + warnings)
