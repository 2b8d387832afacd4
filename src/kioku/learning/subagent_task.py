"""A subagent's task text, from the parent session's transcript (stdlib only; SubagentStart runs it).

The SubagentStart payload names the agent (``agent_type``) but carries no task. The parent's
transcript holds the ``Agent`` (older: ``Task``) tool call that started it, whose input has
``subagent_type`` and ``prompt``. Only the last :data:`TAIL_BYTES` of the file are read, newest
line first, and only regular files (never a FIFO or a device); anything unexpected gives "",
and selection then falls back to the digest's top list.
"""

from __future__ import annotations

import json
import os
import stat

TAIL_BYTES = 256 * 1024
TOOL_NAMES = ("Agent", "Task")


def task_text(transcript_path: object, agent_type: str) -> str:
    if not isinstance(transcript_path, str) or not transcript_path or not agent_type:
        return ""
    try:
        fd = os.open(transcript_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return ""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return ""
        os.lseek(fd, max(0, info.st_size - TAIL_BYTES), os.SEEK_SET)
        tail = os.read(fd, TAIL_BYTES)
    except OSError:
        return ""
    finally:
        os.close(fd)
    for raw in reversed(tail.split(b"\n")):
        if b'"subagent_type"' not in raw:
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            continue  # the first line of the tail may be cut
        content = (entry.get("message") or {}).get("content") if isinstance(entry, dict) else None
        for block in reversed(content if isinstance(content, list) else []):
            if (isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in TOOL_NAMES
                    and isinstance(block.get("input"), dict) and block["input"].get("subagent_type") == agent_type):
                prompt = block["input"].get("prompt")
                if not isinstance(prompt, str):
                    return ""
                from kioku.infra.fastjson import without_lone_surrogates

                return without_lone_surrogates(prompt)  # a lone "\ud800" in the transcript's JSON
    return ""
