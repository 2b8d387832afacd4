"""Tolerant, incremental reader of Claude Code transcripts (JSONL), standard library only.

Contract
- :func:`read_from(path, offset) -> (entries, new_offset)` returns the JSON objects of the
  *complete* lines appended since ``offset``. A partially written last line (no ``\\n`` yet)
  is not consumed: ``new_offset`` stops before it, so the next call sees it whole. Bad JSON
  lines are skipped, unknown ``type`` values are kept as dicts and ignored by :func:`parse`.
  A file smaller than ``offset`` (truncated or rotated) restarts from 0.
- Memory is capped: at most ``max_bytes`` (default :data:`MAX_READ_BYTES`, 4 MiB) are read
  per call. When more than that is pending - typically the first evaluation of a 20 MB
  transcript - only the *last* ``max_bytes`` are read (starting at the next line boundary),
  because self-evaluation is about the turns that just finished; the skipped byte count is
  reported. Lines that are neither ``user`` nor ``assistant`` (tool listings, system-prompt
  snapshots, ...) are not even JSON-decoded.
- :func:`open_regular(path)` is the one way a transcript is opened: ``O_NONBLOCK`` first, then
  ``fstat``; anything that is not a regular file (FIFO, device, directory, a symlink to one of
  them) raises :class:`TranscriptRefused` with a one-line reason, so a hostile
  ``transcript_path`` can never block the worker.
- :func:`read_all(path)` reads a finished transcript whole, in chunks, to its last byte (a last
  line without a newline included), within :data:`MAX_TOTAL_BYTES` and :data:`READ_TIME_LIMIT_S`;
  a file that cannot be read whole gives a warning in the result, never a silent cut.
- :func:`read_new(path, state_key)` does the same with the offset persisted per key in
  ``<state_dir>/transcripts/<safe key>.json`` (atomic, locked). The cursor also remembers the
  file's inode and a hash of the 64 bytes before the offset, so a rewritten file restarts.
  Pass ``commit=False`` and call :func:`commit` after the work succeeded to never lose a turn.
- :func:`parse(entries) -> Transcript` extracts real user prompts (skipping ``isMeta``,
  ``tool_result`` content, ``isCompactSummary`` and ``<system-reminder>``/``<command-name>``/
  ``[Request interrupted…]`` texts), assistant messages de-duplicated by ``message.id``
  (content blocks merged, usage from the line with a non-null ``stop_reason``; model
  ``<synthetic>`` skipped), tool calls (name, input) and tool results (``is_error``,
  ``Exit code N``, a short error kind), and timestamps.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from kioku.infra import fsutil, paths

MAX_READ_BYTES = 4 * 1024 * 1024
MAX_TOTAL_BYTES = 128 * 1024 * 1024   # a whole-file read stops here, with a warning
READ_TIME_LIMIT_S = 60.0
_CHUNK_BYTES = 1024 * 1024
_FINGERPRINT_BYTES = 64
_WANTED = re.compile(rb'"type"\s*:\s*"(?:user|assistant)"')
_NOISE_PREFIXES = ("<system-reminder>", "<command-name>", "<command-message>", "<command-args>",
                   "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
                   "[Request interrupted", "Caveat: The messages below were generated",
                   "<task-notification>", "<bash-input>", "<bash-stdout>", "<bash-stderr>")
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_EXIT_CODE = re.compile(r"^\s*(?:Error:\s*)?Exit code (\d+)")
_ERROR_KINDS = (  # (pattern, short generic kind) - first match wins
    (re.compile(r"no such file or directory|cannot access|does not exist|not exist", re.I), "No such file or directory"),
    (re.compile(r"command not found|not recognized as", re.I), "command not found"),
    (re.compile(r"permission denied|operation not permitted|EACCES", re.I), "Permission denied"),
    (re.compile(r"timed? ?out|timeout", re.I), "timeout"),
    (re.compile(r"ModuleNotFoundError|ImportError|Cannot find module", re.I), "module not found"),
    (re.compile(r"SyntaxError|syntax error|parse error", re.I), "syntax error"),
    (re.compile(r"\b(?:FAILED|AssertionError|tests? failed)\b", re.I), "test failure"),
    (re.compile(r"Traceback \(most recent call last\)"), "Python exception"),
    (re.compile(r"String to replace not found|File has not been read|has been modified since", re.I), "edit conflict"),
    (re.compile(r"rejected|denied|not allowed|requires approval", re.I), "permission rejected"),
    (re.compile(r"connection refused|could not resolve|network", re.I), "network error"),
)


class TranscriptRefused(ValueError):
    """The path is not a transcript we may read (not a regular file); the message is one line."""


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path | str):
    """Open ``path`` for binary reading only if it is a regular file (after following links).

    ``O_NONBLOCK`` makes opening a FIFO return at once instead of waiting for a writer; the
    ``fstat`` of the opened descriptor then decides, so a symlink swapped between a check and
    the open cannot smuggle in a device. Raises ``FileNotFoundError`` or :class:`TranscriptRefused`."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(str(path), flags)
    except IsADirectoryError as exc:
        raise TranscriptRefused(f"transcript is a directory: {path}") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise TranscriptRefused(f"transcript is {_kind_of(mode)}, not a regular file: {path}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@dataclass
class FullRead:
    entries: list[dict]
    size: int
    bytes_read: int
    warning: str = ""          # "" when the file was read whole

    @property
    def complete(self) -> bool:
        return not self.warning


def read_all(path: Path | str, *, max_bytes: int = MAX_TOTAL_BYTES,
             time_limit: float = READ_TIME_LIMIT_S) -> FullRead:
    """Every ``user``/``assistant`` entry of a transcript, read in chunks to the end.

    The last line counts even without a final newline (the file is finished). When the file is
    larger than ``max_bytes`` or reading takes longer than ``time_limit``, the entries read so
    far are returned with a ``warning`` that says so."""
    entries: list[dict] = []
    deadline = time.monotonic() + time_limit
    with open_regular(Path(path).expanduser()) as handle:
        size = os.fstat(handle.fileno()).st_size
        pending: list[bytes] = []   # pieces of the current line (joined once, at its newline)
        read = 0
        warning = ""
        while True:
            if read >= max_bytes:
                warning = f"transcript is {size} bytes; only the first {read} were evaluated"
                break
            if time.monotonic() > deadline:
                warning = f"reading the transcript took over {time_limit:.0f}s; stopped after {read} bytes"
                break
            chunk = handle.read(min(_CHUNK_BYTES, max_bytes - read))
            if not chunk:
                entries += _decode_lines(b"".join(pending))
                pending = []
                break
            read += len(chunk)
            cut = chunk.rfind(b"\n")
            if cut < 0:
                pending.append(chunk)
                continue
            entries += _decode_lines(b"".join(pending) + chunk[:cut + 1])
            pending = [chunk[cut + 1:]]
    return FullRead(entries, size, read, warning)


@dataclass
class ReadResult:
    entries: list[dict]
    start_offset: int
    new_offset: int
    restarted: bool = False
    skipped_bytes: int = 0
    inode: int = 0
    fingerprint: str = ""


def _fingerprint(handle, offset: int) -> str:
    if offset <= 0:
        return ""
    start = max(0, offset - _FINGERPRINT_BYTES)
    handle.seek(start)
    return hashlib.sha256(handle.read(offset - start)).hexdigest()[:16]


def _decode_lines(chunk: bytes) -> list[dict]:
    entries: list[dict] = []
    for raw in chunk.split(b"\n"):
        if not raw.strip() or not _WANTED.search(raw):
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            continue  # a corrupt or absurdly nested line must not hide the rest of the turn
        if isinstance(obj, dict):
            entries.append(obj)
    return entries


def read_chunk(path: Path | str, offset: int = 0, *, max_bytes: int = MAX_READ_BYTES,
               fingerprint: str = "", inode: int = 0) -> ReadResult:
    """Read complete lines after ``offset``; see the module docstring for the rules."""
    path = Path(path).expanduser()
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return ReadResult([], offset, offset)
    with handle:
        st = os.fstat(handle.fileno())
        size = st.st_size
        restarted = False
        if offset > size or (inode and st.st_ino != inode) or (
                fingerprint and offset and _fingerprint(handle, offset) != fingerprint):
            offset, restarted = 0, True
        start, skipped = offset, 0
        if size - offset > max_bytes:
            start = size - max_bytes
            skipped = start - offset
        handle.seek(start)
        chunk = handle.read(size - start)
        if skipped:
            # started mid-file: drop the (probably partial) first line
            cut = chunk.find(b"\n")
            chunk = chunk[cut + 1:] if cut >= 0 else b""
            start = size - len(chunk)
            skipped = start - offset
        last_nl = chunk.rfind(b"\n")
        complete = chunk[:last_nl + 1] if last_nl >= 0 else b""
        new_offset = start + len(complete)
        fp = _fingerprint(handle, new_offset)
    return ReadResult(_decode_lines(complete), offset, new_offset, restarted, skipped, st.st_ino, fp)


def read_from(path: Path | str, offset: int = 0, *, max_bytes: int = MAX_READ_BYTES) -> tuple[list[dict], int]:
    result = read_chunk(path, offset, max_bytes=max_bytes)
    return result.entries, result.new_offset


# ---- persisted cursors -------------------------------------------------------------------

def cursor_path(state_key: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", state_key)[:80]
    digest = hashlib.sha256(state_key.encode("utf-8")).hexdigest()[:10]
    return paths.state_dir() / "transcripts" / f"{safe}-{digest}.json"


def load_cursor(state_key: str) -> dict:
    try:
        data = json.loads(cursor_path(state_key).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def commit(state_key: str, result: ReadResult, path: Path | str, **extra: Any) -> None:
    """Persist the cursor after ``result`` (plus ``extra`` fields such as the last evaluation id)."""
    target = cursor_path(state_key)
    with fsutil.exclusive_lock(target.with_suffix(".lock"), timeout=10):
        data = load_cursor(state_key)
        data.update(path=str(path), offset=result.new_offset, inode=result.inode,
                    fingerprint=result.fingerprint, **extra)
        fsutil.atomic_write_text(target, json.dumps(data, ensure_ascii=False))


def read_new(path: Path | str, state_key: str, *, max_bytes: int = MAX_READ_BYTES,
             commit_offset: bool = True) -> ReadResult:
    """Entries appended to ``path`` since the last committed read for ``state_key``."""
    cur = load_cursor(state_key)
    same_file = cur.get("path") == str(path)
    result = read_chunk(path, int(cur.get("offset", 0)) if same_file else 0, max_bytes=max_bytes,
                        fingerprint=str(cur.get("fingerprint", "")) if same_file else "",
                        inode=int(cur.get("inode", 0)) if same_file else 0)
    if commit_offset:
        commit(state_key, result, path)
    return result


def prune_cursors(max_age_days: float = 35.0) -> int:
    """Delete cursors untouched for ``max_age_days`` (Claude Code deletes transcripts after 30)."""
    return fsutil.prune_old_files(paths.state_dir() / "transcripts", (".json", ".lock"), max_age_days)


# ---- parsing -----------------------------------------------------------------------------

@dataclass
class ToolCall:
    id: str
    name: str
    input: dict
    timestamp: float | None
    message_id: str


@dataclass
class ToolResult:
    tool_use_id: str
    is_error: bool
    exit_code: int | None
    error_kind: str          # short generic label, "" when not an error
    first_line: str          # first non-empty output line, at most 160 characters
    timestamp: float | None
    head: str = ""           # the first 1000 characters of an error's text (classification only)
    tail: str = ""           # the last 600 characters of the output (a test summary; judging only)


@dataclass
class Prompt:
    text: str
    timestamp: float | None


@dataclass
class AssistantMessage:
    id: str
    model: str
    texts: list[str]
    tool_calls: list[ToolCall]
    stop_reason: str | None
    usage: dict
    timestamp: float | None

    @property
    def text(self) -> str:
        return "\n".join(t for t in self.texts if t)


@dataclass
class Transcript:
    # ordered events: ("prompt", Prompt) | ("assistant", AssistantMessage) | ("result", ToolResult)
    events: list[tuple[str, Any]] = field(default_factory=list)
    session_id: str = ""
    agent_id: str = ""
    is_sidechain: bool = False
    first_ts: float | None = None
    last_ts: float | None = None

    @property
    def prompts(self) -> list[Prompt]:
        return [e for k, e in self.events if k == "prompt"]

    @property
    def messages(self) -> list[AssistantMessage]:
        return [e for k, e in self.events if k == "assistant"]

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [c for m in self.messages for c in m.tool_calls]

    @property
    def results(self) -> dict[str, ToolResult]:
        return {e.tool_use_id: e for k, e in self.events if k == "result"}

    def tokens(self) -> int:
        return sum(usage_total(m.usage) for m in self.messages)

    @property
    def final_text(self) -> str:
        for msg in reversed(self.messages):
            if msg.text.strip():
                return msg.text
        return ""


def usage_total(usage: dict) -> int:
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    total = 0
    for key in keys:
        value = usage.get(key) if isinstance(usage, dict) else None
        if isinstance(value, (int, float)):
            total += int(value)
    return total


def parse_timestamp(value: Any) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def is_real_prompt_text(text: str) -> bool:
    stripped = _REMINDER.sub("", text).strip()
    return bool(stripped) and not stripped.startswith(_NOISE_PREFIXES)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def classify_error(text: str) -> str:
    for pattern, kind in _ERROR_KINDS:
        if pattern.search(text[:4000]):
            return kind
    return "error"


def _tool_result(block: dict, ts: float | None) -> ToolResult:
    # Claude Code appends a system reminder to some results (file reads): not the tool's output
    text = _REMINDER.sub("", _result_text(block.get("content"))).rstrip()
    is_error = bool(block.get("is_error"))
    match = _EXIT_CODE.match(text)
    exit_code = int(match.group(1)) if match else None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not _EXIT_CODE.match(ln)]
    first = lines[0][:160] if lines else ""
    return ToolResult(str(block.get("tool_use_id", "")), is_error, exit_code,
                      classify_error(text) if is_error else "", first, ts, text[:1000] if is_error else "",
                      text[-600:])


def parse(entries: Iterable[dict]) -> Transcript:
    out = Transcript()
    merged: dict[str, AssistantMessage] = {}
    final_usage: set[str] = set()
    for entry in entries:
        kind = entry.get("type")
        if kind not in ("user", "assistant"):
            continue
        ts = parse_timestamp(entry.get("timestamp"))
        message = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        out.session_id = out.session_id or str(entry.get("sessionId") or "")
        out.agent_id = out.agent_id or str(entry.get("agentId") or "")
        out.is_sidechain = out.is_sidechain or bool(entry.get("isSidechain"))
        if kind == "assistant":
            if message.get("model") == "<synthetic>":
                continue
            _merge_assistant(out, merged, final_usage, entry, message, ts)
        else:
            _add_user(out, entry, message, ts)
        if ts is not None:
            out.first_ts = ts if out.first_ts is None else min(out.first_ts, ts)
            out.last_ts = ts if out.last_ts is None else max(out.last_ts, ts)
    return out


def _add_user(out: Transcript, entry: dict, message: dict, ts: float | None) -> None:
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            out.events.append(("result", _tool_result(block, ts)))
    if entry.get("isMeta") or entry.get("isCompactSummary") or entry.get("toolUseResult") is not None:
        return
    if isinstance(content, str):
        text = content
    else:
        text = "\n".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    if is_real_prompt_text(text):
        out.events.append(("prompt", Prompt(_REMINDER.sub("", text).strip(), ts)))


def _merge_assistant(out: Transcript, merged: dict, final_usage: set, entry: dict, message: dict,
                     ts: float | None) -> None:
    mid = str(message.get("id") or entry.get("uuid") or f"line-{len(out.events)}")
    msg = merged.get(mid)
    if msg is None:
        msg = AssistantMessage(mid, str(message.get("model", "")), [], [], None, {}, ts)
        merged[mid] = msg
        out.events.append(("assistant", msg))
    stop = message.get("stop_reason")
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else None
    # repeated lines of one message carry its usage so far (one content block per line, the
    # output count growing); the one with a stop_reason is final, else the largest figures are
    if usage is not None and (mid not in final_usage):
        if stop:
            msg.usage = usage
            final_usage.add(mid)
        else:
            merged_usage = dict(msg.usage)
            for key, value in usage.items():
                old = merged_usage.get(key)
                if isinstance(value, (int, float)) and isinstance(old, (int, float)):
                    merged_usage[key] = max(old, value)
                else:
                    merged_usage[key] = value
            msg.usage = merged_usage
    if stop:
        msg.stop_reason = stop
    known_calls = {c.id for c in msg.tool_calls}
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            if block["text"] not in msg.texts:
                msg.texts.append(block["text"])
        elif block.get("type") == "tool_use":
            call_id = str(block.get("id", ""))
            if call_id in known_calls:
                continue
            known_calls.add(call_id)
            raw_input = block.get("input")
            msg.tool_calls.append(ToolCall(call_id, str(block.get("name", "")),
                                           raw_input if isinstance(raw_input, dict) else {}, ts, mid))
