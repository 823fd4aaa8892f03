"""The site's colours, defined once: the stylesheet's custom properties and the plots' colours.

:func:`css_variables` writes these as the ``:root`` custom properties that ``site.css`` uses
(with the dark set under ``prefers-color-scheme: dark``), and :mod:`.plots` draws with the
same values, so a table's win colour and the score matrix's are one colour.  Plots are
images: each carries both sets itself and follows the page's scheme as the page does.
"""

from __future__ import annotations

LIGHT: dict[str, str] = {
    "bg": "#f7f6f2",  # the page
    "surface": "#ffffff",  # tables, figures, the board's box
    "text": "#1f2328",
    "muted": "#5b6169",
    "border": "#d9dce1",
    "head": "#eef0f3",  # table headers
    "accent": "#2458c6",  # links, focus, the plots' main line
    "highlight": "#ffe9a8",  # the current move
    "win": "#2f8f55",
    "draw": "#c9971c",
    "loss": "#c8443a",
    "win-bg": "#dcf1e3",
    "draw-bg": "#f8ecc9",
    "loss-bg": "#f8dcd8",
    "grid": "#c9ccd2",
    "live": "#b05000",
}

DARK: dict[str, str] = {
    "bg": "#15171a",
    "surface": "#1e2125",
    "text": "#e4e6e9",
    "muted": "#9ba2ab",
    "border": "#383d44",
    "head": "#272b30",
    "accent": "#7ea6ff",
    "highlight": "#5a4a12",
    "win": "#4cc38a",
    "draw": "#e3b341",
    "loss": "#f0735f",
    "win-bg": "#173b29",
    "draw-bg": "#3b3115",
    "loss-bg": "#45201b",
    "grid": "#4a5059",
    "live": "#ff9d4d",
}

# One colour per engine in the plots, in order (the first is the accent).
SERIES: tuple[str, ...] = (
    "#2458c6",
    "#c8443a",
    "#2f8f55",
    "#c9971c",
    "#8e4ec6",
    "#1a9a9a",
    "#e07b39",
    "#6b7280",
)
# The same hues, lighter: the engines' lines on the dark scheme's surface.
SERIES_DARK: tuple[str, ...] = (
    "#7ea6ff",
    "#f0735f",
    "#4cc38a",
    "#e3b341",
    "#b98be8",
    "#3cc6c6",
    "#f59e5b",
    "#a0a7b1",
)


def css_variables() -> str:
    """The ``:root`` custom properties of both schemes, for the top of the stylesheet."""
    light = _declarations(LIGHT) + _series(SERIES)
    dark = _declarations(DARK) + _series(SERIES_DARK)
    return (
        "/* Colours: written from arena/results/site/palette.py (the plots use the same). */\n"
        f":root {{\n  color-scheme: light dark;\n{light}}}\n"
        f"@media (prefers-color-scheme: dark) {{\n:root {{\n{dark}}}\n}}\n"
    )


def _series(colours: tuple[str, ...]) -> str:
    return "".join(f"  --series-{k}: {c};\n" for k, c in enumerate(colours, 1))


def _declarations(colours: dict[str, str]) -> str:
    return "".join(f"  --{name}: {value};\n" for name, value in colours.items())
