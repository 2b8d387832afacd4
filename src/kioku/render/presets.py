"""Ready-made memory configurations for common agents.

``kioku agent-section code-finder --preset code-finder`` needs no other flag; ``--criteria``,
``--categories`` and ``--project-learning/--no-project-learning`` each replace that part of the
preset. Every preset's weights sum to 100 (a test checks them through the same validation as the
CLI). ``description`` and ``body`` are used only when ``--write`` has to create the agent file.
"""

from __future__ import annotations

from dataclasses import dataclass

from kioku.infra.errors import UsageError


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    criteria: dict[str, int]
    categories: dict[str, str]
    project_learning: bool = False
    description: str = ""
    body: str = ""


PRESETS: dict[str, Preset] = {
    "code-finder": Preset(
        name="code-finder",
        summary="finds code: definitions, usages, patterns",
        criteria={
            "Result accuracy": 30,
            "Search confidence": 25,
            "Completeness": 20,
            "Efficiency": 15,
            "Clarity": 10,
        },
        categories={
            "search_strategy": "a search pattern, tool choice or query order found or missed the code",
            "code_patterns": "a recurring way this kind of code is written or laid out pointed to it",
            "naming_conventions": "the project's names for files, symbols or modules led to the result",
            "architecture_patterns": "knowing where a layer or component lives shortened the search",
            "error_handling": "a failed search (no results, wrong path, too many hits) was recovered",
        },
        project_learning=True,
        description=(
            "Finds code in this codebase: where something is defined, used or implemented, "
            "and which files follow a pattern. Use it for any 'where is', 'find' or "
            "'which files' question about the code."
        ),
        body=(
            "You are a code-finding specialist. Search the codebase with Grep, Glob and Read, "
            "report file paths with line numbers, say how confident you are, and list what you "
            "could not find."
        ),
    ),
    "research": Preset(
        name="research",
        summary="researches a question across documents and sources",
        criteria={
            "Answer accuracy": 30,
            "Source quality": 25,
            "Coverage": 20,
            "Synthesis": 15,
            "Efficiency": 10,
        },
        categories={
            "search_strategy": "a query, source or search order found the answer faster or missed it",
            "source_evaluation": "a source proved reliable, outdated or wrong",
            "domain_terminology": "a term, synonym or acronym of the domain unlocked the answer",
            "documentation_style": "a way of presenting findings worked well for the reader",
        },
        description=(
            "Researches a question across documentation, code and sources, and reports a "
            "sourced answer. Use it for investigations, comparisons and 'find out how X works'."
        ),
        body=(
            "You are a research specialist. Gather evidence from several sources, cite each "
            "claim, separate facts from inferences and say what remains uncertain."
        ),
    ),
    "development": Preset(
        name="development",
        summary="implements features and changes with tests",
        criteria={
            "Correctness": 30,
            "Test coverage": 20,
            "Code quality": 20,
            "Convention adherence": 15,
            "Efficiency": 15,
        },
        categories={
            "code_quality": "a structure, refactoring or review point made the code clearly better",
            "testing_patterns": "a way of testing caught a bug or made the tests reliable",
            "api_usage": "a library or project API has a pitfall or a right way to call it",
            "architecture_patterns": "where a change belongs in this project's layers or modules",
            "naming_conventions": "the project's naming or file layout rules",
            "error_handling": "an error was handled, surfaced or recovered from in a way that worked",
        },
        project_learning=True,
        description=(
            "Implements features, fixes and refactorings with tests, following the project's "
            "conventions. Use it for any code change that should land ready to merge."
        ),
        body=(
            "You are a software developer. Read the surrounding code first, follow its "
            "conventions, write or update tests with every change and run them before finishing."
        ),
    ),
    "debugging": Preset(
        name="debugging",
        summary="finds and fixes the root cause of failures",
        criteria={
            "Root cause found": 30,
            "Fix verified": 25,
            "Diagnostic efficiency": 20,
            "Regression safety": 15,
            "Explanation clarity": 10,
        },
        categories={
            "debugging_strategy": "a way of narrowing down the cause (bisecting, logging, a repro) worked",
            "error_handling": "an error message or failure mode turned out to mean something specific",
            "testing_patterns": "a test reproduced the bug or guarded the fix",
            "api_usage": "a library or project API behaved differently than expected",
        },
        description=(
            "Diagnoses failures, errors and unexpected behaviour, finds the root cause and "
            "verifies a fix. Use it when something is broken, flaky or failing a test."
        ),
        body=(
            "You are a debugging specialist. Reproduce the failure first, form and test "
            "hypotheses one at a time, fix the root cause rather than the symptom, and prove "
            "the fix with a test."
        ),
    ),
    "general": Preset(
        name="general",
        summary="any other agent",
        criteria={
            "Task completion": 40,
            "Accuracy": 25,
            "Efficiency": 20,
            "Clarity": 15,
        },
        categories={
            "task_approach": "an order of steps or a way of splitting the task worked or failed",
            "tool_usage": "a tool or command was the right or wrong choice for a step",
            "error_handling": "a failure was recovered from by a different approach",
        },
        description="A general-purpose agent. Describe here when Claude should delegate to it.",
        body="You are a careful assistant. Finish the task, verify the result and report it clearly.",
    ),
}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise UsageError(f"unknown preset {name!r} (known: {known})") from None
