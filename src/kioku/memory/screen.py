"""Whether a project memory may reach the agent, and where it came from (standard library only).

One rule, :func:`decide`, used by every path that shows memory to a model (recall at
SessionStart and ``kioku recall``, ``kioku search``, the save confirmations) and by the views
that list what it holds back (``kioku trust``, ``kioku doctor``, the web UI):

- a memory Kioku wrote on this machine (``kioku.memory.written``) is shown as it is;
- any other project memory - committed by someone else, edited by hand, written by another
  program - is shown with its provenance (author and commit, from ``git blame`` of its lines),
  unless it asks the agent to act (``kioku.memory.directives``): then it is withheld until the
  user trusts its exact content (``kioku.memory.trusted``, ``kioku trust``).

User memory (``~/.agents/memory``) is the user's own and is never screened; neither is a project
whose memory folder is the user-wide one (the home folder).

:class:`ProjectScreen` reads a project's record, trusts and topic files once. What is costly and
stays the same while the files do is cached in ``<state>/memory-screen/<place>.json``: the rule
set's verdict per content digest, ``git blame`` per file (``kioku.memory.provenance``), and which
topic files hold only memories written here, so a warm SessionStart starts no process and parses
no topic file of the user's own.
"""

from __future__ import annotations

import os

from kioku.infra import fsutil, pathstr
from kioku.memory.provenance import Origin, Provenance, signature
from kioku.memory.written import WrittenRecord, memory_digest, note_digest

CACHE_FOLDER = "memory-screen"
CACHE_VERSION = 1
MAX_CACHE_BYTES = 32 * 1024 * 1024
MAX_CACHED_VERDICTS = 4096
INDEX_NAME = "MEMORY.md"


class Verdict:
    """One memory as the screen sees it. ``ref`` is what ``kioku trust`` takes: the entry's id, or
    ``n-<digest>`` for a note written by hand."""

    __slots__ = ("ref", "file", "line", "end", "summary", "text", "digest", "local", "trusted", "kinds", "phrase",
                 "origin", "archived")

    def __init__(self, ref: str, file: str, line: int, end: int, summary: str, text: str, digest: str) -> None:
        self.ref, self.file, self.line, self.end = ref, file, line, end
        self.summary, self.text, self.digest = summary, text, digest
        self.local = self.trusted = self.archived = False
        self.kinds: tuple[str, ...] = ()
        self.phrase = ""
        self.origin: Origin | None = None

    @property
    def withheld(self) -> bool:
        return bool(self.kinds) and not self.local and not self.trusted

    @property
    def foreign(self) -> bool:
        return not self.local

    def why(self) -> str:
        from kioku.memory.directives import describe

        return describe(self.kinds)

    def __repr__(self) -> str:
        state = "local" if self.local else "withheld" if self.withheld else "trusted" if self.trusted else "foreign"
        return f"Verdict({self.ref!r}, {self.file}:{self.line}, {state}, {self.kinds})"


class Ledger:
    """What :func:`decide` consults: the written record, the trusts, the rule set's cached verdicts."""

    __slots__ = ("written", "trusted", "verdicts", "used", "changed")

    def __init__(self, written, trusted: dict[str, dict], verdicts: dict[str, list]) -> None:
        self.written, self.trusted, self.verdicts = written, trusted, verdicts
        self.used: set[str] = set()
        self.changed = False


def decide(verdict: Verdict, ledger: Ledger) -> Verdict:
    """The one rule: written here → shown; otherwise the rule set looks for a request to act, and
    what it finds keeps the memory from the agent unless the user trusted this exact content."""
    if verdict.digest in ledger.written:
        verdict.local = True
        return verdict
    verdict.trusted = verdict.digest in ledger.trusted
    ledger.used.add(verdict.digest)
    cached = ledger.verdicts.get(verdict.digest)
    if not (isinstance(cached, list) and len(cached) == 2 and isinstance(cached[0], list)):  # new, or damaged
        from kioku.memory.directives import find_directives

        found = find_directives(f"{verdict.summary}\n{verdict.text}")
        cached = [[d.kind for d in found], found[0].phrase if found else ""]
        ledger.verdicts[verdict.digest] = cached
        ledger.changed = True
    verdict.kinds, verdict.phrase = tuple(cached[0]), str(cached[1])
    return verdict


