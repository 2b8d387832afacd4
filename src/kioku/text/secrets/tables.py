"""Passwords in Markdown tables and in .pgpass entries."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.words import _TABLE_LABELS
from kioku.text.secrets.values import _named_password


_TABLE_SEPARATOR = _Lazy(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")

_TABLE_ROWS = 1000  # the most body rows read below one header


def _table_cells(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The cells of a Markdown table row ``text[start:end]`` as (start, end) spans of their
    content, spaces trimmed; None when the line is not a row (it must begin with "|")."""
    line = text[start:end]
    lead = len(line) - len(line.lstrip())
    if not line.startswith("|", lead):
        return None
    bars = [start + lead] + [start + i for i in range(lead + 1, len(line)) if line[i] == "|" and line[i - 1] != "\\"]
    if len(bars) < 2:
        return None
    cells = []
    for a, b in zip(bars, bars[1:]):
        a += 1
        while a < b and text[a] in " \t":
            a += 1
        while b > a and text[b - 1] in " \t":
            b -= 1
        cells.append((a, b))
    return cells


def _table_label(cell: str) -> bool:
    """A header or key cell naming the password: the word alone, after other words ("DB password",
    "admin pw") or before a qualifier ("Password (prod)"), in backticks or emphasis, with a colon."""
    word = cell.strip("`*_").rstrip(":：").strip().lower()
    if word.endswith(")") and "(" in word:
        word = word[:word.rindex("(")].strip()
    return word in _TABLE_LABELS or word.rsplit(" ", 1)[-1] in _TABLE_LABELS


def _table_passwords(text: str, low: str) -> list[tuple[int, int]]:
    """Passwords in Markdown tables: the cell after one that names the password
    (``| password | <value> |``), and the cells of a column headed by such a word. A cell counts
    when its value looks made up, by the same check as a value a sentence names as the password
    (``_named_password``: "see vault", "—", ``$DB_PASS`` and "required" are not values). Only
    the rows where a label occurs are read, and the rows below a header."""
    spans: set[tuple[int, int]] = set()
    rows_read: set[int] = set()
    for label in _TABLE_LABELS:
        i = low.find(label)
        while i != -1:
            start = text.rfind("\n", 0, i) + 1
            if start not in rows_read:
                rows_read.add(start)
                spans.update(_table_passwords_from(text, start))
            i = low.find(label, i + len(label))
    return sorted(spans)


def _is_separator(text: str, start: int) -> bool:
    """Whether the line at ``start`` is a table's separator row (``|---|:--:|``)."""
    return "-" in text[start:start + 8] and _TABLE_SEPARATOR.match(text, start, _line_end(text, start)) is not None


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end == -1 else end


def _table_passwords_from(text: str, start: int) -> list[tuple[int, int]]:
    """The password cells of the row at ``start``: after a label cell, or, when the row is a
    header (a separator row below it), in the labelled columns of the rows under it."""
    end = _line_end(text, start)
    cells = _table_cells(text, start, end)
    if cells is None:
        return []
    labels = [i for i, (a, b) in enumerate(cells) if _table_label(text[a:b])]
    if not labels:
        return []
    below = end + 1
    if below < len(text) and _is_separator(text, below):
        found = []
        row = _line_end(text, below) + 1
        for _ in range(_TABLE_ROWS):
            if row >= len(text):
                break
            row_end = _line_end(text, row)
            body = _table_cells(text, row, row_end)
            if body is None or (row_end + 1 < len(text) and _is_separator(text, row_end + 1)):
                break  # the table ends, or this row heads the next one
            found += [cell for i in labels if i < len(body) and (cell := _password_cell(text, *body[i]))]
            row = row_end + 1
        return found
    return [cell for i in labels if i + 1 < len(cells) and (cell := _password_cell(text, *cells[i + 1]))]


def _password_cell(text: str, a: int, b: int) -> tuple[int, int] | None:
    """The value's span in a table cell, when it looks made up; None otherwise."""
    if text[a:b].startswith("`") and text[a:b].endswith("`") and b - a > 2:
        a, b = a + 1, b - 1
    value = text[a:b]
    if any(c.isspace() for c in value) or not _named_password(value, "パスワード"):
        return None
    return a, b

# A line of PostgreSQL's password file, host:port:database:user:password ("*" for any; a
# colon or a backslash in a field escaped with a backslash), as pasted into a note or an
# ``echo … >> ~/.pgpass``.
_PGPASS_ENTRY = _Lazy(r"(?<![^\s'\"`(])(?:[A-Za-z0-9.\-]*[A-Za-z][A-Za-z0-9.\-]*|\d+(?:\.\d+){3}|\*)"
                      r":(?:\d{2,5}|\*):[^\s:'\"`=]+:[^\s:'\"`=]+:"
                      r"(?P<val>(?:[^\s:'\"`\\=]|\\.){4,128})(?=[\s'\"`)]|$)")


def _pgpass_passwords(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The password field of .pgpass entries within these whitespace-delimited spans of ``text``
    (those with four colons or more), when it looks made up (``_named_password``: a linter's
    ``file.py:12:3:E501:line-too-long`` is not an entry)."""
    found = []
    for start, end in spans:
        for m in _PGPASS_ENTRY.finditer(text, start, end):
            if _named_password(m.group("val"), "パスワード"):
                found.append(m.span("val"))
    return found
