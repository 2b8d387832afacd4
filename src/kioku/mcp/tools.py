"""The tools ``kioku mcp`` offers: names, descriptions, input schemas, annotations, and the
checks that turn a call's arguments into plain values or one plain error (stdlib only).

The schemas are what a client shows the model; :func:`parse_arguments` enforces the same
rules itself (a client may send anything), so a malformed call gets a sentence naming the
argument and what it takes, never a validator's dump.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kioku.infra.errors import UsageError

MEMORY_TYPES = ("user", "project", "feedback", "reference")
SCOPES = ("project", "user")
VERDICTS = ("helpful", "harmful")
MAX_TEXT = 4000  # a memory is refused past 1,500 characters with its own message; this bounds the call
MAX_QUERY = 1000
MAX_NOTE = 500
MAX_LIMIT = 50


class ArgumentError(UsageError):
    """A tool call's arguments do not fit its schema; nothing was done."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...] = ()
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    store: str = "memory"  # which store the tool uses: "memory" or "lessons" (its lock, its doctor checks)
    defaults: dict[str, Any] = field(default_factory=dict)

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties, "additionalProperties": False}
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def annotations(self) -> dict[str, Any]:
        hints: dict[str, Any] = {"title": self.title, "readOnlyHint": self.read_only, "openWorldHint": False}
        if not self.read_only:
            hints["destructiveHint"] = self.destructive
            hints["idempotentHint"] = self.idempotent
        return hints


def _text(description: str, max_length: int, min_length: int = 1) -> dict[str, Any]:
    return {"type": "string", "description": description, "minLength": min_length, "maxLength": max_length}


def _choice(description: str, values: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "string", "description": description, "enum": list(values)}