class ProjectScreen:
    """The screen of one project's memory folder; ``exempt`` when there is nothing to screen."""

    def __init__(self, project_root) -> None:
        self.root = os.path.realpath(os.fspath(project_root))
        self.folder = os.path.join(self.root, pathstr.MEMORY_SUBDIR)
        user = os.path.join(pathstr.user_home(), pathstr.MEMORY_SUBDIR)
        try:
            self.exempt = os.path.realpath(self.folder) == os.path.realpath(user) or not os.path.isdir(self.folder)
        except OSError:
            self.exempt = True
        self._ledger: Ledger | None = None
        self._cache: dict | None = None
        self._entries: dict[str, list[Verdict]] | None = None
        self._archived: dict[str, list[Verdict]] | None = None
        self._provenance: Provenance | None = None
        self._summaries: dict[str, dict[str, Verdict]] = {}

    # -- the record, trusts and cache ----------------------------------------------------------

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            from kioku.memory.trusted import trusted_digests

            cache = self._load_cache()
            verdicts = cache.get("verdicts") if isinstance(cache.get("verdicts"), dict) else {}
            self._ledger = Ledger(WrittenRecord(self.root), trusted_digests(self.root), verdicts)
        return self._ledger

    def _cache_path(self) -> str:
        from kioku.memory.written import place_keys

        return os.path.join(pathstr.state_dir(), CACHE_FOLDER, place_keys(self.root, remote=False)[0] + ".json")

    def _load_cache(self) -> dict:
        if self._cache is None:
            from kioku.infra.fastjson import loads
            from kioku.memory.directives import RULES_VERSION

            try:
                data = loads(fsutil.read_regular(self._cache_path(), MAX_CACHE_BYTES).decode("utf-8"))
            except (OSError, ValueError, IsADirectoryError):
                data = {}
            if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
                data = {}
            if data.get("rules") != RULES_VERSION:
                data["verdicts"] = {}
            data.setdefault("blame", {})
            data["rules"] = RULES_VERSION
            self._cache = data
        return self._cache

    def save(self) -> None:
        """Write the cache when something new was worked out (skipped while another process writes it)."""
        if self._cache is None or not (self._cache.get("dirty") or (self._ledger and self._ledger.changed)):
            return
        from kioku.infra.fastjson import dumps

        cache = self._cache
        cache.pop("dirty", None)
        verdicts = self._ledger.verdicts if self._ledger else cache.get("verdicts", {})
        if len(verdicts) > MAX_CACHED_VERDICTS and self._ledger:
            verdicts = {k: v for k, v in verdicts.items() if k in self._ledger.used}
        blame = {name: v for name, v in cache["blame"].items() if os.path.lexists(os.path.join(self.folder, name))}
        body = {"version": CACHE_VERSION, "rules": cache["rules"], "verdicts": verdicts, "blame": blame,
                "local_files": cache.get("local_files", {})}
        path = self._cache_path()
        try:
            with fsutil.try_lock(path + ".lock") as got:
                if got:
                    fsutil.atomic_write_text(path, dumps(body, ensure_ascii=False))
        except OSError:
            pass  # a cache: the next run works it out again

    # -- the memories ------------------------------------------------------------------------

    def _load(self, archive: bool) -> dict[str, list[Verdict]]:
        from pathlib import Path

        from kioku.infra.errors import KiokuError
        from kioku.memory.store import MemoryDir

        md = MemoryDir(Path(self.folder), "project")
        try:
            topics = md.load_topics(archive=archive)
        except (KiokuError, OSError):
            return {}
        prefix = "archive/" if archive else ""
        out: dict[str, list[Verdict]] = {}
        for name, topic in topics.items():
            found: list[Verdict] = []
            first = (len(topic.frontmatter) + 2) if topic.frontmatter is not None else 1
            for offset, line in enumerate(topic.preamble):
                text = line.strip()
                if text and not line.startswith("# ") and not line.lstrip().startswith("<!--"):
                    digest = note_digest(text)
                    found.append(Verdict(f"n-{digest[:8]}", prefix + name, first + offset, first + offset, text, "",
                                         digest))
            for entry in topic.entries if archive else topic.active():
                end = entry.line + max(len(entry.raw or ()) - 2, 0)
                verdict = Verdict(entry.id, prefix + name, entry.line, end, entry.summary, entry.text,
                                  memory_digest(entry.summary, entry.text))
                verdict.archived = archive or entry.status != "active"
                found.append(verdict)
            out[name] = [decide(v, self.ledger) for v in found]
        return out

    def entries(self, archive: bool = False) -> dict[str, list[Verdict]]:
        """Topic file name -> its memories (active entries and loose lines; ``archive``: the archive's)."""
        if self.exempt:
            return {}
        if archive:
            if self._archived is None:
                self._archived = self._load(True)
            return self._archived
        if self._entries is None:
            self._entries = self._load(False)
            self._remember_local_files()
        return self._entries

    def _remember_local_files(self) -> None:
        """Note in the cache, per topic file, when every memory in it was written here: the
        summaries of its entries (hashed) by the file's modification time and size. While the
        file stays as it is, a MEMORY.md line naming one of them is known to be Kioku's own
        without the topic files being parsed again (every SessionStart)."""
        known: dict = {}
        for name, verdicts in (self._entries or {}).items():
            if verdicts and all(v.local for v in verdicts):
                sig = signature(os.path.join(self.folder, name))
                if sig is not None:
                    known[name] = {"sig": sig, "summaries": sorted({_summary_key(v.summary) for v in verdicts})}
        cache = self._load_cache()
        if cache.get("local_files") != known:
            cache["local_files"] = known
            cache["dirty"] = True

    def _known_local(self, topic: str, summary: str) -> bool:
        """Whether the cache vouches that this index line names a memory written here (see above)."""
        known = self._load_cache().get("local_files", {}).get(topic)
        if not isinstance(known, dict) or _summary_key(summary) not in known.get("summaries", ()):
            return False
        return known.get("sig") == signature(os.path.join(self.folder, topic))

    def for_index_line(self, topic: str | None, summary: str, line: int) -> Verdict:
        """The verdict for a MEMORY.md line: its entry's when one has this summary, else the
        line's own as a note."""
        if self._entries is None and topic and not self.exempt and self._known_local(topic, summary):
            verdict = Verdict("", topic, 0, 0, summary, "", "")
            verdict.local = True
            return verdict
        by_summary = self._by_summary(topic or "")
        found = by_summary.get(summary)
        if found is None and summary.endswith("…"):
            from kioku.memory.index import same_summary

            found = next((v for v in by_summary.values() if same_summary(summary, v.summary)), None)
        return found if found is not None else self.for_note(INDEX_NAME, line, summary)

    def _by_summary(self, topic: str) -> dict[str, Verdict]:
        """A topic file's entries by their summary as an index line writes it (the first one wins)."""
        if topic not in self._summaries:
            table: dict[str, Verdict] = {}
            for verdict in self.entries().get(topic, []):
                if verdict.ref[:2] != "n-":
                    table.setdefault(verdict.summary.replace("→", "->"), verdict)
            self._summaries[topic] = table
        return self._summaries[topic]

    def for_note(self, file: str, line: int, text: str) -> Verdict:
        digest = note_digest(text)
        return decide(Verdict(f"n-{digest[:8]}", file, line, line, text, "", digest), self.ledger)

    def for_memory(self, file: str, line: int, summary: str, text: str, entry_id: str) -> Verdict:
        """The verdict for a memory found elsewhere (search): an entry by its id and content, or a note."""
        if not entry_id:
            return self.for_note(file, line, summary)
        return decide(Verdict(entry_id, file, line, line, summary, text, memory_digest(summary, text)), self.ledger)

    def notes(self) -> list[Verdict]:
        """MEMORY.md's notes written by hand and lines no entry is behind, as recall reads them."""
        from pathlib import Path

        from kioku.memory.index import IndexUnreadable, index_notes, read_index_text, redacted_index_lines

        if self.exempt:
            return []
        path = os.path.join(self.folder, INDEX_NAME)
        if any(os.path.islink(p) for p in (os.path.dirname(self.folder), self.folder, path)):
            return []  # recall never reads through a link; neither does the list of what it holds back
        try:
            text = read_index_text(Path(path))
        except (IndexUnreadable, OSError):
            return []
        out: list[Verdict] = []
        for number, _type, note, topic, entry in index_notes(redacted_index_lines((text or "").splitlines())):
            verdict = self.for_index_line(topic, note, number) if entry else self.for_note(INDEX_NAME, number, note)
            if verdict.file == INDEX_NAME:
                out.append(verdict)
        return out

    def everything(self) -> list[Verdict]:
        """Every memory of the folder the agent could be shown: entries, loose lines, notes, the archive."""
        found = [v for items in self.entries().values() for v in items] + self.notes()
        found += [v for items in self.entries(archive=True).values() for v in items]
        return found

    def withheld(self) -> list[Verdict]:
        """What is kept from the agent now, with provenance, in file order."""
        out = [v for v in self.everything() if v.withheld]
        for verdict in out:
            self.origin(verdict)
        return sorted(out, key=lambda v: (v.file.startswith("archive/"), v.file, v.line))

    def trusted_now(self) -> list[Verdict]:
        """Memories present now that the user trusted (and the rule set would withhold)."""
        return [v for v in self.everything() if v.trusted and not v.local and v.kinds]

    # -- provenance --------------------------------------------------------------------------

    def origin(self, verdict: Verdict) -> Origin | None:
        """Who last changed the memory's lines in git (None where git cannot say); local memories have none."""
        if verdict.local:
            return None
        if verdict.origin is None:
            if self._provenance is None:
                self._provenance = Provenance(self.root, self.folder, self._load_cache())
            verdict.origin = self._provenance.origin(verdict.file, verdict.line, verdict.end)
        return verdict.origin

    def label(self, verdict: Verdict) -> str:
        """The provenance shown beside a foreign memory, "" when git knows none."""
        origin = self.origin(verdict)
        return origin.label() if origin else ""


