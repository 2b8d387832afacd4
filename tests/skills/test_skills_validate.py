"""Both skills pass the Agent Skills reference validator and the progressive-disclosure rules.

``quick_validate`` below mirrors anthropics/skills ``skills/skill-creator/scripts/quick_validate.py``
check for check (same regexes, same order, same messages), so a skill that passes here passes
there. The extra checks are the spec's rules the script does not code: name equals the folder,
body under 500 lines, references linked one level deep and all present.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

SKILLS_DIR = Path(__file__).resolve().parents[2] / "skills"
SKILL_NAMES = ["memory-system", "agent-memory"]
ALLOWED_PROPERTIES = {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}


def quick_validate(skill_path: Path) -> tuple[bool, str]:
    """The reference validator's checks, in its order and with its messages."""
    skill_md = skill_path / "SKILL.md"
    if not skill_md.exists():
        return False, "SKILL.md not found"
    content = skill_md.read_text()
    if not content.startswith("---"):
        return False, "No YAML frontmatter found"
    match = re.match(r"^---\n(.*?)\n---", content, re.DOTALL)
    if not match:
        return False, "Invalid frontmatter format"
    try:
        frontmatter = yaml.safe_load(match.group(1))
        if not isinstance(frontmatter, dict):
            return False, "Frontmatter must be a YAML dictionary"
    except yaml.YAMLError as e:
        return False, f"Invalid YAML in frontmatter: {e}"
    unexpected_keys = set(frontmatter.keys()) - ALLOWED_PROPERTIES
    if unexpected_keys:
        return False, (
            f"Unexpected key(s) in SKILL.md frontmatter: {', '.join(sorted(unexpected_keys))}. "
            f"Allowed properties are: {', '.join(sorted(ALLOWED_PROPERTIES))}"
        )
    if "name" not in frontmatter:
        return False, "Missing 'name' in frontmatter"
    if "description" not in frontmatter:
        return False, "Missing 'description' in frontmatter"
    name = frontmatter.get("name", "")
    if not isinstance(name, str):
        return False, f"Name must be a string, got {type(name).__name__}"
    name = name.strip()
    if name:
        if not re.match(r"^[a-z0-9-]+$", name):
            return False, f"Name '{name}' should be kebab-case (lowercase letters, digits, and hyphens only)"
        if name.startswith("-") or name.endswith("-") or "--" in name:
            return False, f"Name '{name}' cannot start/end with hyphen or contain consecutive hyphens"
        if len(name) > 64:
            return False, f"Name is too long ({len(name)} characters). Maximum is 64 characters."
    description = frontmatter.get("description", "")
    if not isinstance(description, str):
        return False, f"Description must be a string, got {type(description).__name__}"
    description = description.strip()
    if description:
        if "<" in description or ">" in description:
            return False, "Description cannot contain angle brackets (< or >)"
        if len(description) > 1024:
            return False, f"Description is too long ({len(description)} characters). Maximum is 1024 characters."
    if "compatibility" in frontmatter:
        compatibility = frontmatter["compatibility"]
        if not isinstance(compatibility, str):
            return False, f"Compatibility must be a string, got {type(compatibility).__name__}"
        if not compatibility:
            return False, "Compatibility cannot be empty"
        if len(compatibility) > 500:
            return False, f"Compatibility is too long ({len(compatibility)} characters). Maximum is 500 characters."
    return True, "Skill is valid!"


def _split(skill: str) -> tuple[dict, str]:
    text = (SKILLS_DIR / skill / "SKILL.md").read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, "frontmatter missing"
    return yaml.safe_load(match.group(1)), text[match.end():]


def _local_links(markdown: str) -> list[str]:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", markdown)
    return [link for link in links if not re.match(r"^[a-z]+:", link)]


@pytest.mark.parametrize("skill", SKILL_NAMES)
def test_reference_validator_accepts_the_skill(skill: str) -> None:
    assert quick_validate(SKILLS_DIR / skill) == (True, "Skill is valid!")


@pytest.mark.parametrize("skill", SKILL_NAMES)
def test_spec_rules_beyond_the_script(skill: str) -> None:
    front, body = _split(skill)
    assert front["name"] == skill  # the folder name is the command name in Claude Code
    assert set(front) <= ALLOWED_PROPERTIES
    description = front["description"].strip()
    assert 200 <= len(description) <= 1024
    assert "\n" not in description  # folded scalar: one paragraph in the listing
    assert not re.search(r"\b(?:anthropic|claude)\b", front["name"])  # reserved words in names
    assert len(body.splitlines()) < 500
    assert len(body.split()) < 3500  # well under the ~5k-token body budget


@pytest.mark.parametrize("skill", SKILL_NAMES)
def test_references_are_one_level_deep_and_exist(skill: str) -> None:
    folder = SKILLS_DIR / skill
    _front, body = _split(skill)
    linked = {Path(link).as_posix() for link in _local_links(body)}
    assert linked, "SKILL.md links no reference files"
    for link in linked:
        assert re.fullmatch(r"references/[a-z0-9-]+\.md", link), f"{link} is not references/NAME.md"
        assert (folder / link).is_file(), f"{link} is linked but missing"
    present = {p.relative_to(folder).as_posix() for p in (folder / "references").rglob("*") if p.is_file()}
    assert present == linked, "every reference file is linked from SKILL.md, and nothing deeper"
    for ref in present:
        text = (folder / ref).read_text(encoding="utf-8")
        # one level deep: references do not send the reader on to further local files
        assert _local_links(text) == [], f"{ref} links further files"
        if len(text.splitlines()) > 100:
            assert "## Contents" in text, f"{ref} is over 100 lines without a table of contents"


TRIGGERS = {
    "memory-system": ["remember that", "save this", "don't forget", "覚えておいて", "保存して",
                      "忘れないで", "what do you remember about", "前に決めたこと", "forget that"],
    "agent-memory": ["Memory Configuration (uses agent-memory-skills)", "learn from this",
                     "dashboard", "この教訓を覚えて", "学習して", "kioku agent-section"],
}


@pytest.mark.parametrize("skill", SKILL_NAMES)
def test_description_carries_the_phrasings_users_type(skill: str) -> None:
    front, _ = _split(skill)
    description = front["description"]
    for phrase in TRIGGERS[skill]:
        assert phrase in description, phrase
    assert "Use this skill whenever" in description  # says when, and pushes a little


@pytest.mark.parametrize("bad_front, message", [
    ("name: x\ndescription: ok\nwhen_to_use: later", "Unexpected key(s) in SKILL.md frontmatter: when_to_use"),
    ("name: Bad_Name\ndescription: ok", "should be kebab-case"),
    ("name: a--b\ndescription: ok", "cannot start/end with hyphen"),
    ("name: " + "a" * 65 + "\ndescription: ok", "Name is too long (65 characters)"),
    ("name: x\ndescription: use <tags>", "angle brackets"),
    ("name: x\ndescription: " + "d" * 1025, "Description is too long (1025 characters)"),
    ("description: ok", "Missing 'name'"),
    ("name: x", "Missing 'description'"),
    ("name: x\ndescription: ok\ncompatibility: ''", "Compatibility cannot be empty"),
    ("- a list", "Frontmatter must be a YAML dictionary"),
])
def test_the_validator_rejects_what_the_reference_rejects(tmp_path: Path, bad_front: str, message: str) -> None:
    (tmp_path / "SKILL.md").write_text(f"---\n{bad_front}\n---\n\nBody\n", encoding="utf-8")
    ok, got = quick_validate(tmp_path)
    assert not ok and message in got
