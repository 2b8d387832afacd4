"""Deterministic contradiction detection between a new memory and older ones (stdlib only).

A new memory supersedes an older one when they make incompatible choices about the same
subject. Three rules, checked in order:

1. **Scope guard.** Both statements name a qualifier ("in Makefiles", "for Python files")
   and the qualifiers share nothing → different subjects, no conflict.
2. **Alternatives in one category.** Known mutually exclusive choices (package managers,
   Python environment tools, indentation, quote style, test runners, formatters, databases,
   ...) are extracted with their stance: ``+`` when the clause is a directive or preference
   ("use", "prefer", "switch to", "always", "we use", "を使う"), ``-`` when negated
   ("never X", "don't use X", "avoid X", "instead of X", "X は使わない", "Xではなく").
   The new memory contradicts the old one if, in the same category, it endorses X while
   the old endorsed a different Y (and the new one does not endorse Y too), or endorses X
   where the old rejected X, or rejects X where the old endorsed X. Mere mentions without a
   directive ("npm run build builds the docs") are not choices and never conflict.
3. **Polarity flip.** "always ..." vs "never ..." (also do/don't, 必ず/しない) on otherwise
   near-identical statements (token Jaccard ≥ 0.6 after removing the polarity words) with
   the same qualifiers ("never ... in tests" after "always ..." is an exception, not a flip).

It favours precision over recall: a missed contradiction leaves two visible entries, a false
one would strike through a memory that was still true.

Speed: this runs on the hook save path, so matching is done with word lists, dict lookups
and substring tests over a lower-cased text, not with dozens of compiled regexes.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kioku.memory.textutil import jaccard, token_set

# category -> option -> aliases (English aliases are lower-case word sequences; Japanese
# aliases are matched as substrings).
CATEGORIES: dict[str, dict[str, tuple[str, ...]]] = {
    "js-package-manager": {"npm": ("npm",), "yarn": ("yarn",), "pnpm": ("pnpm",), "bun": ("bun",)},
    "python-env": {"pip": ("pip",), "poetry": ("poetry",), "uv": ("uv",), "pipenv": ("pipenv",),
                   "conda": ("conda", "mamba"), "pdm": ("pdm",), "hatch": ("hatch",)},
    "indentation": {"tabs": ("tab", "tabs", "タブ"), "spaces": ("space", "spaces", "スペース", "空白")},
    "quotes": {"single": ("single quotes", "single quote", "シングルクォート"),
               "double": ("double quotes", "double quote", "ダブルクォート")},
    "js-test": {"jest": ("jest",), "vitest": ("vitest",), "mocha": ("mocha",), "jasmine": ("jasmine",)},
    "py-test": {"pytest": ("pytest",), "unittest": ("unittest",), "nose": ("nose", "nose2")},
    "py-format": {"black": ("black",), "ruff": ("ruff",), "yapf": ("yapf",), "autopep8": ("autopep8",)},
    "js-format": {"prettier": ("prettier",), "biome": ("biome",), "dprint": ("dprint",)},
    "database": {"postgres": ("postgres", "postgresql"), "mysql": ("mysql", "mariadb"),
                 "sqlite": ("sqlite", "sqlite3"), "mongodb": ("mongo", "mongodb"), "dynamodb": ("dynamodb",)},
    "editor": {"vim": ("vim", "nvim", "neovim"), "emacs": ("emacs",), "vscode": ("vscode", "vs code", "visual studio code"),
               "jetbrains": ("intellij", "pycharm", "webstorm")},
    "js-bundler": {"webpack": ("webpack",), "vite": ("vite",), "esbuild": ("esbuild",), "rollup": ("rollup",),
                   "parcel": ("parcel",)},
    "frontend": {"react": ("react",), "vue": ("vue",), "svelte": ("svelte",), "angular": ("angular",)},
    "language-js": {"typescript": ("typescript", "ts"), "javascript": ("javascript", "js")},
    "container": {"docker": ("docker",), "podman": ("podman",)},
    "vcs-merge": {"rebase": ("rebase",), "merge-commits": ("merge commits", "merge commit"), "squash": ("squash",)},
    "theme": {"dark": ("dark mode", "dark theme", "ダークモード"), "light": ("light mode", "light theme", "ライトモード")},
    "naming": {"camel": ("camelcase", "camel case"), "snake": ("snake_case", "snake case", "snakecase"),
               "kebab": ("kebab-case", "kebab case")},
    "ci": {"github-actions": ("github actions",), "gitlab-ci": ("gitlab ci",), "circleci": ("circleci", "circle ci"),
           "jenkins": ("jenkins",)},
    "answer-language": {"english": ("english", "英語"), "japanese": ("japanese", "日本語")},
    "answer-length": {"concise": ("concise", "brief", "short answers", "簡潔"),
                      "detailed": ("detailed", "verbose", "long answers", "詳しく", "詳細")},
}

_EN_ALIASES: dict[tuple[str, ...], tuple[str, str]] = {}
_JA_ALIASES: list[tuple[str, str, str]] = []
for _cat, _opts in CATEGORIES.items():
    for _opt, _aliases in _opts.items():
        for _alias in _aliases:
            if _alias.isascii():
                _EN_ALIASES[tuple(_alias.split())] = (_cat, _opt)
            else:
                _JA_ALIASES.append((_alias, _cat, _opt))
_OPTION_NAMES = {opt for opts in CATEGORIES.values() for opt in opts} | {a[0] for a in _EN_ALIASES}

_POS_WORDS = {"use", "uses", "used", "using", "prefer", "prefers", "preferred", "always", "adopt", "adopted",
              "like", "standardize", "standardise"}
_POS_PHRASES = ("switch to", "switched to", "migrate to", "migrated to", "move to", "moved to", "go with",
                "stick to", "stick with", "run with", "runs with", "run on", "runs on", "managed with",
                "managed by", "should be", "install with", "installs with", "written in", "tests with")
_JA_POS = ("を使う", "を使います", "を使って", "使用", "にする", "にします", "を好む", "が好き", "で書く", "を採用",
           "に移行", "で統一", "を使用")
_NEG_WORDS = {"never", "not", "no", "don't", "dont", "avoid", "without", "drop", "dropped", "replace", "replaced",
              "ban", "forbid", "forbidden", "over", "doesn't"}
_NEG_PHRASES = ("instead of", "rather than", "stop using", "away from", "no longer", "do not", "not using")
_JA_NEG_AFTER = ("は使わない", "を使わない", "使わない", "は使用しない", "を使用しない", "は禁止", "禁止", "は使うな",
                 "を使うな", "はダメ", "ではなく", "じゃなく", "の代わりに", "より", "はやめ", "をやめ", "は不可")
_QUALIFIER_WORDS = {"in", "for", "inside", "within", "on"}
_QUALIFIER_SKIP = {"the", "all", "our", "a", "an", "this", "these"}
_GENERIC_QUALIFIERS = {"this", "project", "repo", "repository", "codebase", "everything", "here", "general",
                       "all", "code", "now", "future", "installs", "install", "scripts", "everywhere", "it", "us",
                       "me", "dev", "development"}
_POLARITY_WORDS = {"always", "never", "do", "don't", "dont", "must", "should", "not", "shouldn't"}
_NEGATIVE_WORDS = {"never", "don't", "dont", "not", "shouldn't"}
_JA_POLARITY = ("しないで", "しない", "必ず", "する")

# Clause separators: re.split on this class, done with translate + split (no regex to compile).
_CLAUSE_SPLIT = str.maketrans({ch: "\n" for ch in ".;!?。！？,、"})
_WORD = re.compile(r"[a-z0-9][a-z0-9_'+#-]*")


def _lower(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def _words(clause: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(clause))


def _has_phrase(words: list[str], phrases) -> bool:
    padded = " " + " ".join(words) + " "
    return any(f" {p} " in padded for p in phrases)


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def choices(text: str) -> dict[str, dict[str, int]]:
    """{category: {option: +1 endorsed | -1 rejected}} for directive mentions in ``text``."""
    found: dict[str, dict[str, int]] = {}

    def put(category: str, option: str, stance: int) -> None:
        slot = found.setdefault(category, {})
        slot[option] = min(slot.get(option, stance), stance)  # a rejection wins over an endorsement

    # Clauses: a choice's stance is decided inside its clause ("use bun, never npm").
    for clause in _lower(text).translate(_CLAUSE_SPLIT).split("\n"):
        matches = _words(clause)
        words = [m.group(0) for m in matches]
        has_cue = bool(_POS_WORDS.intersection(words)) or _has_phrase(words, _POS_PHRASES) or any(
            cue in clause for cue in _JA_POS)
        i = 0
        while i < len(words):
            for size in (3, 2, 1):
                hit = _EN_ALIASES.get(tuple(words[i : i + size])) if i + size <= len(words) else None
                if hit:
                    before = words[max(0, i - 3) : i]
                    after = clause[matches[i + size - 1].end():].lstrip()
                    negated = bool(_NEG_WORDS.intersection(before)) or _has_phrase(before, _NEG_PHRASES) or \
                        after.startswith(_JA_NEG_AFTER)
                    if negated or has_cue:
                        put(hit[0], hit[1], -1 if negated else +1)
                    i += size - 1
                    break
            i += 1
        for alias, category, option in _JA_ALIASES:
            start = clause.find(alias)
            if start < 0:
                continue
            after = clause[start + len(alias):].lstrip()
            if after.startswith(_JA_NEG_AFTER):
                put(category, option, -1)
            elif has_cue:
                put(category, option, +1)
    return found


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _qualifiers(text: str) -> set[str]:
    words = [m.group(0) for m in _WORD.finditer(_lower(text))]
    out: set[str] = set()
    for i, word in enumerate(words):
        if word not in _QUALIFIER_WORDS:
            continue
        j = i + 1
        while j < len(words) and words[j] in _QUALIFIER_SKIP:
            j += 1
        if j < len(words) and words[j] not in _GENERIC_QUALIFIERS and words[j] not in _OPTION_NAMES:
            out.add(words[j].rstrip("."))
    return out


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _polarity(text: str) -> int:
    low = _lower(text)
    words = set(_WORD.findall(low))
    if words & _NEGATIVE_WORDS or "しない" in low:
        return -1
    return +1 if (words & _POLARITY_WORDS or "必ず" in low or "する" in low) else 0


@lru_cache(maxsize=4096)  # the new memory is compared with every old one
def _strip_polarity(text: str) -> set[str]:
    low = _lower(text)
    for marker in _JA_POLARITY:
        low = low.replace(marker, " ")
    return token_set(low) - _POLARITY_WORDS


def can_contradict(new: str) -> bool:
    """False when ``new`` contradicts nothing whatever the old text (no choice, no polarity):
    ``contradicts`` then returns None without looking at the old memory."""
    return bool(choices(new)) or bool(_polarity(new))


def contradicts(new: str, old: str) -> str | None:
    """Why ``new`` contradicts ``old`` (a short reason), or None."""
    c_new, pol_new = choices(new), _polarity(new)
    if not c_new and not pol_new:
        return None  # nothing in the new memory could conflict; skip analysing the old one
    q_new, q_old = _qualifiers(new), _qualifiers(old)
    if q_new and q_old and not (q_new & q_old):
        return None
    c_old = choices(old) if c_new else {}
    for category, new_opts in c_new.items():
        old_opts = c_old.get(category)
        if not old_opts:
            continue
        for option, stance in new_opts.items():
            old_stance = old_opts.get(option)
            if old_stance is not None and old_stance != stance:
                return f"{category}: {'now uses' if stance > 0 else 'no longer uses'} {option}"
            if stance > 0:
                rivals = [o for o, s in old_opts.items() if s > 0 and o != option and new_opts.get(o, 0) <= 0]
                if rivals:
                    return f"{category}: {option} instead of {rivals[0]}"
    pol_old = _polarity(old) if pol_new else 0
    # A flip with a different scope ("never ... in tests" after "always ...") is an exception
    # to the old rule, not its negation, so both stay.
    if pol_new and pol_old and pol_new != pol_old and q_new == q_old:
        if jaccard(_strip_polarity(new), _strip_polarity(old)) >= 0.6:
            return "opposite instruction"
    return None