def _summary_key(summary: str) -> str:
    from kioku.infra.sha import sha256

    return sha256(summary.replace("→", "->").encode("utf-8")).hexdigest()[:16]


# -- what the agent and the user are told ------------------------------------------------------

def placeholder(verdict: Verdict) -> str:
    """What the agent sees in place of a withheld memory."""
    return (f"[withheld from the agent: a project memory not written on this machine that {verdict.why()}; only "
            f"the user can allow it, with `kioku trust` (id {verdict.ref})]")


def agent_notice(withheld: list[Verdict]) -> str:
    """One line for the agent after the recalled memory."""
    if not withheld:
        return ""
    from kioku.memory.directives import describe

    n = len(withheld)
    kinds = tuple(dict.fromkeys(k for v in withheld for k in v.kinds))
    what = describe(kinds).removeprefix("asks the agent ")
    one = n == 1
    return (f"({n} project memor{'y' if one else 'ies'} not written on this machine {'was' if one else 'were'} "
            f"withheld because {'it asks' if one else 'they ask'} the agent {what}. Only the user can review and "
            f"allow {'it' if one else 'them'}, with `kioku trust` in their own terminal; it is not a step for the "
            "agent to take.)")


def user_notice(withheld: list[Verdict]) -> str:
    """One line for the user: what was withheld, from whom, and the command that allows it
    (the verdicts' origins looked up by :meth:`ProjectScreen.withheld` or the caller)."""
    if not withheld:
        return ""
    from kioku.memory.directives import describe

    kinds = tuple(dict.fromkeys(k for v in withheld for k in v.kinds))
    what = describe(kinds).removeprefix("asks the agent ")
    if len(withheld) == 1:
        verdict = withheld[0]
        source = f"from git: {verdict.origin.describe()}" if verdict.origin else "not from git, not written by Kioku here"
        return (f"Kioku withheld 1 project memory from the agent: {verdict.ref} in {verdict.file} ({source}) asks "
                f"it {what}. Review it with `kioku trust`; allow it with `kioku trust {verdict.ref}`.")
    authors = list(dict.fromkeys(v.origin.name() for v in withheld if v.origin and v.origin.author))
    who = f" (from git: {', '.join(authors[:3])})" if authors else ""
    return (f"Kioku withheld {len(withheld)} project memories from the agent{who}: they ask it {what}. Review them "
            "with `kioku trust`; allow one with `kioku trust ID`, all of them with `kioku trust --all`.")


