"""Deterministic contradiction detection between a new memory and older ones (stdlib only).

A new memory supersedes an older one when they make incompatible choices about the same
subject. Three rules, checked in order:

1. **Alternatives in one category.** Known mutually exclusive choices (package managers,
   Python environment tools, indentation, quote style, test runners, formatters, databases,
   ...) are extracted with their stance: ``+`` when the clause is a directive or preference
   ("use", "prefer", "switch to", "always", "we use", "を使う"), ``-`` when negated
   ("never X", "don't use X", "avoid X", "instead of X", "X は使わない"). The new memory
   contradicts the old one if, in the same category, it endorses X while the old endorsed
   a different Y (and the new one does not endorse Y too), or endorses X where the old
   rejected X, or rejects X where the old endorsed X. Mere mentions without a directive
   ("npm run build builds the docs") are not choices and never conflict.
2. **Polarity flip.** "always ..." vs "never ..." (also do/don't, 必ず/しない) on otherwise
   near-identical statements (token Jaccard ≥ 0.6 after removing the polarity words).
3. **Scope guard.** Both statements name a qualifier ("in Makefiles", "for Python files")
   and the qualifiers share nothing → different subjects, no conflict.

It favours precision over recall: a missed contradiction leaves two visible entries, a false
one would strike through a memory that was still true.
"""

from __future__ import annotations

import re
import unicodedata

from kioku.memory.textutil import jaccard, token_set

CATEGORIES: dict[str, dict[str, str]] = {
    "js-package-manager": {"npm": r"npm", "yarn": r"yarn", "pnpm": r"pnpm", "bun": r"bun"},
    "python-env": {"pip": r"pip", "poetry": r"poetry", "uv": r"uv", "pipenv": r"pipenv",
                   "conda": r"conda|mamba", "pdm": r"pdm", "hatch": r"hatch"},
    "indentation": {"tabs": r"tabs?|タブ", "spaces": r"spaces?|スペース|空白"},
    "quotes": {"single": r"single[- ]quotes?|シングルクォート", "double": r"double[- ]quotes?|ダブルクォート"},
    "js-test": {"jest": r"jest", "vitest": r"vitest", "mocha": r"mocha", "jasmine": r"jasmine", "ava": r"ava"},
    "py-test": {"pytest": r"pytest", "unittest": r"unittest", "nose": r"nose2?"},
    "py-format": {"black": r"black", "ruff": r"ruff(?: format)?", "yapf": r"yapf", "autopep8": r"autopep8"},
    "js-format": {"prettier": r"prettier", "biome": r"biome", "dprint": r"dprint"},
    "database": {"postgres": r"postgres(?:ql)?", "mysql": r"mysql|mariadb", "sqlite": r"sqlite3?",
                 "mongodb": r"mongo(?:db)?", "dynamodb": r"dynamodb"},
    "editor": {"vim": r"n?vim|neovim", "emacs": r"emacs", "vscode": r"vs ?code|visual studio code",
               "jetbrains": r"intellij|pycharm|webstorm"},
    "js-bundler": {"webpack": r"webpack", "vite": r"vite", "esbuild": r"esbuild", "rollup": r"rollup",
                   "parcel": r"parcel"},
    "frontend": {"react": r"react", "vue": r"vue", "svelte": r"svelte", "angular": r"angular"},
    "language-js": {"typescript": r"typescript|ts", "javascript": r"javascript|js"},
    "container": {"docker": r"docker", "podman": r"podman"},
    "vcs-merge": {"rebase": r"rebase", "merge-commits": r"merge commits?", "squash": r"squash(?: merges?)?"},
    "theme": {"dark": r"dark (?:mode|theme)|ダークモード", "light": r"light (?:mode|theme)|ライトモード"},
    "naming": {"camel": r"camel ?case", "snake": r"snake[_ ]?case", "kebab": r"kebab[- ]?case"},
    "ci": {"github-actions": r"github actions", "gitlab-ci": r"gitlab ci", "circleci": r"circle ?ci",
           "jenkins": r"jenkins"},
    "answer-language": {"english": r"english|英語", "japanese": r"japanese|日本語"},
    "answer-length": {"concise": r"concise|short answers?|brief|簡潔", "detailed": r"detailed|long answers?|verbose|詳しく|詳細"},
}

