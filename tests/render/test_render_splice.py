"""Splicing the managed block into real agent files: idempotent and non-destructive."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from kioku.infra.errors import KiokuError
from kioku.render.presets import get_preset
from kioku.render.section import parse_section, render_section
from kioku.render.splice import BEGIN_MARKER, END_MARKER, find_block, remove_block, splice, splice_text

AGENT_STEMS = ["code-reviewer", "terse", "bom-agent", "windows-agent"]


def _section(name: str = "code-finder", preset: str = "code-finder", project_id: str = "0123456789ab") -> str:
    p = get_preset(preset)
    return render_section(name, p.criteria, p.categories, p.project_learning, project_id=project_id)


@pytest.mark.parametrize("stem", AGENT_STEMS)
def test_splice_is_idempotent_and_keeps_every_other_byte(stem: str, agent_file, tmp_path: Path) -> None:
    original = agent_file(stem)
    path = tmp_path / f"{stem}.md"
    path.write_bytes(original)
    os.chmod(path, 0o644)
    section = _section(stem)

    assert splice(path, section, agent_name=stem) is True
    first = path.read_bytes()
    # everything that was there is still there, byte for byte, in front of the block
    assert first.startswith(original)
    added = first[len(original):].decode("utf-8")
    assert BEGIN_MARKER in added and added.rstrip("\r\n").endswith(END_MARKER)
    # the file keeps its line-ending style and its final-newline-or-not
    crlf = b"\r\n" in original
    assert (b"\r\n" in added.encode()) == crlf
    if crlf:
        assert b"\n" not in first.replace(b"\r\n", b"")
    assert first.endswith(b"\n") == original.endswith(b"\n")

    mtime = path.stat().st_mtime_ns
    assert splice(path, section, agent_name=stem) is False  # second write: nothing to do
    assert path.read_bytes() == first and path.stat().st_mtime_ns == mtime
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # the user's mode is kept

    # a different section replaces only the block
    other = _section(stem, "debugging")
    assert splice(path, other, agent_name=stem) is True
    third = path.read_bytes()
    assert third.startswith(original) and "Root cause found" in third.decode("utf-8")
    assert "Result accuracy" not in third.decode("utf-8")
    assert splice(path, section, agent_name=stem) is True
    assert path.read_bytes() == first

    # and the block comes out again, leaving the original file
    assert remove_block(first.decode("utf-8")).encode("utf-8") == original


def test_block_in_the_middle_is_replaced_in_place(agent_file) -> None:
    original = agent_file("code-reviewer").decode("utf-8")
    head, tail = original.split("## Output format")
    old_block = f"{BEGIN_MARKER}\nold content the user should not have edited\n{END_MARKER}"
    text = f"{head}{old_block}\n\n## Output format{tail}"
    spliced = splice_text(text, _section("code-reviewer"))
    assert spliced.startswith(head + BEGIN_MARKER)
    assert spliced.endswith(f"{END_MARKER}\n\n## Output format{tail}")
    assert "old content" not in spliced
    assert splice_text(spliced, _section("code-reviewer")) == spliced


def test_a_begin_marker_with_other_text_is_still_ours() -> None:
    text = "Body\n\n<!-- kioku:agent-memory:begin (older wording) -->\nold\n" + END_MARKER + "\n"
    out = splice_text(text, _section())
    assert out.startswith("Body\n\n" + BEGIN_MARKER) and "old\n" not in out


@pytest.mark.parametrize("damage", [
    f"{BEGIN_MARKER}\nno end\n",
    f"text\n{END_MARKER}\n",
    f"{END_MARKER}\n{BEGIN_MARKER}\n",
    f"{BEGIN_MARKER}\na\n{END_MARKER}\n{BEGIN_MARKER}\nb\n{END_MARKER}\n",
])
def test_damaged_markers_write_nothing(damage: str, tmp_path: Path) -> None:
    path = tmp_path / "agents" / "agent.md"
    path.parent.mkdir()
    original = f"---\nname: a\ndescription: d\n---\n\n{damage}"
    path.write_text(original, encoding="utf-8")
    with pytest.raises(KiokuError, match="markers in this file are damaged"):
        splice(path, _section("a"), agent_name="a")
    assert path.read_text(encoding="utf-8") == original
    assert [p.name for p in path.parent.iterdir()] == ["agent.md"]  # no temp file left behind


def test_markers_inside_prose_do_not_count() -> None:
    text = f"Mention `{END_MARKER}` inline is not a marker line.\n"
    assert find_block(text) is None


def test_other_agents_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "reviewer.md"
    original = "---\nname: 'code-reviewer'\ndescription: d\n---\nbody\n"
    path.write_text(original, encoding="utf-8")
    with pytest.raises(KiokuError, match="defines agent 'code-reviewer', not 'code-finder'"):
        splice(path, _section(), agent_name="code-finder")
    assert path.read_text(encoding="utf-8") == original


def test_non_utf8_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin.md"
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(KiokuError, match="not UTF-8"):
        splice(path, _section(), agent_name="code-finder")
    assert path.read_bytes() == "caf\xe9\n".encode("latin-1")


def test_missing_file_is_created_as_a_valid_agent(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "agents" / "code-finder.md"
    p = get_preset("code-finder")
    assert splice(path, _section(), agent_name="code-finder", description=p.description, body=p.body)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front == {"name": "code-finder", "description": p.description}
    body = text.split("---\n", 2)[2]
    assert body.strip().startswith(p.body)
    assert parse_section(text).name == "code-finder"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert splice(path, _section(), agent_name="code-finder") is False


def test_created_description_with_yaml_specials_stays_valid(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    tricky = 'Finds code: "where is X" # not a comment, [brackets], {braces}, 日本語'
    splice(path, _section("x"), agent_name="x", description=tricky)
    front = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
    assert front["description"] == tricky and front["name"] == "x"


def test_missing_file_without_a_name_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KiokuError, match="does not exist"):
        splice(tmp_path / "nope.md", _section())
    assert not (tmp_path / "nope.md").exists()


def test_existing_folder_permissions_are_not_changed(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    path = folder / "a.md"
    path.write_text("---\nname: a\ndescription: d\n---\nbody\n", encoding="utf-8")
    splice(path, _section("a"), agent_name="a")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755


def test_symlinked_agent_file_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "a.md"
    real.parent.mkdir()
    real.write_text("---\nname: a\ndescription: d\n---\nbody\n", encoding="utf-8")
    link = tmp_path / "a.md"
    link.symlink_to(real)
    splice(link, _section("a"), agent_name="a")
    assert link.is_symlink()
    assert BEGIN_MARKER in real.read_text(encoding="utf-8")


def test_concurrent_splices_leave_one_well_formed_block(tmp_path: Path) -> None:
    """Several processes writing sections at once: the lock serialises them, one block survives."""
    import subprocess
    import sys

    path = tmp_path / "a.md"
    path.write_text("---\nname: a\ndescription: d\n---\nbody\n", encoding="utf-8")
    code = (
        "import sys; from kioku.render.presets import get_preset; "
        "from kioku.render.section import render_section; from kioku.render.splice import splice\n"
        "p = get_preset(sys.argv[2])\n"
        "splice(sys.argv[1], render_section('a', p.criteria, p.categories, False), agent_name='a')\n"
    )
    presets = ["code-finder", "research", "development", "debugging", "general"] * 2
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), p]) for p in presets]
    assert all(proc.wait(timeout=120) == 0 for proc in procs)
    text = path.read_text(encoding="utf-8")
    assert text.count(BEGIN_MARKER) == 1 and text.count(END_MARKER) == 1
    assert text.startswith("---\nname: a\ndescription: d\n---\nbody\n\n" + BEGIN_MARKER)
    assert parse_section(text) is not None


def test_new_agent_file_renders_like_golden(golden) -> None:
    from kioku.render.splice import new_agent_file

    p = get_preset("code-finder")
    golden("agent_file.code-finder.md", new_agent_file("code-finder", p.description, p.body, _section()))


def test_an_empty_file_becomes_a_valid_agent(tmp_path: Path) -> None:
    path = tmp_path / "empty.md"
    path.write_text("\n", encoding="utf-8")
    assert splice(path, _section("empty"), agent_name="empty") is True
    text = path.read_text(encoding="utf-8")
    assert yaml.safe_load(text.split("---\n")[1])["name"] == "empty"
    assert splice(path, _section("empty"), agent_name="empty") is False
