"""Inline SVG charts drawn on the server: no JavaScript, no network, every label escaped.

``line_chart`` draws one polyline per series over shared x labels (gaps where a value is
missing); ``bar_chart`` draws grouped bars. Both return an ``<svg>`` element with
``role="img"`` and an ``aria-label``; with no data they return a short "no data" figure.
Colours are SVG attributes, so the charts look the same in the app and in a report file
opened without its stylesheet.
"""

from __future__ import annotations

from html import escape

COLOURS = ("#2f6fb5", "#d9822b", "#3a9d5d", "#b5473a", "#7b5ea7")
WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 28, 48


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _frame(title: str, body: list[str], legend: list[str]) -> str:
    label = _e(title)
    return (f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{label}">'
            f'<title>{label}</title>'
            f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold" fill="#222">{label}</text>'
            + "".join(body) + "".join(legend) + "</svg>")


def _no_data(title: str) -> str:
    return _frame(title, [f'<text x="{WIDTH // 2}" y="{HEIGHT // 2}" text-anchor="middle" font-size="14" '
                          'fill="#777" class="no-data">no data</text>'], [])


def _axes(y_max: float, y_format: str) -> list[str]:
    plot_h = HEIGHT - TOP - BOTTOM
    out = [f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}" stroke="#999"/>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" stroke="#999"/>']
    for i in range(5):
        value = y_max * i / 4
        y = HEIGHT - BOTTOM - plot_h * i / 4
        text = f"{value:.0%}" if y_format == "percent" else f"{value:g}"
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="10" fill="#555">{_e(text)}</text>')
    return out


def _x_labels(labels: list[str], xs: list[float]) -> list[str]:
    step = max(1, len(labels) // 8)
    return [f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 14}" text-anchor="middle" font-size="10" fill="#555">'
            f'{_e(label)}</text>' for i, (label, x) in enumerate(zip(labels, xs)) if i % step == 0]


def _legend(names: list[str]) -> list[str]:
    out = []
    for i, name in enumerate(names):
        x = LEFT + i * 150
        out.append(f'<rect x="{x}" y="{HEIGHT - 18}" width="10" height="10" fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(f'<text x="{x + 14}" y="{HEIGHT - 9}" font-size="11" fill="#333">{_e(name)}</text>')
    return out


def line_chart(title: str, labels: list[str], series: list[tuple[str, list[float | None]]],
               y_max: float | None = None, y_format: str = "number") -> str:
    values = [v for _name, vals in series for v in vals if v is not None]
    if not labels or not values:
        return _no_data(title)
    top = y_max if y_max is not None else (max(values) or 1.0)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    xs = [LEFT + (plot_w * (i + 0.5) / len(labels)) for i in range(len(labels))]
    body = _axes(top, y_format) + _x_labels(labels, xs)
    for n, (name, vals) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        points = [(xs[i], HEIGHT - BOTTOM - plot_h * min(v, top) / top) for i, v in enumerate(vals) if v is not None]
        # a day without data breaks the line: the points on either side are not joined
        segment: list[tuple[float, float]] = []
        for i, v in enumerate(list(vals) + [None]):
            if v is not None:
                segment.append((xs[i], HEIGHT - BOTTOM - plot_h * min(v, top) / top))
                continue
            if len(segment) > 1:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in segment)
                body.append(f'<polyline class="series" points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
            segment = []
        body.extend(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{_e(name)}</title></circle>'
                    for x, y in points)
    return _frame(title, body, _legend([name for name, _ in series]))


def bar_chart(title: str, labels: list[str], series: list[tuple[str, list[float]]]) -> str:
    values = [v for _name, vals in series for v in vals]
    if not labels or not values or max(values) <= 0:
        return _no_data(title)
    top = float(-(-max(values) // 4) * 4)  # counts: a multiple of 4 keeps the four grid steps whole
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(labels)
    bar = min(slot * 0.8 / max(1, len(series)), 36.0)
    group = bar * len(series)
    xs = [LEFT + slot * (i + 0.5) for i in range(len(labels))]
    body = _axes(top, "number") + _x_labels(labels, xs)
    for n, (name, vals) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        for i, value in enumerate(vals):
            h = plot_h * value / top
            x = xs[i] - group / 2 + bar * n
            body.append(f'<rect class="bar" x="{x:.1f}" y="{HEIGHT - BOTTOM - h:.1f}" width="{bar:.1f}" '
                        f'height="{h:.1f}" fill="{colour}"><title>{_e(name)}: {value:g}</title></rect>')
    return _frame(title, body, _legend([name for name, _ in series]))
