"""Bar charts as inline SVG text (no plotting library, nothing fetched when viewed).

:func:`grouped_bars` draws, for each category on the x axis, one bar per series
(a method), over a plot area filled with a light tint that identifies the chart
(the HTML report's browser test finds each chart by its tint). The bar groups fill the
plot area's width; the y axis ends on a labelled tick; both axes carry a title.

Three kinds of slot are kept apart, so that nothing absent looks like a zero:

* a value: a bar (a zero is a hairline on the axis);
* a missing item (its file is missing or unusable, :attr:`Series.missing`): a short
  pale box with a dashed outline in the method's colour, labelled ``missing``
  (upright text), never as tall as a value could be read from, and counted in the
  notes under the chart;
* no item at all (not applicable): nothing.

A series with ``spreads`` (a method's repeats) gets an error bar of ± that much on
each bar (class ``spread``).
"""

from __future__ import annotations

import math
import textwrap
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
MIN_PLOT_WIDTH = 260  # pixels of plot area, whatever the number of groups
MAX_BAR = 36  # widest bar, in pixels
MISSING_CLASS = "missing"
MISSING_HEIGHT = 44  # pixels of a missing marker (its label's length)


@dataclass(frozen=True)
class Series:
    """One method's values, aligned with the chart's categories.

    Attributes
    ----------
    name, color : str
    values : sequence of float or None
        None (or NaN) draws no bar.
    missing : sequence of bool
        True where the method's item is missing or unusable: drawn as a missing
        marker, whatever ``values`` holds there (its score of 0 is not a bar).
    spreads : sequence of float or None, optional
        The standard deviation of each value over a method's repeats (an error bar).
    """

    name: str
    color: str
    values: Sequence[Optional[float]]
    missing: Sequence[bool] = ()
    spreads: Optional[Sequence[Optional[float]]] = None

    def is_missing(self, position: int) -> bool:
        return position < len(self.missing) and bool(self.missing[position])


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


def nice_top(high: float, low: float = 0.0) -> float:
    """The axis top: the first tick at or above ``high``, so the top is labelled.

    >>> nice_top(37), nice_top(40), nice_top(1.0)
    (40.0, 40.0, 1.0)
    """
    ticks = _ticks(low, high)
    if ticks and ticks[-1] >= high - 1e-9:
        return float(ticks[-1])
    step = ticks[1] - ticks[0] if len(ticks) > 1 else high - low
    return float(ticks[-1] + step)


def _error_bar(x: float, low: float, high: float, bar: float) -> str:
    """A vertical line from ``low`` to ``high`` (pixels) with caps, centred on ``x``."""
    cap = max(2.0, bar / 3)
    return (f'<path class="spread" d="M{x:.1f},{low:.1f}V{high:.1f}M{x - cap:.1f},{low:.1f}'
            f'H{x + cap:.1f}M{x - cap:.1f},{high:.1f}H{x + cap:.1f}" stroke="{AXIS}" '
            'stroke-width="1" fill="none"/>')


