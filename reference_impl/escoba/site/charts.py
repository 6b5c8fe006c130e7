"""Small SVG charts drawn at build time, by hand: no plotting library, nothing run at view time.

Two shapes cover the diff pages: grouped bars (points per category, A beside B; hands whose
result changed) and intervals (a mean with its 95% interval per row, A above B). Colours come
from the stylesheet (classes `a` and `b`), so the charts follow the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from escoba.escape import html as escape

LABEL_W = 150
PLOT_W = 420
RIGHT_W = 70


@dataclass(frozen=True)
class Bar:
    series: str  # "a" or "b"
    value: float | None
    text: str = ""


@dataclass(frozen=True)
class Interval:
    series: str
    mean: float | None
    low: float | None = None
    high: float | None = None


def _scale(values: Sequence[float], floor_zero: bool = True) -> tuple[float, float, float]:
    """The axis: from 0 (bars) or below the smallest value (intervals), in round steps."""
    if not values:
        return 0.0, 1.0, 0.25
    lo, hi = min(values), max(values)
    if floor_zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi == lo:
        hi = lo + 1.0
    step = _nice((hi - lo) / 4)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


def _nice(rough: float) -> float:
    """1, 2, 2.5 or 5 times a power of ten, at least `rough`."""
    power = 10 ** math.floor(math.log10(rough))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= rough:
            return m * power
    return 10 * power


def _fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def _frame(title: str, rows: int, per_row: int, body: list[str], axis: tuple[float, float, float],
           legend: Sequence[tuple[str, str]] = ()) -> Markup:  # fmt: skip
    lo, hi, step = axis
    height = 28 + rows * per_row + 26
    width = LABEL_W + PLOT_W + RIGHT_W
    ticks = []
    for k in range(round((hi - lo) / step) + 1):
        value = lo + k * step
        x = LABEL_W + PLOT_W * (value - lo) / (hi - lo)
        ticks.append(
            f'<line class="grid" x1="{x:.1f}" y1="24" x2="{x:.1f}" y2="{height - 22}"/>'
            f'<text class="tick" x="{x:.1f}" y="{height - 8}" text-anchor="middle">{_fmt(value)}</text>'
        )
    svg = (
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
        f'<text class="chart-title" x="0" y="14">{escape(title)}</text>' + _legend(legend, width) + "".join(ticks)
        + "".join(body) + "</svg>"
    )  # fmt: skip
    return Markup(svg)


def _legend(names: Sequence[tuple[str, str]], width: int) -> str:
    out, x = [], width - 10
    for series, name in reversed(names):
        text = name
        x -= 7 * len(text) + 22
        out.append(
            f'<rect class="{series}" x="{x}" y="5" width="10" height="10"/>'
            f'<text class="legend" x="{x + 14}" y="14">{escape(text)}</text>'
        )
    return "".join(out)


def _row(body: list[str], n: int, height: int, label: str) -> int:
    """Start row `n`: its label at the left; the row's top y."""
    y0 = 28 + n * height
    body.append(f'<text class="label" x="{LABEL_W - 6}" y="{y0 + height / 2:.1f}" text-anchor="end">{escape(label)}</text>')
    return y0


def bars(title: str, groups: Sequence[tuple[str, Sequence[Bar]]], legend: Sequence[tuple[str, str]] = ()) -> Markup:
    """Horizontal grouped bars: one group per label, one bar per series."""
    values = [b.value for _, group in groups for b in group if b.value is not None]
    axis = _scale(values)
    lo, hi, _ = axis
    per_group = max((len(g) for _, g in groups), default=1) * 12 + 10
    body: list[str] = []
    for n, (label, group) in enumerate(groups):
        y0 = _row(body, n, per_group, label)
        for k, bar in enumerate(group):
            y = y0 + k * 12 + 2
            if bar.value is None:
                body.append(f'<text class="none" x="{LABEL_W + 4}" y="{y + 9}">—</text>')
                continue
            x0 = LABEL_W + PLOT_W * (0 - lo) / (hi - lo)
            x1 = LABEL_W + PLOT_W * (bar.value - lo) / (hi - lo)
            left, width = min(x0, x1), abs(x1 - x0)
            body.append(
                f'<rect class="{bar.series}" x="{left:.1f}" y="{y}" width="{max(width, 0.5):.1f}" height="10">'
                f"<title>{escape(bar.series.upper())}: {_fmt(bar.value)}</title></rect>"
                f'<text class="value" x="{max(x0, x1) + 4:.1f}" y="{y + 9}">{escape(bar.text or _fmt(bar.value))}</text>'
            )
    return _frame(title, len(groups), per_group, body, axis, legend)


def intervals(title: str, rows: Sequence[tuple[str, Sequence[Interval]]], legend: Sequence[tuple[str, str]] = (),
              zero: bool = False) -> Markup:  # fmt: skip
    """A mean and its interval per series, one row per label (a forest plot); `zero` draws the
    line of no difference."""
    values = [v for _, row in rows for i in row for v in (i.mean, i.low, i.high) if v is not None]
    axis = _scale([*values, 0.0] if zero else values, floor_zero=False)
    lo, hi, _ = axis
    per_row = max((len(r) for _, r in rows), default=1) * 12 + 10
    body: list[str] = []

    def x(value: float) -> float:
        return LABEL_W + PLOT_W * (value - lo) / (hi - lo)

    if zero:
        body.append(f'<line class="zero" x1="{x(0.0):.1f}" y1="24" x2="{x(0.0):.1f}" y2="{28 + len(rows) * per_row}"/>')
    for n, (label, row) in enumerate(rows):
        y0 = _row(body, n, per_row, label)
        for k, item in enumerate(row):
            y = y0 + k * 12 + 7
            if item.mean is None:
                body.append(f'<text class="none" x="{LABEL_W + 4}" y="{y + 4}">— (not scored)</text>')
                continue
            low = item.low if item.low is not None else item.mean
            high = item.high if item.high is not None else item.mean
            tip = f"{item.series.upper()}: {_fmt(item.mean)} [{_fmt(low)}, {_fmt(high)}]"
            body.append(
                f'<g class="{item.series}"><title>{escape(tip)}</title>'
                f'<line x1="{x(low):.1f}" y1="{y}" x2="{x(high):.1f}" y2="{y}"/>'
                f'<line x1="{x(low):.1f}" y1="{y - 4}" x2="{x(low):.1f}" y2="{y + 4}"/>'
                f'<line x1="{x(high):.1f}" y1="{y - 4}" x2="{x(high):.1f}" y2="{y + 4}"/>'
                f'<circle cx="{x(item.mean):.1f}" cy="{y}" r="3.5"/></g>'
                f'<text class="value" x="{LABEL_W + PLOT_W + 6}" y="{y + 4}">{escape(_fmt(item.mean))}</text>'
            )
    return _frame(title, len(rows), per_row, body, axis, legend)
