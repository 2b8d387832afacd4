"""Write-ahead journal for the agent-memory store (stdlib only).

Several processes writing one embedded Chroma store lose HNSW vectors, and a process can be killed
mid-write, so every store write is first appended here (one JSON line, fsynced) under the store's
exclusive lock, then applied to Chroma and the lexical index under the same lock, and only then is
the applied sequence recorded. A write is acknowledged once its line is fsynced; an entry whose
apply failed stays pending and ``AgentStore.sync()`` applies it later. Applying is idempotent
(upserts with deterministic ids, merging updates, deletes). Callers hold the store's lock around
``append``, ``set_applied`` and ``rotate``. The files, rotation and the move of journals kept by
earlier versions are described in docs/architecture.md ("The journal's files").

No secret is written: every line passes :func:`without_secrets` (documents and metadata text
through ``kioku.text.secrets.redact_derived``), and ``append`` hands the redacted text back, so
what is applied to Chroma and the lexical index is what is journaled.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Iterator

from kioku.infra import clock, disk, fsutil
from kioku.infra.gitignore import ignore_folder, make_data_folder
from kioku.lessons.store.journal_model import fold, snapshot_lines
from kioku.lessons.store.journal_lines import line as _line, without_secrets

ROTATE_BYTES = 4 * 1024 * 1024
MAX_ARCHIVES = 8
LOCK_NAME = ".kioku-write.lock"
DIR_SUFFIX = ".kioku-journal"
LEGACY_DIR_NAME = ".kioku-journal"  # the folder inside the Chroma folder that earlier versions used
APPLIED_MARKER = ".kioku-applied-seq"  # inside the Chroma folder: the journal position it holds


def journal_dir(chroma_dir: Path | str) -> Path:
    """Where the journal of the store in ``chroma_dir`` lives: ``<chroma_dir>.kioku-journal``,
    a sibling of the Chroma folder."""
    chroma = Path(chroma_dir).expanduser().resolve()
    return chroma.with_name(chroma.name + DIR_SUFFIX)


def legacy_journal_dir(chroma_dir: Path | str) -> Path:
    return Path(chroma_dir).expanduser().resolve() / LEGACY_DIR_NAME


class Journal:
    def __init__(self, chroma_dir: Path, *, folder: Path | None = None) -> None:
        """The journal of the store in ``chroma_dir``; ``folder`` reads a journal kept elsewhere
        (the migration reads the old in-folder journal this way) and never migrates."""
        self.chroma_dir = Path(chroma_dir)
        self.dir = Path(folder) if folder is not None else journal_dir(self.chroma_dir)
        self.path = self.dir / "journal.jsonl"
        self.state_path = self.dir / "state.json"
        self.archive_dir = self.dir / "archive"
        self.lock_path = self.chroma_dir / LOCK_NAME
        self._tail_cache: tuple[tuple[int, int, int], int] | None = None
        if folder is None and legacy_journal_dir(self.chroma_dir).is_dir():
            self.migrate_legacy()

    # -- migration from the in-folder layout -----------------------------------------------
    def migrate_legacy(self) -> int:
        """Move ``<chroma_dir>/.kioku-journal`` out to :attr:`dir` under the store's lock.

        Returns how many entries were appended from the old journal (0 after a plain move).
        Nothing is deleted before its lines are fsynced in the new place.
        """
        legacy = legacy_journal_dir(self.chroma_dir)
        with self.lock(timeout=120):
            if not legacy.is_dir():
                return 0  # another process moved it while this one waited for the lock
            if self.dir.is_dir() and not any(self.dir.iterdir()):
                self.dir.rmdir()  # an empty folder holds nothing to reconcile
            if not self.dir.exists():
                fsutil.move_folder(legacy, self.dir)
                ignore_folder(self.dir)  # it was inside the (ignored) Chroma folder until now
                self._tail_cache = None
                self.set_state(moved_at=time.time())
                return 0
            moved_at = self.state().get("moved_at")
            added = 0
            if isinstance(moved_at, (int, float)):
                # only what an earlier-version process wrote after the move is new; entries
                # from before it are history the move already brought (even if since compacted)
                added = self._merge_from(Journal(self.chroma_dir, folder=legacy), after=float(moved_at))
            aside = self.dir.with_name(f"{self.dir.name}.legacy-{int(time.time())}")
            os.rename(legacy, aside)  # kept, never deleted: a restored backup's history is not replayed
            ignore_folder(aside)
            fsutil.fsync_dir(self.chroma_dir)
            fsutil.fsync_dir(aside.parent)
            import sys

            print(f"kioku: warning: an old journal folder was found inside {self.chroma_dir}; "
                  + (f"{added} entries written after the move were added, " if added else "")
                  + f"the folder was kept as {aside}", file=sys.stderr)
            return added

    def _merge_from(self, old: "Journal", after: float) -> int:
        """Append the entries of ``old`` written after ``after`` that this journal lacks, in
        their order. Lock held."""
        known = {_identity(entry) for entry in self.all_entries()}
        self.repair_tail()
        added = 0
        for entry in old.all_entries():
            key = _identity(entry)
            if key in known or float(entry.get("ts", 0) or 0) <= after:
                continue
            known.add(key)
            record = {**entry, "seq": self.last_seq() + 1}
            fsutil.append_line_durable(self.path, _line(record))
            added += 1
        return added

    # -- locking -------------------------------------------------------------------------
    def lock(self, timeout: float = 60.0):
        make_data_folder(self.chroma_dir)  # the lock lives in the Chroma folder
        return fsutil.exclusive_lock(self.lock_path, timeout=timeout)

    # -- state ---------------------------------------------------------------------------
    def state(self) -> dict:
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def applied_seq(self) -> int:
        return int(self.state().get("applied_seq", 0))

    def set_state(self, **values: object) -> None:
        """Caller holds the lock."""
        state = self.state()
        state.update(values)
        make_data_folder(self.dir)
        fsutil.atomic_write_text(self.state_path, json.dumps(state, sort_keys=True))

    def set_applied(self, seq: int) -> None:
        # The Chroma folder records how far it was brought too (written first, so it is never
        # behind after a crash): an older copy of the folder put back is then seen to be behind.
        if self.chroma_dir.is_dir():
            fsutil.atomic_write_text(self.chroma_dir / APPLIED_MARKER, str(int(seq)))
        self.set_state(applied_seq=int(seq), applied_at=time.time())

    def store_marker(self) -> int | None:
        """The applied sequence number the Chroma folder records, None when it records none."""
        try:
            return int((self.chroma_dir / APPLIED_MARKER).read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None

    # -- reading -------------------------------------------------------------------------
    def _last_line(self) -> bytes | None:
        """The last complete line of the active journal (read backwards from the end)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                return None
            # a torn (unterminated) tail was never acknowledged: the line ends at the last newline
            end = _rfind_newline(fd, size) + 1
            if end == 0:
                return None
            start = _rfind_newline(fd, end - 1) + 1
            os.lseek(fd, start, os.SEEK_SET)
            return os.read(fd, end - 1 - start)
        finally:
            os.close(fd)

    def last_seq(self) -> int:
        """Highest sequence number ever assigned (journal tail, else the applied state)."""
        applied = self.applied_seq()
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return applied
        # Every read asks whether writes are pending; decoding the (possibly large) last line
        # each time cost ~9 ms at 100k records, so the answer is cached per file version.
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._tail_cache is not None and self._tail_cache[0] == key:
            return max(self._tail_cache[1], applied)
        tail = 0
        line = self._last_line()
        if line:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                tail = int(json.loads(line)["seq"])
        self._tail_cache = (key, tail)
        return max(tail, applied)

    def pending_count(self) -> int:
        return max(0, self.last_seq() - self.applied_seq())

    def entries(self, after: int = 0) -> Iterator[dict]:
        """Complete, parseable entries of the active journal with ``seq > after``."""
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return
        with handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break  # torn tail
                try:
                    entry = json.loads(raw)
                    seq = int(entry["seq"])
                except (ValueError, KeyError, TypeError):
                    continue
                if seq > after:
                    yield entry

    def unreadable_lines(self) -> list[int]:
        """Line numbers (from 1) of complete lines of the active journal that are not an entry:
        damage from outside (a torn last line is not counted; ``repair_tail`` cuts it)."""
        bad: list[int] = []
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return bad
        with handle:
            for number, raw in enumerate(handle, 1):
                if not raw.endswith(b"\n"):
                    break
                try:
                    int(json.loads(raw)["seq"])
                except (ValueError, KeyError, TypeError):
                    bad.append(number)
        return bad

    def write_snapshot(self, collections: dict[str, dict]) -> int:
        """Make ``collections`` the journal's whole history: one snapshot archive of ``upsert``
        entries, replacing every archive and the active entries.

        ``collections`` maps a collection name to ``{"agent", "kind", "project_id", "records":
        {id: (document, metadata)}}``; it is what the store holds when the journal itself was
        damaged or deleted. Nothing is deleted: the archives and the active file it replaces are
        moved to a new ``replaced-<time>-<random>/`` folder in the journal folder. The snapshot's
        seq is the highest the journal, its state or the store's marker ever recorded (at least
        1, so a replay reads it), so no older entry is replayed after it. Caller holds the lock
        and has applied every pending entry. Returns the seq.
        """
        seq = max(self.last_seq(), self.applied_seq(), self.store_marker() or 0, 1)
        lines = snapshot_lines(collections, seq)
        import tempfile

        fsutil.ensure_private_dir(self.dir)
        kept = Path(tempfile.mkdtemp(prefix=f"replaced-{clock.compact_z()}-",
                                     dir=self.dir))  # a new folder every time, even within a second
        staged = kept / "snapshot.new.jsonl.gz"  # outside the archive folder until it is complete
        fsutil.atomic_write_bytes(staged, gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), 6))
        for archive in self.archives():
            os.replace(archive, kept / archive.name)
        if self.path.exists() and self.path.stat().st_size:
            fsutil.atomic_write_bytes(kept / self.path.name, self.path.read_bytes())
            fsutil.atomic_write_bytes(self.path, b"")
        fsutil.ensure_private_dir(self.archive_dir)
        os.replace(staged, self.archive_dir / f"journal-{0:012d}-{seq:012d}.snapshot.jsonl.gz")
        self._tail_cache = None
        self.set_applied(seq)
        return seq

    def archives(self) -> list[Path]:
        return sorted(self.archive_dir.glob("journal-*.jsonl.gz")) if self.archive_dir.is_dir() else []

    def all_entries(self) -> Iterator[dict]:
        """Archived then active entries, in sequence order, each seq once (for rebuild).

        A snapshot's entries all carry the snapshot's seq, so the threshold moves per
        archive, not per entry.
        """
        seen = 0
        for entry in self.all_entries_of(self.archives()):
            seen = max(seen, int(entry["seq"]))
            yield entry
        for entry in self.entries(after=seen):
            yield entry

    def record_counts(self) -> dict[str, int]:
        """Records per collection that replaying archives + journal would produce (for health views)."""
        state: dict[str, dict] = {}
        for entry in self.all_entries():
            fold(state, entry)
        return {name: len(col["records"]) for name, col in state.items()}

    def written_ids(self) -> dict[str, set[str]]:
        """Every record id the journal ever wrote per collection, deleted ones included: a store
        holding an id outside these holds something the journal never knew."""
        written: dict[str, set[str]] = {}
        for entry in self.all_entries():
            op = entry.get("op")
            if op == "upsert":
                written.setdefault(entry["collection"], set()).update(entry["ids"])
            elif op == "copy":
                for src_name, dst_name, _kind in entry["pairs"]:
                    written.setdefault(dst_name, set()).update(written.get(src_name, set()))
        return written

    def has_history(self) -> bool:
        """Whether any entry was ever applied (so a store without data is a lost store)."""
        return self.applied_seq() > 0 or bool(self.archives())

    def live_counts(self) -> dict[str, int]:
        """Records per collection that replaying the whole journal gives: what the store
        should hold once every entry is applied (doctor compares it with Chroma's counts)."""
        state: dict[str, dict] = {}
        for entry in self.all_entries():
            fold(state, entry)
        return {name: len(col["records"]) for name, col in state.items() if col["records"]}

    def compact(self, max_archives: int | None = None) -> Path | None:
        """Fold all archives into one snapshot when there are more than ``max_archives``.

        The snapshot holds, per collection, the final records (document + merged metadata)
        as ``upsert`` entries with the last folded seq, so the history stays replayable by
        ``rebuild()`` and the archive folder stays proportional to the live data, not to
        the number of writes (usage statistics update metadata after every session).
        Caller holds the lock.
        """
        archives = self.archives()
        if len(archives) <= (MAX_ARCHIVES if max_archives is None else max_archives):
            return None
        state: dict[str, dict] = {}
        last = 0
        for entry in self.all_entries_of(archives):
            last = max(last, int(entry["seq"]))
            fold(state, entry)
        lines = snapshot_lines(state, last)
        target = self.archive_dir / f"journal-{0:012d}-{last:012d}.snapshot.jsonl.gz"
        fsutil.atomic_write_bytes(target, gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), 6))
        for archive in archives:
            if archive != target:
                archive.unlink()
        return target

    @staticmethod
    def all_entries_of(archives: list[Path]) -> Iterator[dict]:
        seen = 0
        for archive in archives:
            threshold = seen
            with gzip.open(archive, "rb") as handle:
                for raw in handle:
                    try:
                        entry = json.loads(raw)
                        seq = int(entry["seq"])
                    except (ValueError, KeyError, TypeError):
                        continue
                    if seq > threshold:
                        seen = max(seen, seq)
                        yield entry

    # -- writing (caller holds the lock) -------------------------------------------------
    def repair_tail(self) -> None:
        """Cut off an unterminated last line left by a writer killed inside write()."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size == 0:
            return
        with self.path.open("rb+") as handle:
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            pos = size
            keep = 0
            while pos > 0:
                step = min(65536, pos)
                pos -= step
                handle.seek(pos)
                cut = handle.read(step).rfind(b"\n")
                if cut >= 0:
                    keep = pos + cut + 1
                    break
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())

    def append(self, entry: dict) -> int:
        """Assign the next sequence number, append durably, return it. ``entry`` is updated in
        place to the redacted form written (:func:`without_secrets`), for the caller to apply.
        Raises DiskFull, with nothing written, when the line does not fit on the disk with room
        to spare."""
        self.repair_tail()
        seq = self.last_seq() + 1
        entry.update(without_secrets(entry))
        record = {"seq": seq, "ts": time.time(), **entry}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        outcome = "nothing was written to the agent-memory journal; free some space and run it again"
        disk.ensure_room(self.dir, len(line.encode("utf-8")) + disk.JOURNAL_RESERVE, outcome)
        make_data_folder(self.dir)
        try:
            fsutil.append_line_durable(self.path, line)
        except OSError as exc:
            if disk.is_full_error(exc):  # a torn line may be left: never acknowledged, cut before the next append
                raise disk.disk_full(self.dir, outcome) from exc
            raise
        return seq

    def find_request(self, key: str, ids: list[str]) -> int | None:
        """The seq of the entry written for the request whose idempotency key is ``key``, when no later entry touched
        the same records or dropped their collection (writing the request again would only
        repeat it); else None. Looks through the active journal, where a retry finds its first
        attempt (the file is archived only once it holds 4 MiB)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        pos = data.rfind(f'"request":{json.dumps(key)}'.encode("utf-8"))
        if pos < 0:
            return None
        start, end = data.rfind(b"\n", 0, pos) + 1, data.find(b"\n", pos)
        if end < 0:
            return None  # a torn last line was never acknowledged
        try:
            entry = json.loads(data[start:end])
            seq = int(entry["seq"])
        except (ValueError, KeyError, TypeError):
            return None
        if entry.get("request") != key:
            return None
        wanted, name = set(ids), entry.get("collection")
        for raw in data[end + 1:].splitlines():
            try:
                later = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(later, dict):
                continue
            if wanted & set(later.get("ids") or ()) or name in (later.get("collections") or ()):
                return None
            if any(name in pair[:2] for pair in later.get("pairs") or ()):
                return None
        return seq

    def rotate(self, max_bytes: int | None = None) -> Path | None:
        """Archive the active journal if it is big and fully applied."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return None
        if size < (ROTATE_BYTES if max_bytes is None else max_bytes):
            return None
        applied = self.applied_seq()
        first = next(self.entries(), None)
        last = self.last_seq()
        if first is None or last > applied:
            return None
        fsutil.ensure_private_dir(self.archive_dir)
        target = self.archive_dir / f"journal-{int(first['seq']):012d}-{last:012d}.jsonl.gz"
        fsutil.atomic_write_bytes(target, gzip.compress(self.path.read_bytes(), compresslevel=6))
        fsutil.atomic_write_bytes(self.path, b"")
        return target


def _identity(entry: dict) -> str:
    """What makes two journal entries the same write: everything but the sequence number
    (each entry carries the time it was written, so two real writes never share it)."""
    body = {k: v for k, v in entry.items() if k != "seq"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _rfind_newline(fd: int, before: int) -> int:
    """Offset of the last newline in ``fd`` before offset ``before``, or -1 (reads backwards)."""
    pos = before
    while pos > 0:
        step = min(65536, pos)
        pos -= step
        os.lseek(fd, pos, os.SEEK_SET)
        cut = os.read(fd, step).rfind(b"\n")
        if cut >= 0:
            return pos + cut
    return -1