def grouped_bars(title: str, categories: Sequence[str], series: Sequence[Series],
                 y_max: Optional[float] = None, y_min: float = 0.0, y_label: str = "",
                 x_label: str = "", notes: Sequence[str] = (), tint: str = "#f5f7fb",
                 height: int = 240, plot_id: str = "") -> str:
    """An SVG grouped bar chart.

    Parameters
    ----------
    title : str
    categories : sequence of str
        x-axis groups.
    series : sequence of Series
        One bar per category each (a method); drawn in its colour; its missing items
        as missing markers.
    y_max, y_min : float
        Axis range (``y_max`` default: the first tick at or above the largest value,
        at least 1); values below ``y_min`` are drawn down to it.
    y_label, x_label : str
        Axis titles.
    notes : sequence of str
        Lines printed under the legend (counts of missing items, what a chart leaves
        out).
    tint : str
        Fill of the plot area.
    height : int
        Height of the plot area in pixels.
    plot_id : str
        ``id`` of the ``<svg>`` element.
    """
    values = [v for s in series for i, v in enumerate(s.values)
              if _defined(v) and not s.is_missing(i)]
    top = y_max if y_max is not None else nice_top(max([1.0, *values]), y_min)
    bottom = min([y_min, *[v for v in values if v < 0]]) if values else y_min
    n_series, n_groups = max(1, len(series)), max(1, len(categories))
    labels = [short_label(c) for c in categories]
    longest = max((len(label) for label in labels), default=0)
    natural = (14 if n_series * n_groups < 60 else 6) * n_series + 12
    plot_width = max(MIN_PLOT_WIDTH, natural * n_groups)
    group = plot_width / n_groups  # the groups fill the plot area
    bar = min(MAX_BAR, (group - 8) / n_series)
    rotate = longest * CHAR_WIDTH > group - 4
    left, right, head = 56, 16, 30
    if rotate:  # labels slant down-left from their bar group
        left = max(left, int(0.77 * CHAR_WIDTH * longest - group / 2) + 8)
    label_depth = 24 + (int(0.64 * CHAR_WIDTH * longest) if rotate else 0)
    foot = label_depth + (24 if x_label else 4)
    legend_rows = math.ceil((len(series) + (1 if _any_missing(series) else 0)) / 4)
    width = int(left + plot_width + right)
    note_lines = [line for note in notes for line in textwrap.wrap(
        note, max(20, int((width - left - 4) / CHAR_WIDTH)), subsequent_indent="  ")]
    total_height = head + height + foot + 18 * legend_rows + 15 * len(note_lines) + 8
    span = top - bottom if top > bottom else 1.0

    def y_of(value: float) -> float:
        return head + height * (top - min(max(value, bottom), top)) / span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{total_height}" viewBox="0 0 {width} {total_height}"'
             + (f' id="{escape(plot_id)}"' if plot_id else "") + f' role="img" style="{FONT}">',
             f"<title>{escape(title)}</title>",
             f'<text x="{left}" y="18" style="font-size:13px;font-weight:bold">'
             f"{escape(title)}</text>",
             f'<rect class="plot-area" x="{left}" y="{head}" width="{plot_width:.1f}" '
             f'height="{height}" fill="{tint}"/>']
    for tick in _ticks(bottom, top):
        y = y_of(tick)
        parts.append(f'<line x1="{left}" x2="{left + plot_width:.1f}" y1="{y:.1f}" '
                     f'y2="{y:.1f}" stroke="{GRID}" stroke-width="1"/>')
        parts.append(f'<text class="tick" x="{left - 4}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick:g}</text>')
    if y_label:
        parts.append(f'<text class="axis-title" transform="translate({max(12, left - 40)},'
                     f'{head + height / 2}) rotate(-90)" text-anchor="middle">'
                     f"{escape(y_label)}</text>")
    zero = y_of(0.0)
    for position, (category, label) in enumerate(zip(categories, labels)):
        x0 = left + position * group + (group - bar * n_series) / 2
        for index, item in enumerate(series):
            x = x0 + index * bar
            if item.is_missing(position):
                marker = min(MISSING_HEIGHT, height - 2)
                centre_x, centre_y = x + (bar - 1) / 2, zero - marker / 2
                parts.append(
                    f'<g class="{MISSING_CLASS}"><title>{escape(item.name)}, '
                    f"{escape(category)}: missing</title>"
                    f'<rect x="{x + 1:.1f}" y="{zero - marker:.1f}" '
                    f'width="{max(bar - 3, 1):.1f}" height="{marker}" '
                    f'fill="{item.color}" fill-opacity="0.15" stroke="{item.color}" '
                    f'stroke-width="1.5" stroke-dasharray="4 3"/>'
                    f'<text transform="translate({centre_x + 4:.1f},{centre_y:.1f}) rotate(-90)" '
                    f'text-anchor="middle" style="font-size:10px">missing</text></g>')
                continue
            value = item.values[position] if position < len(item.values) else None
            if not _defined(value):
                continue
            y = y_of(value)
            spread = item.spreads[position] if item.spreads and position < len(
                item.spreads) else None
            shown = f"{value:.3g}" + (f" \u00b1 {spread:.3g}" if _defined(spread) else "")
            parts.append(f'<rect x="{x:.1f}" y="{min(y, zero):.1f}" '
                         f'width="{max(bar - 1, 1):.1f}" height="{max(abs(zero - y), 0.5):.1f}" '
                         f'fill="{item.color}"><title>{escape(item.name)}, '
                         f'{escape(category)}: {shown}</title></rect>')
            if _defined(spread):
                parts.append(_error_bar(x + (bar - 1) / 2, y_of(value - spread),
                                        y_of(value + spread), bar))
        label_x = left + position * group + group / 2
        if rotate:
            parts.append(f'<text transform="translate({label_x:.1f},{head + height + 12}) '
                         f'rotate(-40)" text-anchor="end">{escape(label)}</text>')
        else:
            parts.append(f'<text x="{label_x:.1f}" y="{head + height + 16}" '
                         f'text-anchor="middle">{escape(label)}</text>')
    parts.append(f'<line x1="{left}" x2="{left + plot_width:.1f}" y1="{zero:.1f}" '
                 f'y2="{zero:.1f}" stroke="{AXIS}" stroke-width="1"/>')
    if x_label:
        parts.append(f'<text class="axis-title" x="{left + plot_width / 2:.1f}" '
                     f'y="{head + height + label_depth + 8}" text-anchor="middle">'
                     f"{escape(x_label)}</text>")
    legend_y = head + height + foot
    entries = [(item.name[:22], f'fill="{item.color}"') for item in series]
    if _any_missing(series):
        entries.append(("missing", f'fill="none" stroke="{AXIS}" stroke-dasharray="3 2"'))
    for index, (name, style) in enumerate(entries):
        x = left + (index % 4) * 150
        y = legend_y + 18 * (index // 4)
        parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" {style}/>'
                     f'<text x="{x + 14}" y="{y + 9}">{escape(name)}</text>')
    notes_y = legend_y + 18 * legend_rows + 4
    for index, line in enumerate(note_lines):
        parts.append(f'<text class="note" x="{left}" y="{notes_y + 15 * index + 8}">'
                     f"{escape(line)}</text>")
    parts.append("</svg>")
    return "\n".join(parts)


def _any_missing(series: Sequence[Series]) -> bool:
    return any(any(s.missing) for s in series)
