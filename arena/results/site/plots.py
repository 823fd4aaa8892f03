"""The site's plots, written as SVG text by hand.

A running tournament redraws its plots at every refresh of the live site, so they cost
what formatting a few hundred numbers costs: no plotting library is imported (matplotlib
took seconds to import and half a second a plot, in the coordinator that stores the
games).  Plots go in ``<img>`` tags, so nothing in them can run in the page; every text
(engine names are drawn) is XML-escaped.  Same input, same file.

Each plot follows the page's colour scheme: its colours are custom properties its own
``<style>`` sets from the site's palette, light and under ``prefers-color-scheme: dark``
(an SVG shown by ``<img>`` sees the page's scheme, not the page's stylesheet).  The score
matrix's cells keep their light colours, the cross table's, with white figures on them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

from .palette import DARK, LIGHT, SERIES, SERIES_DARK

MAX_POINTS = 400  # a line over 10,000 games is drawn from this many samples
FEW_POINTS = 30
FONT = 11  # px, the labels' size
CHAR = 0.65 * FONT  # a rough width of one character, for margins
ROLES = ("surface", "text", "muted", "border", "grid", "accent", "win", "loss")  # the palette's, drawn
ON_SCORE = "#ffffff"  # the score matrix's figures, on its coloured cells in both schemes


def _colour(role: str) -> str:
    """A palette colour by its role, as the plot's scheme sets it."""
    return f"var(--{role})"


def _series(k: int) -> str:
    """The colour of the ``k``-th engine's line (from 0; the palette's series, repeated)."""
    return f"var(--series-{k % len(SERIES) + 1})"


def _scheme(colours: dict[str, str], series: tuple[str, ...]) -> str:
    """One scheme's custom properties, for the plot's own style."""
    roles = [f"--{role}:{colours[role]}" for role in ROLES]
    return ";".join(roles + [f"--series-{k}:{c}" for k, c in enumerate(series, 1)])


SCHEMES = (
    f"<style>svg{{{_scheme(LIGHT, SERIES)}}}\n"
    f"@media (prefers-color-scheme: dark){{svg{{{_scheme(DARK, SERIES_DARK)}}}}}</style>"
)


class _Axes:
    """A plot area of ``width`` x ``height`` px mapping data ranges to pixels."""

    def __init__(
        self,
        x: tuple[float, float],
        y: tuple[float, float],
        width: float,
        height: float,
        left: float = 56,
        bottom: float = 38,
        top: float = 12,
        right: float = 16,
    ) -> None:
        self.x0, self.x1 = _widened(*x)
        self.y0, self.y1 = _widened(*y)
        self.left, self.top = left, top
        self.w, self.h = width - left - right, height - top - bottom
        self.width, self.height = width, height

    def sx(self, v: float) -> float:
        return self.left + (v - self.x0) / (self.x1 - self.x0) * self.w

    def sy(self, v: float) -> float:
        return self.top + (self.y1 - v) / (self.y1 - self.y0) * self.h

    def frame(self, xlabel: str, ylabel: str, xticks: bool = True, yticks: bool = True) -> list[str]:
        """The grid, the ticks' labels, the left and bottom axis lines, the axis labels."""
        out = []
        bottom, right = self.top + self.h, self.left + self.w
        if yticks:
            for v in ticks(self.y0, self.y1):
                y = self.sy(v)
                out.append(_line(self.left, y, right, y, _colour("grid"), opacity=0.6))
                out.append(_text(self.left - 6, y + 4, _tick_text(v), anchor="end", colour=_colour("muted")))
        if xticks:
            for v in ticks(self.x0, self.x1):
                x = self.sx(v)
                out.append(_line(x, bottom, x, bottom + 4, _colour("border")))
                out.append(_text(x, bottom + 16, _tick_text(v), anchor="middle", colour=_colour("muted")))
        out.append(_line(self.left, self.top, self.left, bottom, _colour("border")))
        out.append(_line(self.left, bottom, right, bottom, _colour("border")))
        if xlabel:
            out.append(_text(self.left + self.w / 2, self.height - 6, xlabel, anchor="middle"))
        if ylabel:
            cx, cy = 12, self.top + self.h / 2
            out.append(
                f'<text x="{cx}" y="{cy:.1f}" text-anchor="middle" style="fill:{_colour("text")}" '
                f'transform="rotate(-90 {cx} {cy:.1f})">{escape(_label(ylabel))}</text>'
            )
        return out


