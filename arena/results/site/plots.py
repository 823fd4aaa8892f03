"""The site's plots, drawn by matplotlib as SVG files.

Plots go in ``<img>`` tags, so nothing in them (engine names are drawn as text) can run
in the page.  matplotlib is imported on first use: a run that never writes a plot does
not pay for it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from .palette import LIGHT, PLOT_BACKGROUND, SERIES

MAX_POINTS = 400  # a line over 10,000 games is drawn from this many samples
FEW_POINTS = 30


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from cycler import cycler

    plt.rcParams.update(
        {
            "svg.hashsalt": "arena",  # same input, same file
            "font.size": 9,
            # The site's palette (palette.py): the stylesheet's colours, on the plots' light card.
            "axes.prop_cycle": cycler(color=list(SERIES)),
            "figure.facecolor": PLOT_BACKGROUND,
            "axes.facecolor": PLOT_BACKGROUND,
            "axes.edgecolor": LIGHT["border"],
            "axes.labelcolor": LIGHT["text"],
            "text.color": LIGHT["text"],
            "xtick.color": LIGHT["muted"],
            "ytick.color": LIGHT["muted"],
            "grid.color": LIGHT["grid"],
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
        }
    )
    return plt


def _svg(fig: Any) -> str:
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    _pyplot().close(fig)
    return out.getvalue()


def ratings_plot(history: dict[str, list[tuple[int, float, float]]]) -> str:
    """Each engine's TrueSkill mu after each of its games, with the mu +- 2 sigma band."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for name, points in history.items():
        points = _sample(points)
        if not points:
            continue
        xs = [p[0] for p in points]
        mu = [p[1] for p in points]
        few = len(xs) <= FEW_POINTS  # a line of one point or a few: mark them, or it is not seen
        (line,) = ax.plot(xs, mu, label=_label(name), linewidth=1.4, marker="o" if few else None, markersize=3)
        ax.fill_between(
            xs,
            [m - 2 * s for _, m, s in points],
            [m + 2 * s for _, m, s in points],
            color=line.get_color(),
            alpha=0.15,
            linewidth=0,
        )
    ax.set_xlabel("games played (tournament order)")
    ax.set_ylabel("TrueSkill mu (band: ±2 sigma)")
    ax.grid(alpha=0.3)
    if history:
        ax.legend(loc="best", fontsize=8)
    return _svg(fig)


def score_matrix_plot(names: Sequence[str], scores: list[list[float | None]]) -> str:
    """Score % of each row engine against each column engine (blank: never met)."""
    plt = _pyplot()
    import numpy as np

    size = max(2.5, 0.6 * len(names) + 1.5)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    data = np.array([[np.nan if v is None else v for v in row] for row in scores], dtype=float)
    image = ax.imshow(data, cmap=score_colormap(), vmin=0, vmax=100)
    ax.set_xticks(range(len(names)), labels=[_label(n) for n in names], rotation=45, ha="right")
    ax.set_yticks(range(len(names)), labels=[_label(n) for n in names])
    for r, row in enumerate(scores):
        for c, value in enumerate(row):
            if value is not None:
                ax.text(c, r, f"{value:.0f}", ha="center", va="center", fontsize=8, color=PLOT_BACKGROUND)
    fig.colorbar(image, ax=ax, label="score % of the row against the column")
    return _svg(fig)


def score_colormap() -> Any:
    """0% to 100%: the loss colour through the draw colour to the win colour, as the cross
    table colours its cells."""
    _pyplot()
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("arena-score", [LIGHT["loss"], LIGHT["draw"], LIGHT["win"]])


def sprt_plot(llr: Sequence[float], lower: float, upper: float, label: str = "") -> str:
    """The log-likelihood ratio after each pair of games, between the test's bounds."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    points = _sample(list(enumerate(llr, 1)))
    ax.plot([p[0] for p in points], [p[1] for p in points], color=LIGHT["accent"], linewidth=1.4, label="LLR")
    ax.axhline(upper, color=LIGHT["win"], linestyle="--", label=f"accept H1 ({upper:.2f})")
    ax.axhline(lower, color=LIGHT["loss"], linestyle="--", label=f"accept H0 ({lower:.2f})")
    ax.set_xlabel("pairs of games")
    ax.set_ylabel("log-likelihood ratio")
    if label:
        ax.set_title(label, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    return _svg(fig)


def elo_plot(rows: Sequence[tuple[str, float, float, float]]) -> str:
    """Each engine's Elo with its interval (name, elo, low, high), best first."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, max(1.6, 0.35 * len(rows) + 0.8)))
    ys = list(range(len(rows)))[::-1]
    for y, (_name, elo, low, high) in zip(ys, rows):
        ax.errorbar([elo], [y], xerr=[[elo - low], [high - elo]], fmt="o", color=LIGHT["accent"], capsize=3)
    ax.set_yticks(ys, labels=[_label(r[0]) for r in rows])
    ax.set_xlabel("Elo (interval)")
    ax.grid(alpha=0.3, axis="x")
    return _svg(fig)


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
