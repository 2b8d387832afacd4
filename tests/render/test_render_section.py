"""Rendering the Memory Configuration section: golden files, StrictUndefined, validation,
and the round trip render → splice into a real agent file → parse_section → same config."""

from __future__ import annotations

import jinja2
import pytest

from kioku.lessons.store.names import collection_name
from kioku.infra import paths
from kioku.infra.errors import UsageError
from kioku.render import templating
from kioku.render.presets import PRESETS, get_preset
from kioku.render.section import parse_section, render_config, render_section, section_context
from kioku.render.spec import (
    SectionConfig,
    make_config,
    parse_categories,
    parse_criteria,
    validate_agent_name,
)
from kioku.render.splice import splice_text

AGENT_STEMS = ["code-reviewer", "terse", "bom-agent", "windows-agent"]
CUSTOM = dict(
    name="log-analyst",
    criteria={"Finding accuracy": 40, "Evidence quality": 35, "Brevity": 25},
    categories={"search_strategy": "Effective search patterns, e.g. grep by request id",
                "domain_terminology": "A log field or service name meant something specific",
                "alerting": "An alert turned out to be noise or real"},
    project_learning=False,
)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_renders_like_golden(preset: str, golden, fixed_project_id: str) -> None:
    p = get_preset(preset)
    text = render_section(preset, p.criteria, p.categories, p.project_learning,
                          project_id=fixed_project_id)
    golden(f"agent_section.{preset}.md", text)


def test_custom_section_renders_like_golden(golden) -> None:
    golden("agent_section.custom-no-project.md", render_section(**CUSTOM))


def test_rendered_section_names_the_store_collections(fixed_project_id: str) -> None:
    p = get_preset("code-finder")
    text = render_section("code-finder", p.criteria, p.categories, True, project_id=fixed_project_id)
    for kind in ("improvements", "evaluations", "performance"):
        assert f"`{collection_name('code-finder', kind)}`" in text
        assert f"`{collection_name('code-finder', kind, fixed_project_id)}`" in text
    no_project = render_section("code-finder", p.criteria, p.categories, False)
    assert "_project_" not in no_project and "agent_code_finder_improvements" in no_project
    # the workflow: retrieve before, evaluate and store (quality >= 70) after, exact CLI lines
    assert 'kioku lessons search --agent code-finder "TASK DESCRIPTION" --json' in text
    assert "kioku lessons learn --agent code-finder" in text and "--category search_strategy" in text
    assert "Phase 0.5" in text and "Phase N.5" in text and "at least 70" in text


def test_project_id_defaults_to_this_projects_identity(project) -> None:
    p = get_preset("development")
    text = render_section("dev", p.criteria, p.categories, True)
    assert f"agent_dev_project_{paths.project_identity()}_improvements" in text


def test_every_template_variable_is_required(fixed_project_id: str) -> None:
    """StrictUndefined: dropping any context key makes rendering fail loudly, never blank."""
    config = make_config(**{**CUSTOM, "project_learning": True})
    context = section_context(config, fixed_project_id)
    env = templating.environment()
    template = env.get_template(templating.SECTION_TEMPLATE)
    assert template.render(**context)
    for key in context:
        partial = {k: v for k, v in context.items() if k != key}
        with pytest.raises(jinja2.UndefinedError, match=key):
            template.render(**partial)


def test_strict_undefined_in_the_environment(tmp_path) -> None:
    (tmp_path / "t.md.j2").write_text("Hello {{ who }}\n", encoding="utf-8")
    (tmp_path / templating.SECTION_TEMPLATE).write_text("x\n", encoding="utf-8")
    with pytest.raises(jinja2.UndefinedError):
        templating.render_template("t.md.j2", {}, folder=tmp_path)
    # keep_trailing_newline and no HTML escaping (Markdown keeps its < > & and quotes)
    assert templating.render_template("t.md.j2", {"who": "<a & 'b'>"}, folder=tmp_path) == "Hello <a & 'b'>\n"


