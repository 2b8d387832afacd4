"""``kioku agent-section`` through the real CLI (subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kioku.infra import paths
from kioku.render.presets import get_preset
from kioku.render.section import parse_section
from kioku.render.splice import BEGIN_MARKER

CRITERIA = "Result accuracy:30,Search confidence:25,Completeness:20,Efficiency:15,Clarity:10"
CATEGORIES = "search_strategy=Effective search patterns,code_patterns=Where code of a kind lives"


def test_preset_needs_no_other_flags(kioku, project: Path) -> None:
    out = kioku("agent-section", "code-finder", "--preset", "code-finder", cwd=project)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("## Memory Configuration (uses agent-memory-skills)\n")
    assert "| Result accuracy | 30% |" in out.stdout
    # project learning is on for this preset, with this project's identity
    assert f"agent_code_finder_project_{paths.project_identity(project)}_improvements" in out.stdout


def test_explicit_flags(kioku, project: Path) -> None:
    out = kioku("agent-section", "code-finder", "--criteria", CRITERIA, "--categories", CATEGORIES,
                cwd=project)
    assert out.returncode == 0, out.stderr
    config = parse_section(out.stdout)
    assert config.criteria == {"Result accuracy": 30, "Search confidence": 25, "Completeness": 20,
                               "Efficiency": 15, "Clarity": 10}
    assert config.categories == {"search_strategy": "Effective search patterns",
                                 "code_patterns": "Where code of a kind lives"}
    assert config.project_learning is False and "_project_" not in out.stdout
    out = kioku("agent-section", "code-finder", "--criteria", CRITERIA, "--categories", CATEGORIES,
                "--project-learning", cwd=project)
    assert parse_section(out.stdout).project_learning is True


def test_flags_override_preset_parts(kioku, project: Path) -> None:
    out = kioku("agent-section", "finder", "--preset", "code-finder", "--criteria", "Speed:100",
                "--no-project-learning", cwd=project)
    assert out.returncode == 0, out.stderr
    config = parse_section(out.stdout)
    assert config.criteria == {"Speed": 100}
    assert config.categories == get_preset("code-finder").categories
    assert config.project_learning is False


def test_write_twice_is_byte_identical_and_keeps_the_file(kioku, project: Path, agent_file) -> None:
    path = project / ".claude" / "agents" / "code-reviewer.md"
    path.parent.mkdir(parents=True)
    original = agent_file("code-reviewer")
    path.write_bytes(original)
    args = ("agent-section", "code-reviewer", "--preset", "development", "--write", str(path))
    first = kioku(*args, cwd=project)
    assert first.returncode == 0, first.stderr
    assert "written to" in first.stdout
    once = path.read_bytes()
    assert once.startswith(original) and BEGIN_MARKER.encode() in once
    second = kioku(*args, cwd=project)
    assert second.returncode == 0 and "already up to date" in second.stdout
    assert path.read_bytes() == once
    config = parse_section(once.decode("utf-8"))
    assert config.name == "code-reviewer" and config.project_learning
    assert f"_project_{paths.project_identity(project)}_" in once.decode("utf-8")


def test_write_creates_a_valid_agent_file(kioku, project: Path) -> None:
    path = project / ".claude" / "agents" / "code-finder.md"
    out = kioku("agent-section", "code-finder", "--preset", "code-finder", "--write", str(path),
                cwd=project)
    assert out.returncode == 0, out.stderr
    text = path.read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["name"] == "code-finder" and front["description"] == get_preset("code-finder").description
    assert "You are a code-finding specialist" in text
    assert parse_section(text).criteria == get_preset("code-finder").criteria


@pytest.mark.parametrize("args, message", [
    (("code-finder", "--criteria", "A:50,B:40", "--categories", "x=y"), "criteria weights sum to 90, not 100"),
    (("code-finder", "--criteria", "A:50;B:50", "--categories", "x=y"), "malformed criterion"),
    (("code-finder", "--criteria", "A:100"), "no insight categories"),
    (("code-finder",), "no quality criteria"),
    (("--preset", "code-finder"), "an agent name is required"),
    (("Code Finder", "--preset", "code-finder"), "invalid agent name"),
    (("code-finder", "--preset", "nope"), "unknown preset 'nope'"),
    (("code-finder", "--preset", "code-finder", "--categories", "Bad Key=x"), "invalid category 'Bad Key'"),
])
def test_errors_are_one_clear_line_and_write_nothing(kioku, project: Path, args, message) -> None:
    path = project / "agent.md"
    out = kioku("agent-section", *args, "--write", str(path), cwd=project)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.strip().splitlines() == [f"kioku: error: {out.stderr.split('error: ', 1)[1].strip()}"]
    assert message in out.stderr
    assert not path.exists()


def test_unknown_option_is_rejected_and_writes_nothing(kioku, project: Path, agent_file) -> None:
    path = project / "a.md"
    path.write_bytes(agent_file("terse"))
    out = kioku("agent-section", "terse", "--preset", "general", "--wrtie", str(path), cwd=project)
    assert out.returncode == 2 and "unrecognized arguments: --wrtie" in out.stderr
    assert path.read_bytes() == agent_file("terse")


def test_error_on_existing_file_leaves_it_untouched(kioku, project: Path, agent_file) -> None:
    path = project / "terse.md"
    path.write_bytes(agent_file("terse"))
    out = kioku("agent-section", "terse", "--criteria", "A:99", "--categories", "x=y",
                "--write", str(path), cwd=project)
    assert out.returncode == 2 and "sum to 99" in out.stderr
    assert path.read_bytes() == agent_file("terse")
    out = kioku("agent-section", "other-name", "--preset", "general", "--write", str(path), cwd=project)
    assert out.returncode == 1 and "defines agent 'terse'" in out.stderr
    assert path.read_bytes() == agent_file("terse")


def test_show_and_list_presets(kioku, project: Path) -> None:
    path = project / "x.md"
    assert kioku("agent-section", "x", "--preset", "research", "--write", str(path),
                 cwd=project).returncode == 0
    shown = kioku("agent-section", "--show", str(path), "--json", cwd=project)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data == {"name": "x", "criteria": get_preset("research").criteria,
                    "categories": get_preset("research").categories, "project_learning": False}
    listed = json.loads(kioku("agent-section", "--list-presets", "--json", cwd=project).stdout)
    assert {"code-finder", "research", "development", "debugging"} <= set(listed)
    missing = kioku("agent-section", "--show", str(project / "none.md"), cwd=project)
    assert missing.returncode == 1 and "cannot read" in missing.stderr


def test_the_evaluator_scores_with_what_agent_section_wrote(kioku, project: Path) -> None:
    """Round trip into the evaluator: kioku agent-section --write → kioku.evaluation.criteria.load_criteria."""
    from kioku.evaluation.criteria import load_criteria

    path = project / ".claude" / "agents" / "finder.md"
    out = kioku("agent-section", "finder", "--criteria", CRITERIA, "--categories", CATEGORIES,
                "--write", str(path), cwd=project)
    assert out.returncode == 0, out.stderr
    criteria = load_criteria("finder", project)
    assert criteria == {"Result accuracy": 30, "Search confidence": 25, "Completeness": 20,
                        "Efficiency": 15, "Clarity": 10}


def test_a_hand_written_section_is_kept_and_reported(kioku, project: Path) -> None:
    path = project / "old.md"
    original = ("---\nname: old\ndescription: d\n---\n\nBody.\n\n"
                "## Memory Configuration (uses agent-memory-skills)\n\n- hand-written notes\n")
    path.write_text(original, encoding="utf-8")
    out = kioku("agent-section", "old", "--preset", "general", "--write", str(path), cwd=project)
    assert out.returncode == 0, out.stderr
    assert "hand-written" in out.stderr and "outside Kioku's markers" in out.stderr
    assert path.read_text(encoding="utf-8").startswith(original)
    assert parse_section(path.read_text(encoding="utf-8")).criteria == get_preset("general").criteria
