"""What an agent's Memory Configuration says, validated (standard library only).

``SectionConfig`` is the one value that flows template → agent file → evaluator:
``render_section`` writes it, ``parse_section`` reads it back, the self-evaluation uses it.
Everything that would make that round trip lossy is rejected here with a one-line
``UsageError`` (nothing is written): weights that do not sum to 100, names containing the
characters the Markdown tables and the CLI syntax use (``|``, ``,``, ``:``, newlines, backticks),
duplicate keys, agent names Claude Code would not accept.

CLI syntax parsed here:
- criteria: ``"Result accuracy:30,Search confidence:25,..."`` (a trailing ``%`` is allowed);
- categories: ``"search_strategy=Effective search patterns,code_patterns=..."``; a comma starts a
  new category only when ``key=`` follows it, so descriptions may contain commas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kioku.infra.errors import UsageError
from kioku.text.secrets import ensure_storable

AGENT_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CATEGORY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_AGENT_NAME = 64
MAX_CRITERION = 80
MAX_CATEGORY_KEY = 48
MAX_DESCRIPTION = 200
_FORBIDDEN_IN_TEXT = ("|", "`", "\n", "\r", "<!--", "-->")

@dataclass(frozen=True)
class SectionConfig:
    """An agent's memory configuration. Dicts keep the user's order (it is the table order)."""

    name: str
    criteria: dict[str, int] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)
    project_learning: bool = False

    def weight_fractions(self) -> dict[str, float]:
        """Criteria weights as fractions summing to 1.0 (what a weighted score multiplies by).

        Normalised by the actual total, so a hand-edited table that no longer sums to 100
        still gives a 0-100 score.
        """
        total = sum(self.criteria.values())
        if total <= 0:
            return {}
        return {name: weight / total for name, weight in self.criteria.items()}


def category_scope(category: str) -> str:
    """``global``, ``project`` or ``both``: where ``kioku lessons learn --scope auto`` stores the lesson."""
    from kioku.lessons.scopes import scopes_for  # the agent layer owns the rule; never duplicate it

    found = scopes_for(category, "auto")
    return found[0] if len(found) == 1 else "both"


def validate_agent_name(name: str | None) -> str:
    if not name or not name.strip():
        raise UsageError("an agent name is required (lowercase letters, digits and hyphens)")
    name = name.strip()
    if len(name) > MAX_AGENT_NAME or not AGENT_NAME_RE.match(name):
        raise UsageError(
            f"invalid agent name {name!r}: use lowercase letters, digits and single hyphens "
            f"(at most {MAX_AGENT_NAME} characters), e.g. code-finder"
        )
    return name


def _check_text(what: str, value: str, limit: int) -> str:
    value = value.strip()
    if not value:
        raise UsageError(f"empty {what}")
    if len(value) > limit:
        raise UsageError(f"{what} {value[:40]!r}... is longer than {limit} characters")
    for bad in _FORBIDDEN_IN_TEXT:
        if bad in value:
            shown = {"\n": "a newline", "\r": "a carriage return"}.get(bad, repr(bad))
            raise UsageError(f"{what} {value!r} must not contain {shown}")
    return value


def parse_criteria(spec: str) -> dict[str, int]:
    """``"Result accuracy:30,Search confidence:25"`` → ``{"Result accuracy": 30, ...}``."""
    criteria: dict[str, int] = {}
    if not spec or not spec.strip():
        raise UsageError("--criteria is empty; expected NAME:WEIGHT,NAME:WEIGHT,... summing to 100")
    for item in spec.split(","):
        if not item.strip():
            raise UsageError(f"malformed --criteria {spec!r}: empty item between commas")
        name, sep, weight_text = item.rpartition(":")
        if not sep:
            raise UsageError(f"malformed criterion {item.strip()!r}: expected NAME:WEIGHT, e.g. Accuracy:30")
        if ":" in name:
            raise UsageError(f"malformed criterion {item.strip()!r}: expected NAME:WEIGHT items "
                             "separated by commas")
        name = _check_text("criterion name", name, MAX_CRITERION)
        weight_text = weight_text.strip().removesuffix("%").strip()
        if not weight_text.isdigit():
            raise UsageError(f"criterion {name!r}: weight {weight_text!r} is not a whole number")
        criteria_add(criteria, name, int(weight_text))
    return validate_criteria(criteria)


def criteria_add(criteria: dict[str, int], name: str, weight: int) -> None:
    if name.casefold() in {existing.casefold() for existing in criteria}:
        raise UsageError(f"criterion {name!r} is given twice")
    criteria[name] = weight


def validate_criteria(criteria: dict[str, int]) -> dict[str, int]:
    if not criteria:
        raise UsageError("at least one quality criterion is needed")
    for name, weight in criteria.items():
        _check_text("criterion name", name, MAX_CRITERION)
        if "," in name or ":" in name:
            raise UsageError(f"criterion name {name!r} must not contain ',' or ':'")
        if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
            raise UsageError(f"criterion {name!r}: weight must be a whole number from 1 to 100")
    total = sum(criteria.values())
    if total != 100:
        raise UsageError(f"criteria weights sum to {total}, not 100")
    return dict(criteria)


def parse_categories(spec: str) -> dict[str, str]:
    """``"search_strategy=Effective search patterns,..."`` → ``{"search_strategy": "...", ...}``."""
    if not spec or not spec.strip():
        raise UsageError("--categories is empty; expected key=description,key=description,...")
    categories: dict[str, str] = {}
    for item in re.split(r",(?=\s*[A-Za-z0-9_-]+\s*=)", spec):
        key, sep, description = item.partition("=")
        if not sep:
            raise UsageError(
                f"malformed category {item.strip()!r}: expected key=description, "
                "e.g. search_strategy=Effective search patterns"
            )
        key = key.strip()
        if key in categories:
            raise UsageError(f"category {key!r} is given twice")
        categories[key] = description
    return validate_categories(categories)


def validate_categories(categories: dict[str, str]) -> dict[str, str]:
    if not categories:
        raise UsageError("at least one insight category is needed")
    clean: dict[str, str] = {}
    for key, description in categories.items():
        if len(key) > MAX_CATEGORY_KEY or not CATEGORY_RE.match(key):
            raise UsageError(
                f"invalid category {key!r}: use lowercase letters, digits and underscores, "
                "starting with a letter (e.g. search_strategy)"
            )
        clean[key] = _check_text(f"description of category {key!r}", description, MAX_DESCRIPTION)
    return clean


def make_config(name: str, criteria: dict[str, int], categories: dict[str, str],
                project_learning: bool) -> SectionConfig:
    """A validated ``SectionConfig`` (raises ``UsageError`` with the first problem found).

    The text also passes the secrets check (``SecretRejected``): the section is written into
    agent files that are often committed and is read into every session of that agent.
    """
    config = SectionConfig(
        name=validate_agent_name(name),
        criteria=validate_criteria(dict(criteria)),
        categories=validate_categories(dict(categories)),
        project_learning=bool(project_learning),
    )
    ensure_storable("\n".join([*config.criteria, *config.categories.values()]),
                    what="agent Memory Configuration")
    return config