AGENT = _text("The agent whose lessons these are (default: the project's main agent, usually 'main'). Letters, "
              "digits, '.', '_' or '-'.", 64)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "memory_save", "Save a memory",
        "Save one note to Kioku's Markdown memory (.agents/memory), as when the user says \"remember ...\": a "
        "fact about the project, a preference or correction from the user, or a pointer to a reference. Use it "
        "when the user asks you to remember something. The note is checked before anything is written: a "
        "secret (API key, token, password), a pasted transcript, long code or a note about today only is "
        "refused with the reason and nothing is stored. A near-duplicate is not saved twice; a note that "
        "contradicts an older one supersedes it. Returns where it was saved.",
        {"text": _text("The note to remember, in a sentence or two (at most 1,500 characters).", MAX_TEXT),
         "type": _choice("user (about the person: saved in the user-wide memory, followed across projects), "
                         "project (a fact about this project), feedback (a correction or preference about how "
                         "to work), reference (where to find something). Default: guessed from the wording.",
                         MEMORY_TYPES),
         "scope": _choice("project (this project's .agents/memory) or user (the user-wide ~/.agents/memory). "
                          "Only type user is saved in the user-wide memory. Default: follows the type.", SCOPES),
         "topic": _text("Topic file name, e.g. release-process (default: chosen by type).", 80)},
        required=("text",)),
    ToolSpec(
        "memory_search", "Search memory",
        "Search every memory file of this project and of the user (the same ranking as `kioku search`: "
        "keywords and meaning). Each result gives the memory, its topic file and line, the day it was saved "
        "and its id (for memory_forget). When nothing passes the relevance cut-off, the nearest memories are "
        "shown marked as such.",
        {"query": _text("What to look for, in words.", MAX_QUERY),
         "limit": {"type": "integer", "description": f"Most results to return (1-{MAX_LIMIT}, default 10).",
                   "minimum": 1, "maximum": MAX_LIMIT, "default": 10},
         "archive": {"type": "boolean", "description": "Also search history: archived and superseded memories "
                     "(marked). Default false.", "default": False}},
        required=("query",), read_only=True, idempotent=True, defaults={"limit": 10, "archive": False}),
    ToolSpec(
        "memory_recall", "Recall memory",
        "Without a topic: the remembered notes a new session starts with (what Kioku's SessionStart hook "
        "gives: the user-wide and project MEMORY.md index, most useful first). With a topic: every current "
        "memory of that topic file (e.g. project, user, feedback, release-process) in full, with dates and ids.",
        {"topic": _text("A topic file name (with or without .md); omit for the session-start recall.", 80)},
        read_only=True, idempotent=True),
    ToolSpec(
        "memory_forget", "Forget a memory",
        "Forget one memory by its id (shown by memory_search and memory_recall with a topic): it is moved to "
        "the memory folder's archive/ and out of MEMORY.md, as `kioku forget --id` does; nothing is deleted "
        "outright. Only when the user asks to forget something.",
        {"id": _text("The memory's id, e.g. 20261201-093015-a1b2 (a unique prefix of at least 4 characters "
                     "works too).", 80),
         "scope": _choice("Look only in this memory folder (when the same id is in both).", SCOPES)},
        required=("id",), destructive=True, idempotent=True),
    ToolSpec(
        "lessons_for", "Lessons for a task",
        "The lessons Kioku learned from earlier tasks that fit this task: what its hooks would inject for it "
        "(task-relevant lessons of the agent, promoted ones first). Each lesson shows its id, for "
        "lesson_feedback. Lessons held back from the current turn for Kioku's learning experiment are not shown.",
        {"task": _text("The task, in words (e.g. the user's request).", MAX_TEXT),
         "agent": AGENT},
        required=("task",), read_only=True, idempotent=True, store="lessons"),
    ToolSpec(
        "lesson_feedback", "Feedback on a lesson",
        "Tell Kioku a lesson helped or did harm, as the web UI's lesson buttons do. harmful deprecates the "
        "lesson: the hooks stop injecting it (its evidence is kept; helpful or `kioku lessons restore` brings it back). "
        "helpful restores a deprecated lesson; an active one stays as it is. Use it when the user says a "
        "lesson is wrong, outdated or useful.",
        {"lesson_id": _text("The lesson's id, as lessons_for shows it (e.g. imp_0123abcd...).", 120),
         "verdict": _choice("helpful or harmful.", VERDICTS),
         "note": _text("Why, in a sentence (kept with the lesson's decision).", MAX_NOTE, 0),
         "agent": AGENT},
        required=("lesson_id", "verdict"), store="lessons"),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def parse_arguments(spec: ToolSpec, arguments: Any) -> dict[str, Any]:
    """The call's arguments checked against ``spec``, defaults filled in; ArgumentError otherwise."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"{spec.name}: the arguments must be an object of named values")
    unknown = sorted(set(arguments) - set(spec.properties))
    if unknown:
        raise ArgumentError(f"{spec.name}: unknown argument {unknown[0]!r}; it takes "
                            f"{', '.join(spec.properties)}")
    out: dict[str, Any] = dict(spec.defaults)
    for name, rule in spec.properties.items():
        if name not in arguments or arguments[name] is None:
            if name in spec.required:
                raise ArgumentError(f"{spec.name}: {name!r} is required ({rule['description']})")
            continue
        out[name] = _checked(spec.name, name, rule, arguments[name])
    return out


def _checked(tool: str, name: str, rule: dict[str, Any], value: Any) -> Any:
    kind = rule["type"]
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ArgumentError(f"{tool}: {name!r} must be true or false, not {_shown(value)}")
        return value
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"{tool}: {name!r} must be a whole number from {rule['minimum']} to "
                                f"{rule['maximum']}, not {_shown(value)}")
        if not rule["minimum"] <= value <= rule["maximum"]:
            raise ArgumentError(f"{tool}: {name!r} must be from {rule['minimum']} to {rule['maximum']}, not {value}")
        return value
    if not isinstance(value, str):
        raise ArgumentError(f"{tool}: {name!r} must be a string, not {_shown(value)}")
    if "enum" in rule:
        choice = value.strip().lower()
        if choice not in rule["enum"]:
            raise ArgumentError(f"{tool}: {name!r} must be one of {', '.join(rule['enum'])}, not {_shown(value)}")
        return choice
    if len(value) > rule["maxLength"]:
        raise ArgumentError(f"{tool}: {name!r} is {len(value):,} characters; at most {rule['maxLength']:,}")
    if rule.get("minLength", 0) and not value.strip():
        raise ArgumentError(f"{tool}: {name!r} is empty ({rule['description']})")
    return value
