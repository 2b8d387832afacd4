"""kioku.model.exported: an answer is read only for the request it was written for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kioku.model.exported import INDEX, FileAnswers, read_index, request_sha256
from kioku.model.request import ModelOutputError, ModelRequest

REQUEST = ModelRequest(purpose="judge", system="Judge the turns.", prompt="t1: fix the test", schema={"type": "object"})


def _export(folder: Path, request: ModelRequest, answer: str | None) -> dict:
    index = {"model": "haiku", "calls": [{"file": "0001-a.json", "sha256": request_sha256(request)}]}
    (folder / INDEX).write_text(json.dumps(index), encoding="utf-8")
    if answer is not None:
        (folder / "0001-a.json.answer").write_text(answer, encoding="utf-8")
    return read_index(folder, "judge")


def test_the_answer_beside_the_matching_file_is_the_reply(tmp_path: Path) -> None:
    answers = FileAnswers(tmp_path, _export(tmp_path, REQUEST, '{"turns": []}'))
    reply = answers(REQUEST)
    assert reply.text == '{"turns": []}' and answers.answered == ["0001-a.json"]
    assert reply.model == f"haiku (answers from {tmp_path.name})"


def test_a_request_that_differs_in_any_part_finds_no_answer(tmp_path: Path) -> None:
    answers = FileAnswers(tmp_path, _export(tmp_path, REQUEST, '{"turns": []}'))
    other = ModelRequest(purpose="judge", system=REQUEST.system, prompt=REQUEST.prompt + "!", schema=REQUEST.schema)
    with pytest.raises(ModelOutputError, match="no exported request matches"):
        answers(other)


def test_a_missing_answer_file_is_recorded_as_missing(tmp_path: Path) -> None:
    answers = FileAnswers(tmp_path, _export(tmp_path, REQUEST, None))
    with pytest.raises(ModelOutputError, match="no answer file 0001-a.json.answer"):
        answers(REQUEST)
    assert answers.missing == ["0001-a.json"]


@pytest.mark.parametrize("content, message", [(None, "holds no enrichment export"), ("[1]", "is not the index of an export of enrichment requests")])
def test_a_folder_without_an_export_index_says_so_in_one_line(tmp_path: Path, content: str | None, message: str) -> None:
    if content is not None:
        (tmp_path / INDEX).write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as raised:
        read_index(tmp_path, "enrichment")
    assert "\n" not in str(raised.value)


def test_pack_keeps_order_and_fills_batches_to_their_caps() -> None:
    from kioku.model.request import pack

    sizes = [3, 3, 3, 9, 1, 1, 1]
    batches = pack(sizes, lambda n: n, max_items=3, max_chars=7)
    assert batches == [[3, 3], [3], [9], [1, 1, 1]]   # 9 is over the cap and goes alone


def test_a_request_told_its_problem_keeps_everything_but_the_message_end() -> None:
    again = REQUEST.told("turn t2 is missing")
    assert again.prompt.startswith(REQUEST.prompt) and "turn t2 is missing" in again.prompt[len(REQUEST.prompt):]
    assert (again.system, again.schema, again.purpose, again.max_output_tokens) == \
        (REQUEST.system, REQUEST.schema, REQUEST.purpose, REQUEST.max_output_tokens)