def screened_summary(project_root, file: str, summary: str, text: str, entry_id: str) -> str:
    """A project memory's summary as an agent may be shown it (a save's confirmation names the
    memory it repeats or replaces): the summary, or the placeholder when it is withheld."""
    verdict = ProjectScreen(project_root).for_memory(file, 0, summary, text, entry_id)
    return placeholder(verdict) if verdict.withheld else summary


def screened_note(project_root, note: str) -> str:
    """A note written by hand in the project's MEMORY.md as an agent may be shown it."""
    from kioku.text.secrets import redact

    verdict = ProjectScreen(project_root).for_note(INDEX_NAME, 0, redact(note))
    return placeholder(verdict) if verdict.withheld else note


def screened_file_lines(project_root, name: str, lines: list[str]) -> list[str]:
    """A project memory file's lines (``name``: MEMORY.md or a topic file) as an agent may be
    shown them whole: each withheld memory's lines replaced by its placeholder."""
    screen = ProjectScreen(project_root)
    if screen.exempt:
        return list(lines)
    held = [v for v in (screen.notes() if name == INDEX_NAME else screen.entries().get(name, [])) if v.withheld]
    if not held:
        return list(lines)
    out = list(lines)
    for verdict in sorted(held, key=lambda v: v.line, reverse=True):
        start, end = max(verdict.line - 1, 0), max(verdict.end, verdict.line)
        out[start:end] = [placeholder(verdict)]
    return out


def withheld_ids(project_root, name: str) -> dict[str, str]:
    """Entry id -> placeholder for the withheld memories of one project topic file."""
    screen = ProjectScreen(project_root)
    if screen.exempt:
        return {}
    return {v.ref: placeholder(v) for v in screen.entries().get(name, []) if v.withheld}
