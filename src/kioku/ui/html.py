"""HTML building blocks shared by the web app and the static report.

Every value that comes from data goes through :func:`e` (``html.escape`` with quotes), so
remembered text, lessons, tags, agent names and reasons are shown as text, never as markup.
Formatting helpers return "no data" for missing values instead of inventing a zero.
"""

from __future__ import annotations

from html import escape
from typing import Any, Iterable

NO_DATA = "no data"


def e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def e_defanged(value: Any) -> str:
    """A text that was defanged when it was stored (an evaluation's task and reason: a tag
    opening written as "&lt;", for a model reading it), escaped for HTML: "&lt;" is shown as
    the "<" it stands for instead of escaped a second time. Never for memory files, whose text
    is kept as written and may hold "&lt;" itself."""
    text = "" if value is None else str(value)
    return escape(text.replace("&lt;", "<") if "&lt;" in text else text, quote=True)


def pct(value: float | None) -> str:
    return NO_DATA if value is None else f"{value:.0%}"


def num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return NO_DATA
    return f"{value:,.{digits}f}"


def signed(value: float | None) -> str:
    return NO_DATA if value is None else f"{value:+.0%}"


def interval(low: float | None, high: float | None) -> str:
    return NO_DATA if low is None or high is None else f"{low:+.0%} to {high:+.0%}"


def cell(value: str, css: str = "") -> str:
    """A table cell whose text is already escaped or formatted (formatted values hold no markup)."""
    cls = f' class="{css}"' if css else ""
    nodata = ' data-empty="1"' if value == NO_DATA else ""
    return f"<td{cls}{nodata}>{value}</td>"


def table(headers: Iterable[str], rows: list[str], css: str = "") -> str:
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    body = "".join(rows) if rows else f'<tr><td colspan="99" class="empty">{NO_DATA}</td></tr>'
    return f'<table class="{e(css)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def hidden(name: str, value: Any) -> str:
    return f'<input type="hidden" name="{e(name)}" value="{e(value)}">'


def post_form(action: str, csrf: str, fields: dict[str, Any], button: str, css: str = "",
              confirm: str = "") -> str:
    extra = f' data-confirm="{e(confirm)}"' if confirm else ""
    inputs = "".join(hidden(k, v) for k, v in fields.items())
    return (f'<form method="post" action="{e(action)}" class="inline {e(css)}"{extra}>{hidden("csrf", csrf)}'
            f'{inputs}<button type="submit">{e(button)}</button></form>')
