"""``kioku agent-section``: print or write an agent's Memory Configuration section.

    kioku agent-section NAME [--preset P] [--criteria "Name:30,..."] [--categories "key=desc,..."]
                             [--project-learning | --no-project-learning] [--write PATH] [--json]
    kioku agent-section --list-presets
    kioku agent-section --show PATH [--json]

Without ``--write`` the section is printed (``--json``: ``{"name", "section"}``). With it, the
section is spliced into PATH between Kioku's markers (idempotent; nothing else in the file
changes; the file is created with agent frontmatter if missing; ``--json``: ``{"name", "path",
"changed"}``). Every validation happens before anything is written, and each problem is one
``kioku: error: ...`` line with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def setup(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("The section is the \"Memory Configuration (uses agent-memory-skills)\" of an agent "
                     ".md file: printed, or spliced into the file with --write.")
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="agent name (lowercase letters, digits, hyphens), e.g. code-finder")
    parser.add_argument("--preset", metavar="P",
                        help="start from a preset: code-finder, research, development, debugging, general")
    parser.add_argument("--criteria", metavar="SPEC",
                        help='quality criteria with weights summing to 100: "Result accuracy:30,Clarity:70"')
    parser.add_argument("--categories", metavar="SPEC",
                        help='insight categories: "search_strategy=Effective search patterns,..."')
    parser.add_argument("--project-learning", action=argparse.BooleanOptionalAction, default=None,
                        help="also use per-project collections (default: the preset's choice, else off)")
    parser.add_argument("--write", metavar="PATH",
                        help="splice the section into this agent file (created if missing)")
    parser.add_argument("--list-presets", action="store_true", help="list the presets and exit")
    parser.add_argument("--show", metavar="PATH",
                        help="print the configuration parsed back from an agent file and exit")
    parser.add_argument("--json", action="store_true",
                        help="print the section, the write, the configuration or the presets as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kioku.infra.errors import UsageError

    if args.list_presets:
        return _list_presets(args.json)
    if args.show:
        return _show(Path(args.show), args.json)

    from kioku.render.presets import get_preset
    from kioku.render.section import render_config
    from kioku.render.spec import make_config, parse_categories, parse_criteria, validate_agent_name

    name = validate_agent_name(args.name)
    preset = get_preset(args.preset) if args.preset else None
    if args.criteria is not None:
        criteria = parse_criteria(args.criteria)
    elif preset:
        criteria = preset.criteria
    else:
        raise UsageError("no quality criteria: give --criteria \"Name:weight,...\" or --preset P "
                         "(see --list-presets)")
    if args.categories is not None:
        categories = parse_categories(args.categories)
    elif preset:
        categories = preset.categories
    else:
        raise UsageError("no insight categories: give --categories \"key=description,...\" or "
                         "--preset P (see --list-presets)")
    if args.project_learning is not None:
        project_learning = args.project_learning
    else:
        project_learning = preset.project_learning if preset else False
    config = make_config(name, criteria, categories, project_learning)

    if not args.write:
        text = render_config(config)
        if args.json:
            print(json.dumps({"name": name, "section": text}, indent=2, ensure_ascii=False))
        else:
            sys.stdout.write(text)
        return 0

    from kioku.render.splice import splice

    target = Path(args.write).expanduser()
    text = render_config(config, project_id=_project_id_for(target) if project_learning else None)
    changed = splice(target, text, agent_name=name,
                     description=preset.description if preset else None,
                     body=preset.body if preset else None)
    if args.json:
        print(json.dumps({"name": name, "path": str(target), "changed": changed}, indent=2, ensure_ascii=False))
    else:
        state = "written to" if changed else "already up to date in"
        print(f"Memory Configuration for {name} {state} {target}")
    _warn_about_unmanaged_copy(target)
    return 0


def _warn_about_unmanaged_copy(target: Path) -> None:
    """A hand-written section under the same heading stays (it is the user's text), but two
    sections would confuse the agent, so say so."""
    from kioku.render.section import HEADING
    from kioku.render.splice import find_block

    try:
        text = target.resolve().read_text(encoding="utf-8")
        span = find_block(text)
    except Exception:  # the write succeeded; a failed re-read is not worth an error
        return
    outside = text[: span[0]] + text[span[1]:] if span else text
    if HEADING in outside:
        print(f"kioku: warning: {target} also has a hand-written {HEADING[3:]!r} section outside "
              "Kioku's markers; Kioku reads the managed one, so consider deleting the other",
              file=sys.stderr)


def _project_id_for(target: Path) -> str | None:
    """The id of the git project that holds ``target`` (an agent file in another project gets
    that project's collections); None → the current project's id."""
    from kioku.infra import paths

    here = target.absolute().parent
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return paths.project_identity(candidate)
    return None


def _list_presets(as_json: bool) -> int:
    from kioku.render.presets import PRESETS

    if as_json:
        data = {p.name: {"summary": p.summary, "criteria": p.criteria, "categories": p.categories,
                         "project_learning": p.project_learning} for p in PRESETS.values()}
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    for preset in PRESETS.values():
        weights = ", ".join(f"{k} {v}%" for k, v in preset.criteria.items())
        print(f"{preset.name}: {preset.summary}")
        print(f"  criteria: {weights}")
        print(f"  categories: {', '.join(preset.categories)}")
        print(f"  project learning: {'on' if preset.project_learning else 'off'}")
    return 0


def _show(path: Path, as_json: bool) -> int:
    from kioku.infra.errors import KiokuError
    from kioku.render.section import parse_section

    try:
        text = path.expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KiokuError(f"cannot read {path}: {exc}") from None
    config = parse_section(text)
    if config is None:
        raise KiokuError(f"{path} has no Kioku Memory Configuration section")
    if as_json:
        print(json.dumps({"name": config.name, "criteria": config.criteria,
                          "categories": config.categories,
                          "project_learning": config.project_learning}, indent=2, ensure_ascii=False))
        return 0
    print(f"agent: {config.name}")
    print(f"project learning: {'on' if config.project_learning else 'off'}")
    for criterion, weight in config.criteria.items():
        print(f"criterion: {criterion} {weight}%")
    for key, description in config.categories.items():
        print(f"category: {key} = {description}")
    return 0