_POS_CUE = re.compile(
    r"\b(?:use[sd]?|using|prefer(?:s|red)?|switch(?:ed)? to|migrat\w* to|move[sd]? to|go with|adopt\w*|"
    r"always|stick (?:to|with)|runs? (?:\w+ )?(?:with|via|on)|managed (?:with|by)|should be|standardi[sz]e on|"
    r"installs? (?:with|via)|written in|like)\b|(?:を使う|を使います|を使って|使用|にする|にします|を好む|が好き|で書く|を採用|に移行|で統一)",
    re.I,
)
_NEG_BEFORE = re.compile(
    r"(?:\b(?:never|not|no|don'?t|do not|doesn'?t|avoid|stop using|instead of|rather than|not using|"
    r"ban|forbid\w*|without|drop|dropped|replace|replaced|over|away from|no longer(?: use)?)\s+(?:use\s+|using\s+)?"
    r"(?:the\s+)?(?:\w+\s+)?)$",
    re.I,
)
_NEG_AFTER = re.compile(r"^\s*(?:は|を)?(?:使わない|使用しない|禁止|使うな|はダメ|は使わ|やめ|不可)")
_JA_INSTEAD = re.compile(r"^\s*(?:ではなく|じゃなく|の代わりに|より)")
_QUALIFIER = re.compile(r"\b(?:in|for|inside|within|on)\s+(?:the\s+|all\s+|our\s+)?([a-z][\w.+-]*)", re.I)
_GENERIC_QUALIFIERS = {"this", "project", "repo", "repository", "codebase", "everything", "here",
                       "general", "all", "code", "now", "future", "installs", "install", "scripts",
                       "everywhere", "it", "us", "me"}
_POLARITY = re.compile(
    r"\b(?:always|never|do not|don'?t|do|must not|must|should not|shouldn'?t|should|not)\b|必ず|しない|しないで|する",
    re.I,
)
_NEGATIVE_POLARITY = re.compile(r"\b(?:never|do not|don'?t|must not|should not|shouldn'?t|not)\b|しない", re.I)


def _compiled() -> list[tuple[str, str, re.Pattern[str]]]:
    out = []
    for category, options in CATEGORIES.items():
        for name, pattern in options.items():
            # ASCII word boundaries only ("bun" in "bundle" is not bun, but "bunを使う" names bun).
            out.append((category, name, re.compile(rf"(?<![A-Za-z0-9_-])(?:{pattern})(?![A-Za-z0-9_-])", re.I)))
    return out


_OPTIONS = _compiled()


def choices(text: str) -> dict[str, dict[str, int]]:
    """{category: {option: +1 endorsed | -1 rejected}} for directive mentions in ``text``."""
    norm = unicodedata.normalize("NFKC", text).replace("’", "'")
    found: dict[str, dict[str, int]] = {}
    # Clauses: a choice's stance is decided inside its clause, so "use bun, never npm" gives
    # bun:+ and npm:-.
    for clause in re.split(r"[.;!?\n。！？,、]", norm):
        has_cue = bool(_POS_CUE.search(clause))
        for category, name, pattern in _OPTIONS:
            for match in pattern.finditer(clause):
                before, after = clause[: match.start()], clause[match.end():]
                if _NEG_BEFORE.search(before[-40:]) or _NEG_AFTER.match(after) or _JA_INSTEAD.match(after):
                    stance = -1
                elif has_cue:
                    stance = +1
                else:
                    continue
                slot = found.setdefault(category, {})
                slot[name] = min(slot.get(name, stance), stance) if stance < 0 else slot.get(name, stance)
    return found


def _qualifiers(text: str) -> set[str]:
    words = {m.group(1).lower().rstrip(".") for m in _QUALIFIER.finditer(text)}
    opts = {name for _, name, _ in _OPTIONS}
    return {w for w in words if w not in _GENERIC_QUALIFIERS and w not in opts}


def _strip_polarity(text: str) -> set[str]:
    return token_set(_POLARITY.sub(" ", text))


def _polarity(text: str) -> int:
    return -1 if _NEGATIVE_POLARITY.search(text) else (+1 if _POLARITY.search(text) else 0)


def contradicts(new: str, old: str) -> str | None:
    """Why ``new`` contradicts ``old`` (a short reason), or None."""
    q_new, q_old = _qualifiers(new), _qualifiers(old)
    if q_new and q_old and not (q_new & q_old):
        return None
    c_new, c_old = choices(new), choices(old)
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
    pol_new, pol_old = _polarity(new), _polarity(old)
    if pol_new and pol_old and pol_new != pol_old:
        if jaccard(_strip_polarity(new), _strip_polarity(old)) >= 0.6:
            return "opposite instruction"
    return None
