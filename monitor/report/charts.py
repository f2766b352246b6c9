"""Chart geometry in plain numbers; the template turns it into inline SVG.

Drawing SVG ourselves keeps the page one small file with no JavaScript library, and keeps
every piece of text in the chart passing through the template's escaping. Scales are
fixed (quality and the signals live in [0, 1]) so two conversations' charts compare by eye.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from monitor.contracts import MFSS_FACTORS, TurnScore

W, H = 640.0, 260.0
LEFT, RIGHT, TOP, BOTTOM = 40.0, 16.0, 14.0, 44.0
BAND = 8.0  # height of the trend strip under the plot

SERIES = (
    ("quality", "quality"),
    ("local_relevance", "relevance"),
    ("consistency", "consistency"),
    ("logic", "logic"),
    ("level", "level (recency-weighted)"),
)

_RADAR_NAMES = {"factual_consistency": "factual consistency", "rouge": "ROUGE"}
MFSS_LABELS = {name: _RADAR_NAMES.get(name, name) for name in MFSS_FACTORS}
"""Radar axis labels, in the factors' order: each factor's name, but for two."""


@dataclass(frozen=True)
class Series:
    key: str
    label: str
    path: str
    points: list[tuple[float, float, float, int]]  # x, y, value, turn


@dataclass(frozen=True)
class TrendCell:
    x: float
    width: float
    trend: str
    title: str


@dataclass(frozen=True)
class LineChart:
    width: float
    height: float
    series: list[Series]
    x_ticks: list[tuple[float, int]]
    y_ticks: list[tuple[float, str]]
    plot: tuple[float, float, float, float]  # left, top, right, bottom
    trend: list[TrendCell]
    band_y: float
    markers: list[tuple[float, int, str]]  # x, turn, title: turns with certificates


def line_chart(scores: Sequence[TurnScore]) -> LineChart | None:
    if not scores:
        return None
    x0, x1 = LEFT, W - RIGHT
    y_top, y_bottom = TOP, H - BOTTOM
    turns = [s.turn_index for s in scores]
    lo, hi = min(turns), max(turns)
    span = (hi - lo) or 1

    def x_of(turn: int) -> float:
        if hi == lo:
            return round((x0 + x1) / 2, 1)
        return round(x0 + (turn - lo) / span * (x1 - x0), 1)

    def y_of(value: float) -> float:
        return round(y_bottom - max(0.0, min(1.0, value)) * (y_bottom - y_top), 1)

    series = []
    for key, label in SERIES:
        points = [(x_of(s.turn_index), y_of(float(getattr(s, key))),
                   float(getattr(s, key)), s.turn_index) for s in scores]
        path = " ".join(f"{'M' if i == 0 else 'L'}{x},{y}" for i, (x, y, _, _) in
                        enumerate(points))
        series.append(Series(key, label, path, points))
    step = max(1, math.ceil(len(turns) / 12))
    x_ticks = [(x_of(t), t) for t in turns[::step]]
    y_ticks = [(y_of(v / 4), f"{v / 4:.2f}") for v in range(5)]
    cell = (x1 - x0) / max(1, len(scores) - 1) if len(scores) > 1 else (x1 - x0)
    trend = []
    for s in scores:
        x = x_of(s.turn_index)
        left = max(x0, x - cell / 2)
        right = min(x1, x + cell / 2)
        trend.append(TrendCell(round(left, 1), round(right - left, 1), s.trend,
                               f"turn {s.turn_index}: {s.trend}, slope {s.slope:+.3f}"))
    markers = [(x_of(s.turn_index), s.turn_index,
                f"turn {s.turn_index}: {len(s.certificates)} certificate(s)")
               for s in scores if s.certificates]
    return LineChart(W, H, series, x_ticks, y_ticks, (x0, y_top, x1, y_bottom), trend,
                     y_bottom + 18, markers)


@dataclass(frozen=True)
class RadarAxis:
    label: str
    value: float
    x: float
    y: float
    lx: float
    ly: float
    anchor: str


@dataclass(frozen=True)
class Radar:
    width: float
    size: float
    cx: float
    center: float
    axes: list[RadarAxis]
    polygon: str
    rings: list[str]


def radar(factors: dict[str, float], size: float = 300.0) -> Radar | None:
    """Radar of the MFSS factors (at least three needed for a polygon)."""
    names = [n for n in MFSS_LABELS if n in factors]
    if len(names) < 3:
        return None
    c = size / 2
    r = size / 2 - 40
    width = size + 250  # room for the labels left and right
    cx = width / 2

    def point(i: int, value: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * i / len(names)
        v = max(0.0, min(1.0, value))
        return round(cx + r * v * math.cos(angle), 1), round(c + r * v * math.sin(angle), 1)

    axes = []
    for i, name in enumerate(names):
        x, y = point(i, 1.0)
        lx, ly = point(i, 1.12)
        anchor = "middle" if abs(lx - cx) < 8 else ("start" if lx > cx else "end")
        if anchor == "middle":
            ly += -6 if ly < c else 10
        axes.append(RadarAxis(MFSS_LABELS[name], factors[name], x, y, lx, ly + 4, anchor))
    polygon = " ".join("{},{}".format(*point(i, factors[n])) for i, n in enumerate(names))
    rings = [" ".join("{},{}".format(*point(i, level)) for i in range(len(names)))
             for level in (0.25, 0.5, 0.75, 1.0)]
    return Radar(width, size, cx, c, axes, polygon, rings)