def ratings_plot(history: dict[str, list[tuple[int, float, float]]]) -> str:
    """Each engine's TrueSkill mu after each of its games, with the mu +- 2 sigma band."""
    series = {name: _sample(points) for name, points in history.items() if points}
    every = [p for points in series.values() for p in points]
    names = list(series)
    legend_w = 12 + CHAR * max((len(_label(n)) for n in names), default=0) + 24
    ax = _Axes(
        (min((p[0] for p in every), default=0), max((p[0] for p in every), default=1)),
        (min((p[1] - 2 * p[2] for p in every), default=0), max((p[1] + 2 * p[2] for p in every), default=1)),
        700 + legend_w,
        360,
        right=legend_w + 16,
    )
    body = ax.frame("games played (tournament order)", "TrueSkill mu (band: ±2 sigma)")
    for k, (name, points) in enumerate(series.items()):
        colour = _series(k)
        upper = [(ax.sx(x), ax.sy(m + 2 * s)) for x, m, s in points]
        lower = [(ax.sx(x), ax.sy(m - 2 * s)) for x, m, s in reversed(points)]
        body.append(f'<polygon points="{_points(upper + lower)}" style="fill:{colour}" fill-opacity="0.15"/>')
        line = [(ax.sx(x), ax.sy(m)) for x, m, _ in points]
        body.append(_polyline(line, colour))
        if len(points) <= FEW_POINTS:  # a line of one point or a few: mark them, or it is not seen
            body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" style="fill:{colour}"/>' for x, y in line]
        y = ax.top + 8 + 16 * k
        x = ax.left + ax.w + 20
        body.append(_line(x, y, x + 18, y, colour, width=2))
        body.append(_text(x + 24, y + 4, _label(name)))
    return _svg(ax.width, ax.height, body)


def score_matrix_plot(names: Sequence[str], scores: list[list[float | None]]) -> str:
    """Score % of each row engine against each column engine (blank: never met)."""
    cell = 40
    label_w = 16 + CHAR * max((len(_label(n)) for n in names), default=1)
    n = len(names)
    left, top = label_w, 10
    width = left + n * cell + 110
    height = top + n * cell + label_w * 0.75 + 10
    body = []
    for r, row in enumerate(scores):
        y = top + r * cell
        body.append(_text(left - 6, y + cell / 2 + 4, _label(names[r]), anchor="end"))
        for c, value in enumerate(row):
            x = left + c * cell
            if value is None:
                body.append(_rect(x, y, cell, "none", stroke=_colour("grid")))
                continue
            body.append(_rect(x, y, cell, score_colour(value / 100)))
            body.append(_text(x + cell / 2, y + cell / 2 + 4, f"{value:.0f}", anchor="middle", colour=ON_SCORE))
    base = top + n * cell
    for c, name in enumerate(names):
        x, y = left + c * cell + cell / 2, base + 8
        body.append(
            f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" style="fill:{_colour("text")}" '
            f'transform="rotate(-45 {x:.1f} {y:.1f})">{escape(_label(name))}</text>'
        )
    # the colour bar: 0% (loss colour) to 100% (win colour) through the draw colour
    bx, bh = left + n * cell + 24, max(n * cell, 130)
    body.append(
        '<defs><linearGradient id="score" x1="0" y1="1" x2="0" y2="0">'
        f'<stop offset="0" stop-color="{LIGHT["loss"]}"/><stop offset="0.5" stop-color="{LIGHT["draw"]}"/>'
        f'<stop offset="1" stop-color="{LIGHT["win"]}"/></linearGradient></defs>'
    )
    body.append(f'<rect x="{bx}" y="{top}" width="14" height="{bh}" fill="url(#score)"/>')
    for v in (0, 50, 100):
        body.append(_text(bx + 18, top + bh * (1 - v / 100) + 4, str(v), colour=_colour("muted")))
    cx, cy = bx + 52, top + bh / 2
    body.append(
        f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" style="fill:{_colour("text")}" '
        f'transform="rotate(-90 {cx:.1f} {cy:.1f})">score % of the row</text>'
    )
    return _svg(width, max(height, top + bh + 10), body)


def score_colour(fraction: float) -> str:
    """0 to 1: the loss colour through the draw colour to the win colour, as the cross
    table colours its cells."""
    fraction = min(1.0, max(0.0, fraction))
    low, high = (LIGHT["loss"], LIGHT["draw"]) if fraction <= 0.5 else (LIGHT["draw"], LIGHT["win"])
    t = 2 * fraction if fraction <= 0.5 else 2 * fraction - 1
    mixed = [round(x + (y - x) * t) for x, y in zip(_rgb(low), _rgb(high), strict=True)]
    return "#" + "".join(f"{v:02x}" for v in mixed)


