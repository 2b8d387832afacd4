"""Deterministic contradiction detection between a new memory and older ones (stdlib only).

``assess(new, old)`` says whether a new memory *clearly replaces* an older one
(``("replaces", reason)``: the old one is superseded), *may* replace it (``("unsure", reason)``:
both are kept and the save confirmation says "kept both; if one replaces the other, run
`kioku forget`"), or neither (None). Losing a true memory from recall is the worse error, so:

1. **Subject and scope first.** The subject is the words before the first verb-like cue
   ("The docs site | uses bun"; Japanese: before は), the scope the qualifiers ("in Makefiles",
   "for Python files"). Different subjects or different scopes are never a replacement
   ("The frontend app uses pnpm" / "The docs site uses bun" stay together).
2. **Explicit replacement wording** naming a value the old memory mentions: "from X to Y",
   "replaced X with Y", "instead of X", "rather than X", "no longer use X", "never X",
   and Japanese XからYに移行/変更, Xではなく, Xの代わりに, Xをやめて, Xは使わない.
3. **Alternatives in one category** (package managers, indentation, quote style, test
   runners, formatters, databases, ...): endorsing X where the old endorsed Y, for the same
   subject; with one side's subject or scope unknown the pair is only "unsure".
4. **Same attribute, new value**: the same subject with "now" / "anymore" / "no longer" /
   今は / もう and the same predicate ("The API now listens on port 8080" after "... 3000"),
   or exactly the same predicate with different values (numbers, known tool names).
5. **Polarity flip**: "always ..." vs "never ..." (do/don't, 必ず/しない) on otherwise
   near-identical statements (token Jaccard >= 0.6) with the same qualifiers.

Measured on labelled English and Japanese pairs the project wrote
(``tests/memory/data/contradiction_pairs_*.json``; ``scripts/bench/contradictions.py``).

Speed: this runs on the hook save path, so matching is done with word lists, dict lookups,
substring tests and a few small regexes over a lower-cased text.

Modules: ``words`` (the tables), ``clauses`` (choices, qualifiers, polarity), ``statements``
(subject, values, predicate), ``decide`` (``assess`` and the save path's pre-checks).
"""

from __future__ import annotations

from kioku.memory.contradict.clauses import choices, fold
from kioku.memory.contradict.decide import assess, can_contradict, contradicts, could_flag
from kioku.memory.contradict.statements import relation, stated_values
from kioku.memory.contradict.words import CATEGORIES

__all__ = ["CATEGORIES", "assess", "can_contradict", "choices", "contradicts", "could_flag", "fold", "relation",
           "stated_values"]