def test_templates_dir_override(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("KIOKU_TEMPLATES_DIR", str(tmp_path))
    (tmp_path / templating.SECTION_TEMPLATE).write_text("custom {{ name }}\n", encoding="utf-8")
    assert templating.templates_dir() == tmp_path
    assert render_config(make_config(**CUSTOM)) == "custom log-analyst\n"


@pytest.mark.parametrize("stem", AGENT_STEMS)
@pytest.mark.parametrize("preset", ["code-finder", "research", "custom"])
def test_round_trip_through_a_real_agent_file(stem: str, preset: str, agent_file,
                                              fixed_project_id: str) -> None:
    if preset == "custom":
        config = make_config(**CUSTOM)
    else:
        p = get_preset(preset)
        config = make_config(stem, p.criteria, p.categories, p.project_learning)
    section = render_config(config, project_id=fixed_project_id)
    spliced = splice_text(agent_file(stem).decode("utf-8"), section)
    parsed = parse_section(spliced)
    assert parsed == config
    assert sum(parsed.weight_fractions().values()) == pytest.approx(1.0)


def test_parse_section_without_a_section_is_none(agent_file) -> None:
    assert parse_section(agent_file("code-reviewer").decode("utf-8")) is None
    assert parse_section("") is None


def test_parse_section_reads_a_hand_copied_section_without_markers() -> None:
    config = make_config(**CUSTOM)
    text = "---\nname: log-analyst\ndescription: x\n---\n\nBody.\n\n" + render_config(config) + \
        "\n## Another section\n\n| Not | 50% |\n"
    assert parse_section(text) == config


def test_parse_section_survives_hand_edits() -> None:
    """An edited table that no longer sums to 100 still parses; weights are normalised."""
    text = render_config(make_config(**CUSTOM)).replace("| Brevity | 25% |", "| Brevity | 5% |")
    parsed = parse_section(text)
    assert parsed is not None and parsed.criteria["Brevity"] == 5
    assert sum(parsed.weight_fractions().values()) == pytest.approx(1.0)
    assert parsed.weight_fractions()["Finding accuracy"] == pytest.approx(40 / 80)


@pytest.mark.parametrize("spec, expected", [
    ("Result accuracy:30,Search confidence:25,Completeness:20,Efficiency:15,Clarity:10",
     {"Result accuracy": 30, "Search confidence": 25, "Completeness": 20, "Efficiency": 15,
      "Clarity": 10}),
    (" Accuracy : 60% , Speed:40 ", {"Accuracy": 60, "Speed": 40}),
    ("Everything:100", {"Everything": 100}),
    ("正確さ:70,速さ:30", {"正確さ": 70, "速さ": 30}),
])
def test_parse_criteria_valid(spec: str, expected: dict[str, int]) -> None:
    assert parse_criteria(spec) == expected
    assert list(parse_criteria(spec)) == list(expected)  # order is the table order


@pytest.mark.parametrize("spec, message", [
    ("A:30,B:30", "sum to 60, not 100"),
    ("A:60,B:50", "sum to 110, not 100"),
    ("A:100,B:0", "weight must be a whole number from 1 to 100"),
    ("A 100", "expected NAME:WEIGHT"),
    ("A:x,B:100", "is not a whole number"),
    ("A:50.5,B:49.5", "is not a whole number"),
    ("A:50,,B:50", "empty item"),
    ("A:50,a:50", "given twice"),
    (":100", "empty criterion name"),
    ("", "--criteria is empty"),
    ("A|B:100", "must not contain '|'"),
    ("`A`:100", "must not contain '`'"),
])
def test_parse_criteria_errors(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("|", r"\|")):
        parse_criteria(spec)


def test_parse_categories_allows_commas_in_descriptions() -> None:
    assert parse_categories("search_strategy=Effective search patterns, e.g. grep first,"
                            "code_patterns=Where code lives") == {
        "search_strategy": "Effective search patterns, e.g. grep first",
        "code_patterns": "Where code lives",
    }


@pytest.mark.parametrize("spec, message", [
    ("search_strategy", "expected key=description"),
    ("Search=Patterns", "invalid category 'Search'"),
    ("1st=Patterns", "invalid category '1st'"),
    ("a=x,a=y", "given twice"),
    ("a=", "empty description"),
    ("a=x|y", "must not contain"),
    ("", "--categories is empty"),
])
def test_parse_categories_errors(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_categories(spec)


@pytest.mark.parametrize("name", ["code-finder", "a", "agent2", "x-1-y"])
def test_valid_agent_names(name: str) -> None:
    assert validate_agent_name(name) == name


@pytest.mark.parametrize("name", ["", None, "Code-Finder", "code_finder", "-x", "x-", "a--b",
                                  "a b", "a:b", "x" * 65, "../etc"])
def test_invalid_agent_names(name) -> None:
    with pytest.raises(UsageError):
        validate_agent_name(name)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_are_valid_configs(preset: str) -> None:
    p = get_preset(preset)
    config = make_config(preset, p.criteria, p.categories, p.project_learning)
    assert sum(config.criteria.values()) == 100 and config.categories
    assert p.description and p.body and "<" not in p.description


def test_code_finder_preset_matches_the_spec() -> None:
    p = get_preset("code-finder")
    assert p.criteria["Result accuracy"] == 30 and p.criteria["Search confidence"] == 25
    assert "search_strategy" in p.categories


def test_unknown_preset() -> None:
    with pytest.raises(UsageError, match="unknown preset 'nope'.*code-finder"):
        get_preset("nope")


def test_section_config_is_a_value() -> None:
    a = SectionConfig("x", {"A": 100}, {"k": "d"}, True)
    assert a == SectionConfig("x", {"A": 100}, {"k": "d"}, True)
    assert a != SectionConfig("x", {"A": 100}, {"k": "d"}, False)


def test_a_secret_in_a_category_description_is_refused() -> None:
    from kioku.infra.errors import SecretRejected

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    with pytest.raises(SecretRejected) as info:
        make_config("x", {"A": 100}, {"api_usage": f"call the API with {token}"}, False)
    assert token not in str(info.value)