def sprt_plot(llr: Sequence[float], lower: float, upper: float, label: str = "") -> str:
    """The log-likelihood ratio after each pair of games, between the test's bounds."""
    points = _sample(list(enumerate(llr, 1)))
    ys = [p[1] for p in points] + [lower, upper]
    top = 30 if label else 12
    ax = _Axes((1, max(len(llr), 2)), (min(ys), max(ys)), 700, 320, top=top, right=150)
    body = ax.frame("pairs of games", "log-likelihood ratio")
    if label:
        body.append(_text(ax.left + ax.w / 2, 16, label, anchor="middle"))
    for value, colour, text in ((upper, _colour("win"), "accept H1"), (lower, _colour("loss"), "accept H0")):
        y = ax.sy(value)
        body.append(_line(ax.left, y, ax.left + ax.w, y, colour, width=1.4, dash=True))
        body.append(_text(ax.left + ax.w + 6, y + 4, f"{text} ({value:.2f})", colour=colour))
    body.append(_polyline([(ax.sx(x), ax.sy(v)) for x, v in points], _colour("accent")))
    return _svg(ax.width, ax.height, body)


def elo_plot(rows: Sequence[tuple[str, float, float, float]]) -> str:
    """Each engine's Elo with its interval (name, elo, low, high), best first."""
    label_w = 12 + CHAR * max((len(_label(r[0])) for r in rows), default=1)
    row_h = 26
    height = 12 + row_h * len(rows) + 40
    ax = _Axes(
        (min((r[2] for r in rows), default=-1), max((r[3] for r in rows), default=1)),
        (0, len(rows)),
        700,
        height,
        left=label_w,
    )
    body = ax.frame("Elo (interval)", "", yticks=False)
    for x in ticks(ax.x0, ax.x1):
        body.append(_line(ax.sx(x), ax.top, ax.sx(x), ax.top + ax.h, _colour("grid"), opacity=0.6))
    for k, (name, elo, low, high) in enumerate(rows):
        y = ax.sy(len(rows) - k - 0.5)
        body.append(_text(ax.left - 6, y + 4, _label(name), anchor="end"))
        body.append(_line(ax.sx(low), y, ax.sx(high), y, _colour("accent"), width=1.4))
        for end in (low, high):
            body.append(_line(ax.sx(end), y - 4, ax.sx(end), y + 4, _colour("accent"), width=1.4))
        body.append(f'<circle cx="{ax.sx(elo):.1f}" cy="{y:.1f}" r="3.5" style="fill:{_colour("accent")}"/>')
    return _svg(ax.width, ax.height, body)


def ticks(low: float, high: float, wanted: int = 6) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) from ``low`` to ``high``."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / wanted
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    return [k * step for k in range(first, math.floor(high / step + 1e-9) + 1)]


def _widened(low: float, high: float) -> tuple[float, float]:
    """A range with room: 4% each side, and a span where there is none."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return 0.0, 1.0
    if high <= low:
        return low - 1, high + 1
    pad = 0.04 * (high - low)
    return low - pad, high + pad


def _tick_text(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e6 else f"{v:.3g}"


def _svg(width: float, height: float, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
        f'font-size="{FONT}">\n{SCHEMES}\n<rect width="100%" height="100%" style="fill:{_colour("surface")}"/>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )


def _line(
    x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 1, opacity: float = 1, dash: bool = False
) -> str:
    extra = (f' stroke-opacity="{opacity}"' if opacity < 1 else "") + (' stroke-dasharray="6 4"' if dash else "")
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" style="stroke:{colour}" '
        f'stroke-width="{width}"{extra}/>'
    )


def _rect(x: float, y: float, size: float, fill: str, stroke: str = "none") -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" style="fill:{fill};stroke:{stroke}"/>'


def _polyline(points: list[tuple[float, float]], colour: str) -> str:
    return f'<polyline points="{_points(points)}" style="fill:none;stroke:{colour}" stroke-width="1.4"/>'


def _points(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _text(x: float, y: float, text: str, anchor: str = "start", colour: str = _colour("text")) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" style="fill:{colour}">{escape(_label(text))}</text>'


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _label(text: str) -> str:
    """Engine text as a plot label: control characters (terminal escapes) shown as '?'."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _sample(points: list[Any]) -> list[Any]:
    """At most MAX_POINTS evenly spaced points, always keeping the last one."""
    if len(points) <= MAX_POINTS:
        return points
    step = len(points) / MAX_POINTS
    picked = [points[int(k * step)] for k in range(MAX_POINTS)]
    if picked[-1] is not points[-1]:
        picked.append(points[-1])
    return picked
