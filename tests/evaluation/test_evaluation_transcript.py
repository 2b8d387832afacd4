"""kioku.evaluation.transcript: parsing the recorded real transcripts and incremental reading."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kioku.evaluation import transcript as tr


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_parse_bash_fail_then_success(transcripts: Path) -> None:
    entries, offset = tr.read_from(transcripts / "bash_fail_then_success.jsonl")
    assert offset == (transcripts / "bash_fail_then_success.jsonl").stat().st_size
    parsed = tr.parse(entries)
    assert [p.text for p in parsed.prompts] == [
        "List the files in the missing directory, or the project if it does not exist."]
    calls = parsed.tool_calls
    assert [(c.name, c.input["command"]) for c in calls] == [("Bash", "ls /nonexistent-dir"), ("Bash", "ls")]
    results = parsed.results
    first = results[calls[0].id]
    assert first.is_error and first.exit_code == 2 and first.error_kind == "No such file or directory"
    assert not results[calls[1].id].is_error
    assert parsed.final_text.startswith("The directory /nonexistent-dir does not exist")
    assert parsed.tokens() == 3 * 15  # 3 API messages × (10 input + 5 output) as the mock reports
    assert parsed.first_ts is not None and parsed.last_ts > parsed.first_ts


def test_parse_subagent_transcript(transcripts: Path) -> None:
    parsed = tr.parse(tr.read_from(transcripts / "subagent.agent-1.jsonl")[0])
    assert parsed.is_sidechain and parsed.agent_id == "a000000000000001"
    assert [p.text for p in parsed.prompts] == ["Review the files in the project and report problems."]
    assert [c.input.get("command") for c in parsed.tool_calls] == ["cat README.md"]
    main = tr.parse(tr.read_from(transcripts / "subagent.jsonl")[0])
    assert not main.is_sidechain
    assert [c.name for c in main.tool_calls] == ["Agent"]
    assert main.tool_calls[0].input["subagent_type"] == "reviewer"


def test_prompt_filter_skips_meta_and_noise(tmp_path: Path, transcripts: Path) -> None:
    real = json.loads(next(line for line in _lines(transcripts / "plain_success.jsonl")
                           if json.loads(line).get("type") == "user"))
    variants = [
        dict(real, isMeta=True, message={"role": "user", "content": "injected skill text"}),
        dict(real, isCompactSummary=True, message={"role": "user", "content": "This session is being continued"}),
        dict(real, message={"role": "user", "content": "<system-reminder>\nhook context\n</system-reminder>"}),
        dict(real, message={"role": "user", "content": "<command-name>/clear</command-name>"}),
        dict(real, message={"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}),
        dict(real, message={"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            {"type": "text", "text": "a real question in blocks"}]}),
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in variants), encoding="utf-8")
    parsed = tr.parse(tr.read_from(path)[0])
    assert [p.text for p in parsed.prompts] == ["a real question in blocks"]


def test_usage_dedup_by_message_id(tmp_path: Path, transcripts: Path) -> None:
    """Claude Code writes one line per content block with the usage repeated: count it once."""
    lines = _lines(transcripts / "bash_fail_then_success.jsonl")
    final = next(json.loads(line) for line in lines if json.loads(line).get("type") == "assistant"
                 and json.loads(line)["message"]["stop_reason"] == "end_turn")
    streaming = json.loads(json.dumps(final))
    streaming["message"]["stop_reason"] = None
    streaming["message"]["usage"] = dict(final["message"]["usage"], output_tokens=1)
    streaming["message"]["content"] = [{"type": "thinking", "thinking": "..."}]
    final["message"]["usage"] = dict(final["message"]["usage"], output_tokens=40)
    synthetic = json.loads(json.dumps(final))
    synthetic["message"].update(model="<synthetic>", id="msg_synthetic",
                                content=[{"type": "text", "text": "No response requested."}])
    path = tmp_path / "dup.jsonl"
    # a partial line, the final line, then the same final line repeated (as after a resume)
    path.write_text("".join(json.dumps(x) + "\n" for x in (streaming, final, final, streaming, synthetic)),
                    encoding="utf-8")
    parsed = tr.parse(tr.read_from(path)[0])
    assert len(parsed.messages) == 1
    msg = parsed.messages[0]
    assert msg.stop_reason == "end_turn"
    assert msg.usage["output_tokens"] == 40  # the line with a stop_reason wins over later partial copies
    assert parsed.tokens() == tr.usage_total(final["message"]["usage"])
    assert "No response requested." not in parsed.final_text


def test_bad_json_and_unknown_types_are_skipped(tmp_path: Path, transcripts: Path) -> None:
    good = _lines(transcripts / "bash_fail_then_success.jsonl")
    noisy = ['{"type":"user", "message": {broken json\n', '{"type":"brand-new-kind","x":1}\n', "[1,2]\n", "\n"]
    path = tmp_path / "noisy.jsonl"
    path.write_text("".join(noisy[:2] + good[:10] + noisy[2:] + good[10:]), encoding="utf-8")
    parsed = tr.parse(tr.read_from(path)[0])
    reference = tr.parse(tr.read_from(transcripts / "bash_fail_then_success.jsonl")[0])
    assert [c.id for c in parsed.tool_calls] == [c.id for c in reference.tool_calls]
    assert parsed.tokens() == reference.tokens()


def test_incremental_append_and_partial_last_line(tmp_path: Path, transcripts: Path) -> None:
    lines = _lines(transcripts / "bash_fail_then_success.jsonl")
    path = tmp_path / "live.jsonl"
    half = len(lines) // 2
    path.write_text("".join(lines[:half]), encoding="utf-8")
    e1, off1 = tr.read_from(path)
    assert off1 == path.stat().st_size
    tail = lines[half]
    with path.open("a", encoding="utf-8") as handle:
        handle.write(tail[: len(tail) // 2])  # Claude Code is mid-write
    e2, off2 = tr.read_from(path, off1)
    assert e2 == [] and off2 == off1  # the partial line is not consumed
    with path.open("a", encoding="utf-8") as handle:
        handle.write(tail[len(tail) // 2:] + "".join(lines[half + 1:]))
    e3, off3 = tr.read_from(path, off2)
    assert off3 == path.stat().st_size
    whole = tr.read_from(transcripts / "bash_fail_then_success.jsonl")[0]
    assert e1 + e3 == whole


def test_truncation_and_rewrite_restart(tmp_path: Path, transcripts: Path) -> None:
    lines = _lines(transcripts / "plain_success.jsonl")
    path = tmp_path / "rot.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    first = tr.read_new(path, "k1")
    assert first.new_offset == path.stat().st_size and not first.restarted
    path.write_text("".join(lines[:3]), encoding="utf-8")  # truncated / rotated
    again = tr.read_new(path, "k1")
    assert again.restarted and again.start_offset == 0 and again.new_offset == path.stat().st_size
    # same size, different content: the fingerprint before the offset notices
    other = _lines(transcripts / "bash_fail_then_success.jsonl")
    blob = "".join(other)[: path.stat().st_size - 1] + "\n"
    tmp = tmp_path / "rot2.jsonl"
    tmp.write_text(blob, encoding="utf-8")
    os.replace(tmp, path)
    third = tr.read_new(path, "k1")
    assert third.restarted and third.start_offset == 0


def test_read_new_persists_offset_per_key(tmp_path: Path, transcripts: Path) -> None:
    lines = _lines(transcripts / "feedback_followups.jsonl")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines[:5]), encoding="utf-8")
    a = tr.read_new(path, "agent:session:main")
    b = tr.read_new(path, "agent:session:main")
    assert b.entries == [] and b.start_offset == a.new_offset
    other_key = tr.read_new(path, "other:session:main")
    assert other_key.start_offset == 0
    peek = tr.read_new(path, "agent:session:x", commit_offset=False)
    assert tr.read_new(path, "agent:session:x", commit_offset=False).start_offset == 0
    tr.commit("agent:session:x", peek, path, last_eval_id="eval_1")
    assert tr.load_cursor("agent:session:x")["last_eval_id"] == "eval_1"
    state = list((Path(os.environ["KIOKU_HOME"]) / "state" / "transcripts").glob("*.json"))
    assert len(state) == 3 and all(p.stat().st_mode & 0o777 == 0o600 for p in state)


def test_huge_transcript_reads_tail_then_only_new_bytes(tmp_path: Path, transcripts: Path) -> None:
    """A 20 MB transcript: the first read is capped to the last MAX_READ_BYTES, the next reads
    exactly the bytes appended since (offset arithmetic, not timing)."""
    lines = _lines(transcripts / "bash_fail_then_success.jsonl")
    block = "".join(lines)
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        while handle.tell() < 20 * 1024 * 1024:
            handle.write(block)
    size = path.stat().st_size
    assert size >= 20 * 1024 * 1024
    first = tr.read_new(path, "big")
    assert first.skipped_bytes > 0
    assert first.skipped_bytes + (first.new_offset - first.start_offset - first.skipped_bytes) == size
    assert first.new_offset - (first.start_offset + first.skipped_bytes) <= tr.MAX_READ_BYTES
    assert first.new_offset == size
    assert all(isinstance(e, dict) for e in first.entries) and first.entries
    appended = "".join(_lines(transcripts / "plain_success.jsonl"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(appended)
    second = tr.read_new(path, "big")
    assert second.start_offset == size and second.skipped_bytes == 0
    assert second.new_offset - second.start_offset == len(appended.encode("utf-8"))
    assert second.entries == tr.read_from(transcripts / "plain_success.jsonl")[0]


def test_old_cursors_are_pruned(tmp_path: Path, transcripts: Path) -> None:
    path = transcripts / "plain_success.jsonl"
    tr.read_new(path, "old-session")
    tr.read_new(path, "new-session")
    folder = Path(os.environ["KIOKU_HOME"]) / "state" / "transcripts"
    [old] = [p for p in folder.glob("old-session-*.json")]
    long_ago = old.stat().st_mtime - 40 * 86400
    os.utime(old, (long_ago, long_ago))
    assert tr.prune_cursors(35) == 1
    assert not old.exists() and list(folder.glob("new-session-*.json"))
    assert tr.read_new(path, "old-session").start_offset == 0  # forgotten: starts over
