"""Bar charts as inline SVG text (no plotting library, nothing fetched when viewed).

:func:`grouped_bars` draws, for each category on the x axis, one bar per series
(a method), over a plot area filled with a light tint that identifies the chart
(the HTML report's browser test finds each chart by its tint). Undefined values
(None/NaN) draw no bar. A series with ``spreads`` (a method's repeats) gets an
error bar of ± that much on each bar (class ``spread``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import List, Optional, Sequence

#: Method colours (distinct, saturated; never used for backgrounds or grid lines).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f")
GRID = "#d9d9d9"
AXIS = "#444444"
FONT = "font-family:sans-serif;font-size:11px"
CHAR_WIDTH = 6  # approximate width of a character of FONT, in pixels
LABEL_LIMIT = 24


@dataclass(frozen=True)
class Series:
    """One method's values, aligned with the chart's categories."""

    name: str
    color: str
    values: Sequence[Optional[float]]
    spreads: Optional[Sequence[Optional[float]]] = None


def series_color(index: int) -> str:
    """The colour of the ``index``-th method."""
    return PALETTE[index % len(PALETTE)]


def short_label(text: str, limit: int = LABEL_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, keeping what follows a ``/`` (the cohort id)."""
    if len(text) <= limit:
        return text
    head, sep, tail = text.rpartition("/")
    if sep and len(tail) < limit - 3:
        return head[: limit - len(tail) - 2] + "\u2026/" + tail
    return text[: limit - 1] + "\u2026"


def _defined(value: Optional[float]) -> bool:
    return value is not None and math.isfinite(value)


def _ticks(low: float, high: float, count: int = 5) -> List[float]:
    span = high - low
    raw = span / count if span > 0 else 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _error_bar(x: float, low: float, high: float, bar: int) -> str:
    """A vertical line from ``low`` to ``high`` (pixels) with caps, centred on ``x``."""
    cap = max(2.0, bar / 3)
    return (f'<path class="spread" d="M{x:.1f},{low:.1f}V{high:.1f}M{x - cap:.1f},{low:.1f}'
            f'H{x + cap:.1f}M{x - cap:.1f},{high:.1f}H{x + cap:.1f}" stroke="{AXIS}" '
            'stroke-width="1" fill="none"/>')


def grouped_bars(title: str, categories: Sequence[str], series: Sequence[Series],
                 y_max: Optional[float] = None, y_min: float = 0.0, y_label: str = "",
                 tint: str = "#f5f7fb", height: int = 240, plot_id: str = "") -> str:
    """An SVG grouped bar chart.

    Parameters
    ----------
    title : str
    categories : sequence of str
        x-axis groups.
    series : sequence of Series
        One bar per category each (a method); drawn in its colour.
    y_max, y_min : float
        Axis range (``y_max`` default: the largest value, at least 1); values below
        ``y_min`` are drawn down to it.
    y_label : str
    tint : str
        Fill of the plot area.
    height : int
        Height of the plot area in pixels.
    plot_id : str
        ``id`` of the ``<svg>`` element.
    """
    values = [v for s in series for v in s.values if _defined(v)]
    top = y_max if y_max is not None else max([1.0, *values])
    bottom = min([y_min, *[v for v in values if v < 0]]) if values else y_min
    bar = 14 if len(series) * len(categories) < 60 else 6
    group = bar * max(1, len(series)) + 12
    labels = [short_label(c) for c in categories]
    longest = max((len(label) for label in labels), default=0)
    rotate = longest * CHAR_WIDTH > group - 4
    left, right, head = 52, 16, 30
    if rotate:  # labels slant down-left from their bar group
        left = max(left, int(0.77 * CHAR_WIDTH * longest) - group // 2 + 8)
    foot = 24 + (int(0.64 * CHAR_WIDTH * longest) if rotate else 0)
    legend_rows = math.ceil(len(series) / 4)
    width = max(320, left + right + group * len(categories))
    total_height = head + height + foot + 18 * legend_rows + 8
    span = top - bottom if top > bottom else 1.0

    def y_of(value: float) -> float:
        return head + height * (top - min(max(value, bottom), top)) / span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{total_height}" viewBox="0 0 {width} {total_height}"'
             + (f' id="{escape(plot_id)}"' if plot_id else "") + f' role="img" style="{FONT}">',
             f"<title>{escape(title)}</title>",
             f'<text x="{left}" y="18" style="font-size:13px;font-weight:bold">'
             f"{escape(title)}</text>",
             f'<rect class="plot-area" x="{left}" y="{head}" width="{width - left - right}" '
             f'height="{height}" fill="{tint}"/>']
    for tick in _ticks(bottom, top):
        y = y_of(tick)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="{GRID}" stroke-width="1"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>')
    if y_label:
        parts.append(f'<text transform="translate(12,{head + height / 2}) rotate(-90)" '
                     f'text-anchor="middle">{escape(y_label)}</text>')
    zero = y_of(0.0)
    for position, (category, label) in enumerate(zip(categories, labels)):
        x0 = left + position * group + 6
        for index, item in enumerate(series):
            value = item.values[position] if position < len(item.values) else None
            if not _defined(value):
                continue
            y = y_of(value)
            spread = item.spreads[position] if item.spreads and position < len(
                item.spreads) else None
            shown = f"{value:.3g}" + (f" \u00b1 {spread:.3g}" if _defined(spread) else "")
            parts.append(f'<rect x="{x0 + index * bar}" y="{min(y, zero):.1f}" '
                         f'width="{bar - 1}" height="{max(abs(zero - y), 0.5):.1f}" '
                         f'fill="{item.color}"><title>{escape(item.name)}, '
                         f'{escape(category)}: {shown}</title></rect>')
            if _defined(spread):
                parts.append(_error_bar(x0 + index * bar + (bar - 1) / 2, y_of(value - spread),
                                        y_of(value + spread), bar))
        label_x = x0 + group / 2 - 6
        if rotate:
            parts.append(f'<text transform="translate({label_x:.1f},{head + height + 12}) '
                         f'rotate(-40)" text-anchor="end">{escape(label)}</text>')
        else:
            parts.append(f'<text x="{label_x:.1f}" y="{head + height + 16}" '
                         f'text-anchor="middle">{escape(label)}</text>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{zero:.1f}" y2="{zero:.1f}" '
                 f'stroke="{AXIS}" stroke-width="1"/>')
    legend_y = head + height + foot
    for index, item in enumerate(series):
        x = left + (index % 4) * 150
        y = legend_y + 18 * (index // 4)
        parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{item.color}"/>'
                     f'<text x="{x + 14}" y="{y + 9}">{escape(item.name[:22])}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
