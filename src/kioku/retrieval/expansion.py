"""Search enrichment as a second field of each unit: what lets a paraphrase find a memory.

``ExpansionField(lines_per_unit, k1, b, embed).signals(tokens, query, qvec) -> ExpansionSignals``

Each unit's enrichment (``kioku.retrieval.enrichment.Enrichment.lines``: questions, keyword lists
in English and Japanese, a topic) is searched apart from its text:

- lexically, all its lines as one document (BM25 and coverage, ``kioku.retrieval.lexical_field``),
  so a Japanese question finds an English memory through its Japanese keywords and the reverse;
- densely, only its lines without Japanese (MiniLM reads English only: Japanese lines would
  add noise near 0.5 to every Japanese query), the unit's cosine being its best line's.

:func:`protect_exact` is the fusion rule: enrichment may lift a unit, but never above a unit whose
own text holds every word of the query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from kioku.retrieval.japanese import has_cjk
from kioku.retrieval.lexical_field import LexicalField
from kioku.retrieval.text import english_words


@dataclass
class ExpansionSignals:
    lexical: object            # np.ndarray (n,) BM25 over the enrichment
    coverage: object           # np.ndarray (n,) share of the query's IDF weight in the enrichment
    cosine: object | None      # np.ndarray (n,) best line's cosine (0 without lines), None without the model
    present: object            # np.ndarray (n,) bool: the unit has an enrichment
    named: object | None = None  # for a mixed query: units whose enrichment holds one of its English words


class ExpansionField:
    def __init__(self, lines: Sequence[Sequence[str]], k1: float, b: float,
                 embed: Callable[[Sequence[str]], object] | None = None) -> None:
        import numpy as np

        self.lines = [tuple(unit_lines) for unit_lines in lines]
        self.present = np.array([bool(unit_lines) for unit_lines in self.lines], dtype=bool)
        self.lexical = LexicalField(["\n".join(unit_lines) for unit_lines in self.lines], k1, b)
        rows: list[str] = []
        owners: list[int] = []
        for unit, unit_lines in enumerate(self.lines):
            for line in unit_lines:
                if line.strip() and not has_cjk(line):
                    rows.append(line)
                    owners.append(unit)
        self.rows = rows
        self.owners = np.array(owners, dtype=np.intp)
        self.matrix = None
        if embed is not None and rows:
            self.matrix = np.asarray(embed(rows), dtype=np.float32)
            # rows are grouped by unit in unit order: each unit's best row by one reduceat
            self._starts = np.flatnonzero(np.r_[True, self.owners[1:] != self.owners[:-1]])
            self._with_rows = self.owners[self._starts]

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def any(self) -> bool:
        return bool(self.present.any())

    def row_cosines(self, qvec):
        import numpy as np

        return np.einsum("ij,j->i", self.matrix, qvec)

    def signals(self, tokens: list[str], query: str, qvec=None, mixed: bool = False) -> ExpansionSignals:
        import numpy as np

        lexical, coverage = self.lexical.signals(tokens, query)
        cosine = None
        if qvec is not None:
            cosine = np.zeros(len(self.lines), dtype=np.float32)
            if self.matrix is not None:
                cosine[self._with_rows] = np.maximum.reduceat(self.row_cosines(qvec), self._starts)
        named = self.lexical.signals(english_words(tokens), query)[1] > 0 if mixed else None
        return ExpansionSignals(lexical, coverage, cosine, self.present, named)

    def best_line(self, unit: int, tokens: list[str], qvec=None) -> str:
        """The line of ``unit``'s enrichment that best explains a match: the closest in meaning,
        else the one holding most of the query's words."""
        import numpy as np

        lines = self.lines[unit] if 0 <= unit < len(self.lines) else ()
        if not lines:
            return ""
        if qvec is not None and self.matrix is not None:
            mine = np.flatnonzero(self.owners == unit)
            if len(mine):
                return self.rows[int(mine[np.argmax(self.matrix[mine] @ qvec)])]
        from kioku.retrieval.text import tokenize

        wanted = set(tokens)
        return max(lines, key=lambda line: len(wanted & set(tokenize(line))))


def protect_exact(base, boosted, exact):
    """Scores where enrichment lifts no unit above one whose own text matches exactly.

    ``base``: each unit's score from its text; ``boosted``: with its enrichment added; ``exact``:
    units whose text holds all of the query. A unit that is not exact keeps at least its base
    score and at most just below the lowest exact unit's boosted score."""
    import numpy as np

    if exact is None or not exact.any():
        return boosted
    cap = float(boosted[exact].min())
    out = boosted.copy()
    others = ~exact
    lifted = np.minimum(boosted[others], cap - 1e-5 * max(1.0, abs(cap)))
    out[others] = np.maximum(base[others], lifted)
    return out
