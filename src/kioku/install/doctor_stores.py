"""``kioku doctor`` checks of the stores' integrity (memory folders and agent-memory stores).

Each function takes the doctor's ``add(name, ok, detail, warn=False)`` callback:

- :func:`check_memory_folder`: a memory folder (or ``.agents``, or MEMORY.md) that is a
  symbolic link, a MEMORY.md or topic file that is not valid UTF-8 (recall skips such lines,
  so those memories are silently missing), MEMORY.md against the topic files (memories it does
  not list, lines pointing to no memory, files cut short), and temporary files a killed writer
  left behind.
- :func:`check_agent_store`: the Chroma store against its journal (kept beside the Chroma
  folder): a journal whose store is missing (the folder or its files were deleted), a store
  holding records without a journal (it could not be rebuilt if damaged), a journal that is
  damaged itself (unreadable lines, or fewer records than the store: then the advice is to write
  it anew from the store, never to rebuild from it), and any collection whose record count
  differs from what replaying the journal gives; then the lesson digests the hooks read
  (damaged files, agents with lessons but no digest).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from kioku.infra import fsutil

Add = Callable[..., None]
INDEX_NAME = "MEMORY.md"
STEADY_WAIT = 10.0  # seconds doctor waits for a writer before comparing a store with its journal


def _secret_lines(name: str, text: str) -> list[str]:
    """``name:line (kind)`` of each line of a memory file that holds a secret (never the value)."""
    from kioku.text.secrets import redact_notes

    lines = text.splitlines()
    found = []
    for number, (line, safe) in enumerate(zip(lines, redact_notes(lines)), start=1):
        if safe != line:
            kind = safe.split("[REDACTED:", 1)[1].split("]", 1)[0] if "[REDACTED:" in safe else "secret"
            found.append(f"{name}:{number} ({kind.replace('_', ' ')})")
    return found


def check_memory_folder(label: str, folder: Path, add: Add) -> None:
    base = folder.parent.parent
    link = fsutil.first_symlink(base, folder / INDEX_NAME)
    if link is not None:
        add(f"{label} links", False, f"{link} is a symbolic link; Kioku neither reads nor writes memories "
            "through links: replace it with a real folder or file")
        return
    if not folder.is_dir():
        if folder.exists() or (folder.parent.exists() and not folder.parent.is_dir()):
            taken = folder if folder.exists() else folder.parent
            add(f"{label} folder", False, f"{taken} is a file where the memory folder should be: nothing can be "
                "saved there; move it aside")
        return
    from kioku.memory.topics import MAX_TOPIC_BYTES, parse_topic

    index = folder / INDEX_NAME
    if os.path.lexists(index) and not index.is_symlink() and not index.is_file():
        what = "a folder" if index.is_dir() else "not a regular file"
        add(f"{label} index", False, f"{index} is {what}, so recall shows no memory of this folder; the next save "
            "or `kioku organize --repair` moves it aside and rebuilds it from the topic files")
    bad, damaged, too_large, secrets = [], [], [], []
    for path in sorted(folder.glob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            if path.name != INDEX_NAME and path.stat().st_size > MAX_TOPIC_BYTES:
                too_large.append(f"{path.name} ({path.stat().st_size:,} bytes)")
                continue
            data = path.read_bytes()
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append(f"{path.name} (byte {exc.start})")
            continue
        except OSError:
            continue
        if path.name != INDEX_NAME:
            topic = parse_topic(path, data)
            if topic.broken:
                damaged.append(f"{path.name} ({topic.broken})")
        secrets += _secret_lines(path.name, data.decode("utf-8"))
    if bad:
        add(f"{label} encoding", False, "not valid UTF-8, so recall skips the damaged lines: "
            + ", ".join(bad[:5]) + "; run `kioku organize --repair`")
    if damaged:
        add(f"{label} topic files", False, "damaged: " + ", ".join(damaged[:5])
            + "; run `kioku organize --repair` (the originals are kept)")
    if too_large:
        add(f"{label} topic size", True, "too large to be memory notes, so saves to them are refused: "
            + ", ".join(too_large[:5]) + f" (limit {MAX_TOPIC_BYTES:,}); split them by hand", warn=True)
    if secrets:
        add(f"{label} secrets", False, "a secret was written into a memory file by hand: " + ", ".join(secrets[:5])
            + "; Kioku never shows it, but the file keeps it: remove it (and rotate it if the folder was committed)")
    _compare_index_with_topics(label, folder, add)
    orphans = fsutil.orphan_temp_files(folder)
    if (folder / "archive").is_dir() and not (folder / "archive").is_symlink():
        orphans += fsutil.orphan_temp_files(folder / "archive")
    if orphans:
        add(f"{label} temp files", True, f"{len(orphans)} temporary file(s) left by an interrupted save "
            f"({', '.join(p.name for p in orphans[:3])}); the next save removes them", warn=True)


def _compare_index_with_topics(label: str, folder: Path, add: Add) -> None:
    """MEMORY.md against the topic files: memories it does not list (recall does not show them),
    lines pointing into a topic file that holds no such memory (a cut, emptied or edited file),
    and files that end in the middle of a line (cut short: Kioku always ends them with one)."""
    from kioku.infra.errors import KiokuError
    from kioku.memory.index import MAX_LINES
    from kioku.memory.recall import cut_short
    from kioku.memory.store import MemoryDir

    md = MemoryDir(folder, label)
    try:
        topics = md.load_topics()
        doc = md.load_index(topics, repair=False)
    except (KiokuError, OSError):
        return  # an unreadable index or folder is reported by the checks above
    stale = {id(e) for e in md.stale_lines(doc, topics)}
    doc.entries = [e for e in doc.entries if id(e) not in stale]  # superseded lines: the next save drops them
    md.mark_hand(doc, topics)
    cut = []
    for path in [md.index_path, *(topic.path for topic in topics.values())]:
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        if text and (cut_short(text) if path == md.index_path else not text.endswith("\n")):
            cut.append(path.name)
    if cut:
        add(f"{label} cut files", False, "cut short (they end in the middle of a line or a section): "
            + ", ".join(cut[:5]) + "; restore them (`git checkout -- <file>` if they are committed), then run "
            "`kioku organize --repair`")
    missing = md.unindexed(doc, topics)
    if missing and doc.entry_line_count() < MAX_LINES:
        shown = "; ".join(f"{name}: {entry.summary[:60]}" for name, entry in missing[:3])
        add(f"{label} index", False, f"{md.index_path.name} does not list {len(missing)} memor"
            f"{'y' if len(missing) == 1 else 'ies'} of the topic files, so recall does not show "
            f"{'it' if len(missing) == 1 else 'them'} ({shown}); run `kioku organize --repair`")
    nowhere = [e for e in doc.entries if e.hand and e.topic in topics]
    if nowhere:
        files = sorted({e.topic for e in nowhere})
        add(f"{label} index lines", False, f"{len(nowhere)} line(s) of {md.index_path.name} point to no memory in "
            f"{', '.join(files[:5])} (cut, emptied or edited by hand?): restore the file (`git checkout -- "
            "<file>` if it is committed), or run `kioku organize --repair` to drop the lines")


def _keyword_index_damage(path: Path) -> str:
    """What is wrong with the SQLite keyword index at ``path`` ("" when nothing, or when it
    is missing or busy), read only."""
    import sqlite3

    if not path.is_file():
        return ""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        return "" if "locked" in str(exc) or "busy" in str(exc) else f"cannot be read ({exc})"
    except sqlite3.DatabaseError as exc:
        return f"damaged ({exc})"
    return "" if verdict == "ok" else f"damaged ({str(verdict)[:120]})"


def check_agent_store(scope: str, project_root: Path, add: Add) -> None:
    from kioku.lessons import scopes as sc

    if not sc.scope_exists(scope, project_root):
        return
    name = f"agent store ({scope})"
    import importlib.util

    if importlib.util.find_spec("chromadb") is None:
        # the plugin's environment may still be being prepared: nothing is damaged
        add(name, True, "not checked: chromadb is not installed in this environment (see the dependency "
            "lines)", warn=True)
        return
    from kioku.infra.config import ConfigError

    try:
        store = sc.open_scope(scope, project_root)
    except ConfigError:
        add(name, False, "not checked: the configuration cannot be read (see the config line)")
        return
    if store.server:
        add(name, True, f"Chroma server {store.host}:{store.port}; journal in {store.chroma_dir}")
        return
    lexical = store.chroma_dir / "kioku_lexical.sqlite3"
    damage = _keyword_index_damage(lexical)
    if damage:
        add(f"keyword index ({scope})", True, f"{lexical}: {damage}; the next agent-memory command sets it "
            "aside and rebuilds it from the store (lessons are not lost)", warn=True)
    from kioku.lessons.store.connection import try_shared

    if (store.chroma_dir / "chroma.sqlite3").exists():
        try:
            store.check()  # a rebuild it needs takes the lock, so it runs before the lock below
        except Exception:  # noqa: BLE001 - the comparison below reports what is wrong
            pass
    # the journal and the store are counted under the readers' lock, so a write the worker
    # makes meanwhile never shows as a difference between them
    if not store.chroma_dir.is_dir():  # the lock lives in the folder: taking it would create it
        _compare_store_with_journal(store, scope, name, add, True)
        return
    with try_shared(store.journal.lock_path, STEADY_WAIT) as steady:
        _compare_store_with_journal(store, scope, name, add, steady)
    _check_digests(store, scope, add)


def _check_digests(store: Any, scope: str, add: Add) -> None:
    """The lesson digests the hooks read: files that cannot be read (SessionStart then injects
    none of their lessons), and agents with lessons but no digest."""
    from kioku.lessons import digest

    folder = store.chroma_dir / "digests"
    damaged: list[str] = []
    have: set[str] = set()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        digest.last_damaged.clear()
        data = digest._load(str(path))
        if data is None:
            damaged.append(path.name)
        elif isinstance(data.get("agent"), str):
            have.add(data["agent"])
    digest.last_damaged.clear()
    name = f"lessons digest ({scope})"
    if damaged:
        add(name, False, f"damaged: {', '.join(damaged[:5])} in {folder}, so sessions start without those lessons; the "
            "next session start sets it aside and the worker rebuilds it (now: `kioku lessons maintain --agent NAME --daily`)")
        return
    try:
        agents = store.agents()
    except Exception:  # noqa: BLE001 - an unreadable store is reported above
        return
    from kioku.lessons import stats

    try:
        lost = [agent for agent in agents if agent not in have
                and any(stats.is_active(r.metadata or {}) for r in store.get(agent, "improvements"))]
    except Exception:  # noqa: BLE001
        return
    if lost:
        add(name, False, f"missing for {', '.join(lost[:5])}, although the store holds lessons: sessions start without "
            f"them; run `kioku lessons maintain --agent {lost[0]} --daily`")


def _compare_store_with_journal(store: Any, scope: str, name: str, add: Add, steady: bool) -> None:
    if not steady:
        add(name, True, f"not compared with its journal: a writer kept the store busy for {STEADY_WAIT:g} s; run "
            "`kioku doctor` again", warn=True)
        return
    expected = store.journal.live_counts()
    if store.journal.has_history() and not (store.chroma_dir / "chroma.sqlite3").exists():
        what = "Chroma's files are" if store.chroma_dir.is_dir() else "the folder is"
        add(name, False, f"{store.chroma_dir}: {what} missing but its journal ({store.journal.dir}) holds "
            f"{sum(expected.values())} record(s); run `kioku store rebuild` (any agent-memory command also does)")
        return
    try:
        actual = store.collection_counts()
    except Exception as exc:  # noqa: BLE001 - doctor reports, it does not raise
        if isinstance(exc, ImportError):
            add(name, True, f"not checked: {exc} (the environment is incomplete, the store is not damaged)",
                warn=True)
        else:
            add(name, False, f"{store.chroma_dir}: cannot be read ({type(exc).__name__}); run `kioku store rebuild`")
        return
    if store.last_warning:
        add(name, True, store.last_warning, warn=True)
    pending = store.pending()
    if sum(actual.values()) and not store.journal.has_history() and not pending:
        add(name, True, f"{sum(actual.values())} record(s) in {len(actual)} collection(s) but no journal "
            f"({store.journal.dir} is missing or empty): they cannot be rebuilt if {store.chroma_dir} is "
            f"damaged or deleted; run `kioku store rebuild --scope {scope} --from-store` to write the journal",
            warn=True)
        return
    differ = sorted(n for n in set(expected) | set(actual) if expected.get(n, 0) != actual.get(n, 0))
    detail = (f"{sum(actual.values())} record(s) in {len(actual)} collection(s), journal "
              f"{sum(expected.values())}" + (f", {pending} write(s) pending" if pending else ""))
    unreadable = store.journal.unreadable_lines()
    beyond = {n: actual.get(n, 0) - expected.get(n, 0) for n in differ if actual.get(n, 0) > expected.get(n, 0)}
    if (unreadable or beyond) and not pending:
        # the journal is the damaged side: rebuilding from it would drop what only the store holds
        what = [f"{len(unreadable)} unreadable line(s) in {store.journal.path}"] if unreadable else []
        if beyond:
            what.append(f"the store holds {sum(beyond.values())} record(s) the journal lacks")
        add(name, False, f"{detail}; the journal is damaged ({'; '.join(what)}). Do not run a plain "
            f"`kioku store rebuild` (it would lose them): run `kioku store rebuild --scope {scope} --from-store` "
            "to write the journal anew from the store")
        return
    if differ and not pending:
        shown = "; ".join(f"{n}: store {actual.get(n, 0)}, journal {expected.get(n, 0)}" for n in differ[:3])
        add(name, False, f"{detail}; differs from the journal ({shown}); run `kioku store rebuild`")
    else:
        add(name, True, detail + ("; run `kioku store sync`" if pending else ""), warn=bool(pending))


def run_store_checks(project_root: Path, memory_folders: list[tuple[str, Path]], add: Add) -> None:
    for label, folder in memory_folders:
        check_memory_folder(label, folder, add)
    for scope in ("global", "project"):
        check_agent_store(scope, project_root, add)
