"""Who was at fault for a failed tool call (kioku.evaluation.blame)."""

from __future__ import annotations

import pytest

from kioku.evaluation import blame as bl

REJECT = "The user doesn't want to proceed with this tool use. The tool use was rejected."


@pytest.mark.parametrize("text,fault", [
    ("<tool_use_error>Sibling tool call errored</tool_use_error>", bl.CASCADE),
    (REJECT, bl.REJECTION),
    ("Permission to use Bash has been denied.", bl.REJECTION),
    ("Pre-commit validation failed:\n[FORMAT] Code is not formatted.", bl.HOOK),
    ("PreToolUse:Bash hook blocking error from command: check.sh", bl.HOOK),
    ("husky - pre-commit hook exited with code 1 (error)", bl.HOOK),
    ("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", bl.AGENT),
    ("Exit code 1\nFAILED tests/test_a.py::test_b", bl.AGENT),
    ("Exit code 127\n/bin/bash: line 1: python: command not found", bl.AGENT),
])
def test_blame_names_who_was_at_fault(text: str, fault: str) -> None:
    assert bl.blame_of(text) == fault
