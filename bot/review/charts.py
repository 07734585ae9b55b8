"""Charts for the review page as inline SVG, drawn on the server: they show with JavaScript off and load nothing.

Pure functions from numbers to markup; every label is escaped.
"""

from __future__ import annotations

from html import escape

from markupsafe import Markup

WIDTH, HEIGHT, PAD_LEFT, PAD_RIGHT, PAD_BOTTOM, PAD_TOP = 720, 200, 36, 24, 22, 10
STATUS_COLOURS = {"answered": "#3a9a5b", "abstained": "#d9a400", "error": "#c23b3b", "budget_exhausted": "#8a5cc2"}
LINE_COLOURS = ("#2453d6", "#d9730d", "#3a9a5b")


def _frame(inner: list[str], title: str, legend: list[tuple[str, str]]) -> Markup:
    keys = "".join(
        f'<rect x="{PAD_LEFT + i * 150}" y="{HEIGHT + 8}" width="10" height="10" fill="{colour}"/>'
        f'<text x="{PAD_LEFT + i * 150 + 14}" y="{HEIGHT + 17}" font-size="11">{escape(name)}</text>'
        for i, (name, colour) in enumerate(legend)
    )
    return Markup(
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT + 24}" width="100%" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{''.join(inner)}{keys}</svg>"
    )


def _axis(label: str) -> list[str]:
    base = HEIGHT - PAD_BOTTOM
    return [
        f'<line x1="{PAD_LEFT}" y1="{base}" x2="{WIDTH - PAD_RIGHT}" y2="{base}" stroke="#c9cdd3"/>',
        f'<line x1="{PAD_LEFT}" y1="{PAD_TOP}" x2="{WIDTH - PAD_RIGHT}" y2="{PAD_TOP}" stroke="#eef0f3"/>',
        f'<text x="{PAD_LEFT - 4}" y="{PAD_TOP + 4}" font-size="10" text-anchor="end">{escape(label)}</text>',
        f'<text x="{PAD_LEFT - 4}" y="{base}" font-size="10" text-anchor="end">0</text>',
    ]


def stacked_bars(labels: list[str], series: dict[str, list[int]], title: str) -> Markup:
    """One bar per label (a day), stacked by series (a status)."""
    totals = [sum(values[i] for values in series.values()) for i in range(len(labels))]
    top = max(totals, default=0) or 1
    plot_h = HEIGHT - PAD_BOTTOM - PAD_TOP
    step = (WIDTH - PAD_LEFT - PAD_RIGHT) / max(len(labels), 1)
    parts = _axis(str(top))
    for i, label in enumerate(labels):
        y: float = HEIGHT - PAD_BOTTOM
        for name, values in series.items():
            h = values[i] / top * plot_h
            if h > 0:
                y -= h
                colour = STATUS_COLOURS.get(name, "#646a73")
                parts.append(
                    f'<rect x="{PAD_LEFT + i * step + 1:.1f}" y="{y:.1f}" width="{max(step - 2, 1):.1f}" height="{h:.1f}" '
                    f'fill="{colour}"><title>{escape(label)}: {values[i]} {escape(name)}</title></rect>'
                )
        if i % max(1, len(labels) // 6) == 0:
            parts.append(f'<text x="{PAD_LEFT + i * step:.1f}" y="{HEIGHT - 6}" font-size="10">{escape(label)}</text>')
    return _frame(parts, title, [(n.replace("_", " "), STATUS_COLOURS.get(n, "#646a73")) for n in series])


def lines(labels: list[str], series: dict[str, list[float | None]], title: str) -> Markup:
    """Shares (0..1) over time, one line per series; a missing value breaks the line."""
    plot_h = HEIGHT - PAD_BOTTOM - PAD_TOP
    step = (WIDTH - PAD_LEFT - PAD_RIGHT) / max(len(labels) - 1, 1)
    parts = _axis("100%")
    for (name, values), colour in zip(series.items(), LINE_COLOURS):
        run: list[str] = []
        for i, v in enumerate([*values, None]):
            if v is None:
                if len(run) > 1:
                    parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(run)}"/>')
                run = []
                continue
            x, y = PAD_LEFT + i * step, HEIGHT - PAD_BOTTOM - v * plot_h
            run.append(f"{x:.1f},{y:.1f}")
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{escape(labels[i])}: {escape(name)} '
                f"{v:.0%}</title></circle>"
            )
    for i, label in enumerate(labels):
        anchor = "end" if i == len(labels) - 1 and i else "start"
        parts.append(
            f'<text x="{PAD_LEFT + i * step:.1f}" y="{HEIGHT - 6}" font-size="10" text-anchor="{anchor}">{escape(label)}</text>'
        )
    return _frame(parts, title, [(name, colour) for name, colour in zip(series, LINE_COLOURS)])
