"""A credential given as an agent name, a category or a tag never reaches the store: not a
collection name, not the journal, not a digest file name."""

from __future__ import annotations

from pathlib import Path

import pytest

from kioku.lessons.improvements import learn
from kioku.lessons.store.names import collection_name
from kioku.infra.errors import SecretRejected

AWS_ID = "AKIA" + "Q7RZ2M9PL4KT8WZ1"


def _every_name_and_byte(*roots: Path) -> str:
    out = []
    for root in roots:
        for p in root.rglob("*") if root.exists() else ():
            out.append(p.name)
            if p.is_file():
                out.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


@pytest.mark.parametrize("field", ["agent", "category", "tags"])
def test_credential_in_a_field_is_refused_and_nothing_is_written(project, isolated_home, field):
    kwargs = {"agent": "main", "lesson": "Run the linter before committing", "category": "code_quality",
              "confidence": 0.9, "tags": ("lint",)}
    kwargs[field] = AWS_ID if field != "tags" else ("lint", AWS_ID)
    with pytest.raises(SecretRejected) as info:
        learn(**kwargs, project_root=project)
    assert AWS_ID not in str(info.value)
    assert AWS_ID not in _every_name_and_byte(project, isolated_home)


def test_collection_name_refuses_a_credential():
    with pytest.raises(SecretRejected):
        collection_name(AWS_ID, "improvements")
    assert collection_name("code-reviewer", "improvements") == "agent_code_reviewer_improvements"


def test_cli_refuses_credential_agent_with_one_line(project, kioku):
    out = kioku("lessons", "learn", "--agent", AWS_ID, "Run the linter", "--category", "code_quality",
                "--confidence", "0.9")
    assert out.returncode == 3 and AWS_ID not in out.stderr + out.stdout
    assert len(out.stderr.strip().splitlines()) == 1
