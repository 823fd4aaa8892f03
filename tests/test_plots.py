"""The site's plots drawn exactly: each plot of fixed data is compared with the SVG it gave when
it was last looked at (tests/data/plots/), so a changed margin, tick, colour or sample shows.

After a deliberate change to a plot, look at the new pictures and write them anew:
``ARENA_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/test_plots.py``."""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from arena.results.site import plots
from arena.results.site.palette import DARK, LIGHT, SERIES, SERIES_DARK

SNAPSHOTS = Path(__file__).parent / "data" / "plots"


def _llr(n: int) -> list[float]:
    return [math.sin(k / 7) * 2 + k / (n + 1) for k in range(n)]


def _history(n: int, drift: float) -> list[tuple[int, float, float]]:
    return [(k + 1, 25 + drift * k, 8.3 * 0.996**k) for k in range(n)]


PLOTS = {
    "sprt": lambda: plots.sprt_plot([0.1, -0.4, 0.7, 1.3, 2.2], -2.94, 2.94),
    "sprt-labelled": lambda: plots.sprt_plot([0.2, -0.5, -1.1], -1.5, 2.5, "new <b> vs old"),
    "sprt-one-pair": lambda: plots.sprt_plot([0.3], -2.94, 2.94),
    "sprt-sampled": lambda: plots.sprt_plot(_llr(1001), -2.94, 2.94),
    "ratings": lambda: plots.ratings_plot(
        {"alpha": _history(4, 0.6), "beta\x1b[31m": _history(3, -0.4), "gone": [], "long": _history(45, 0.02)}
    ),
    "ratings-sampled": lambda: plots.ratings_plot({"a": _history(803, 0.001)}),
    "scores": lambda: plots.score_matrix_plot(
        ["alpha", "beta", "a much longer name"], [[None, 62.5, 100.0], [37.5, None, 0.0], [0.0, 100.0, None]]
    ),
    "scores-pair": lambda: plots.score_matrix_plot(["a", "b"], [[None, 50.0], [50.0, None]]),
    "elo": lambda: plots.elo_plot([("alpha", 120.0, 60.5, 180.2), ("beta", 0.0, -40.0, 41.0), ("c", -95.5, -170, -20)]),
    "elo-one": lambda: plots.elo_plot([("solo", 0.0, 0.0, 0.0)]),
}


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_each_plot_of_fixed_data_is_the_svg_it_was_when_looked_at(name):
    svg = PLOTS[name]()
    ET.fromstring(svg)  # well-formed: an <img> shows nothing of a broken file
    snapshot = SNAPSHOTS / f"{name}.svg"
    if os.environ.get("ARENA_UPDATE_SNAPSHOTS"):
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(svg, encoding="utf-8")
    assert svg == snapshot.read_text(encoding="utf-8"), f"{name}: the plot changed; see this file's docstring"


def test_a_long_line_is_drawn_from_at_most_max_points_samples_and_keeps_its_last():
    points = list(range(1001))
    picked = plots._sample(points)
    assert len(picked) == plots.MAX_POINTS + 1 and picked[0] == 0 and picked[-1] == 1000
    assert picked[1] - picked[0] == 2 and picked[-2] == int((plots.MAX_POINTS - 1) * 1001 / plots.MAX_POINTS)
    assert plots._sample(points[:400]) == points[:400]


def test_ticks_are_round_steps_inside_the_range():
    assert plots.ticks(0, 1) == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert plots.ticks(-3, 3) == [-3, -2, -1, 0, 1, 2, 3]
    assert plots.ticks(0.5, 37) == [10, 20, 30]
    assert plots.ticks(1, 1000) == [200, 400, 600, 800, 1000]
    assert plots.ticks(1, 1000, wanted=2) == [500, 1000]
    assert plots.ticks(-2.94, 2.94) == [-2, -1, 0, 1, 2]
    assert plots.ticks(5, 5) == [5] and plots.ticks(5, 4) == [5]
    assert plots.ticks(math.nan, 1) == [] and plots.ticks(0, math.inf) == [0]


def test_each_schemes_style_sets_every_role_and_series_colour():
    style = plots._scheme({role: f"#{k:06x}" for k, role in enumerate(plots.ROLES)}, ("#aa0000", "#00bb00"))
    assert style == (
        "--surface:#000000;--text:#000001;--muted:#000002;--border:#000003;--grid:#000004;--accent:#000005;"
        "--win:#000006;--loss:#000007;--series-1:#aa0000;--series-2:#00bb00"
    )
    assert plots.SCHEMES.startswith(f"<style>svg{{{plots._scheme(LIGHT, SERIES)}}}\n")
    assert f"@media (prefers-color-scheme: dark){{svg{{{plots._scheme(DARK, SERIES_DARK)}}}}}</style>" in plots.SCHEMES


def test_the_score_colours_run_from_the_loss_colour_through_the_draw_colour_to_the_win_colour():
    """0% is the loss colour, 50% the draw colour, 100% the win colour; a fraction outside 0 to 1
    is drawn as the end it passed."""
    assert [plots.score_colour(f) for f in (0.0, 0.5, 1.0)] == [LIGHT["loss"], LIGHT["draw"], LIGHT["win"]]
    assert [plots.score_colour(f) for f in (-0.5, 1.5, 2.0)] == ["#c8443a", "#2f8f55", "#2f8f55"]


def test_the_score_matrix_of_four_engines_has_a_colour_bar_as_tall_as_its_rows():
    """Four rows of 40 px cells: the bar beside them is 160 px from the top margin (10 px), its
    100 at the top, 50 halfway and 0 at the bottom (each figure 4 px under its height)."""
    names = ["a", "b", "c", "d"]
    scores = [[None if r == c else 50.0 for c in range(4)] for r in range(4)]
    svg = ET.fromstring(plots.score_matrix_plot(names, scores))
    ns = "{http://www.w3.org/2000/svg}"
    bars = [rect for rect in svg.iter(f"{ns}rect") if rect.get("fill") == "url(#score)"]
    assert [(bar.get("y"), bar.get("width"), bar.get("height")) for bar in bars] == [("10", "14", "160")]
    figures = [(t.get("y"), t.text) for t in svg.iter(f"{ns}text") if t.get("style") == "fill:var(--muted)"]
    assert figures == [("174.0", "0"), ("94.0", "50"), ("14.0", "100")]


def test_a_score_matrix_of_no_engines_is_its_colour_bar_beside_a_margin_of_one_character():
    """No rows and no cells: the label margin keeps room for one character (16 px and CHAR), then
    the bar and its figures take 110 px; the height is the bar's 130 px and its 10 px margins."""
    svg = plots.score_matrix_plot([], [])
    root = ET.fromstring(svg)
    assert (root.get("width"), root.get("height")) == (f"{16 + plots.CHAR + 110:.0f}", "150") == ("133", "150")
    ns = "{http://www.w3.org/2000/svg}"
    drawn = [rect for rect in root.iter(f"{ns}rect") if rect.get("width") != "100%"]  # not the background
    assert [(rect.get("fill"), rect.get("height")) for rect in drawn] == [("url(#score)", "130")]


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


def test_a_ratings_plot_without_games_is_empty_axes_from_0_to_1_and_no_legend():
    """No engine has played: both axes run 0 to 1 (ticks every 0.2) and the legend takes no
    width beyond its margins (700 + 12 + 24 px); an engine without games draws the same."""
    svg = plots.ratings_plot({})
    root = ET.fromstring(svg)
    assert (root.get("width"), root.get("height")) == ("736", "360")
    ticks = ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    assert _texts(svg) == [*ticks, *ticks, "games played (tournament order)", "TrueSkill mu (band: ±2 sigma)"]
    assert "<polyline" not in svg and "<circle" not in svg
    assert plots.ratings_plot({"idle": []}) == svg


def test_a_ratings_line_of_30_points_marks_each_point_and_one_of_31_marks_none():
    for n, marked in ((30, True), (31, False)):
        svg = plots.ratings_plot({"a": _history(n, 0.1)})
        root = ET.fromstring(svg)
        ns = "{http://www.w3.org/2000/svg}"
        line = [tuple(p.split(",")) for p in root.find(f"{ns}polyline").get("points").split()]
        dots = [(c.get("cx"), c.get("cy")) for c in root.iter(f"{ns}circle")]
        assert len(line) == n and dots == (line if marked else [])


def test_a_line_of_401_to_800_points_keeps_its_last_point_after_the_400_samples():
    for n in (401, 500, 799):
        points = [(k,) for k in range(n)]
        picked = plots._sample(points)
        # a step between 1 and 2: the last of the 400 samples is the point before the last
        assert len(picked) == plots.MAX_POINTS + 1 and picked[-2:] == [points[n - 2], points[n - 1]]


def test_an_elo_plot_of_no_engines_is_its_axis_from_minus_one_to_one_beside_a_one_character_margin():
    """No rows: the x range is -1 to 1 widened by 4% each side (-1.08 to 1.08), drawn from the
    margin of one character (12 px and CHAR: 19.15) to 16 px from the right of 700 px; the
    height is the 12 px top and 40 px under the rows. The ticks are the halves from -1 to 1."""
    root = ET.fromstring(plots.elo_plot([]))
    assert (root.get("width"), root.get("height")) == ("700", "52")
    ns = "{http://www.w3.org/2000/svg}"
    texts = [(t.get("x"), t.text) for t in root.iter(f"{ns}text")]
    left, w = 12 + plots.CHAR, 700 - (12 + plots.CHAR) - 16

    def sx(v: float) -> str:
        return f"{left + (v + 1.08) / 2.16 * w:.1f}"

    assert [sx(v) for v in (-1, -0.5, 0, 0.5, 1)] == ["43.8", "197.7", "351.6", "505.5", "659.4"]
    assert texts == [
        ("43.8", "-1"),
        ("197.7", "-0.5"),
        ("351.6", "0"),
        ("505.5", "0.5"),
        ("659.4", "1"),
        ("351.6", "Elo (interval)"),
    ]
    axes = [(line.get("x1"), line.get("x2")) for line in root.iter(f"{ns}line") if line.get("y1") == "12.0"]
    assert axes[0] == ("19.1", "19.1")  # the left axis, at the one-character margin


def test_a_range_with_an_end_that_is_not_a_finite_number_is_drawn_over_zero_to_one():
    assert plots._widened(0.0, math.inf) == (0.0, 1.0)
    assert plots._widened(-math.inf, 3.0) == (0.0, 1.0)
    assert plots._widened(math.nan, math.nan) == (0.0, 1.0)
    assert plots._widened(2.0, 2.0) == (1.0, 3.0)  # no span: one each side
    assert plots._widened(0.0, 50.0) == (-2.0, 52.0)  # 4% each side


def test_a_tick_of_a_million_or_more_is_labelled_to_three_significant_figures():
    """Below a million a tick reads as Python's shortest general form; from a million on, three
    significant figures in exponent form keep the label short."""
    assert [plots._tick_text(v) for v in (0.25, -3.0, 999999.0, 123456.0)] == ["0.25", "-3", "999999", "123456"]
    assert [plots._tick_text(v) for v in (1234567.0, -1234567.0, 2500000.0)] == ["1.23e+06", "-1.23e+06", "2.5e+06"]


def test_the_palettes_declarations_are_one_custom_property_a_line_and_the_series_numbered_from_one():
    from arena.results.site import palette

    assert palette._declarations({"bg": "#000000", "win-bg": "#112233"}) == ("  --bg: #000000;\n  --win-bg: #112233;\n")
    assert palette._series(("#aa0000", "#00bb00", "#0000cc")) == (
        "  --series-1: #aa0000;\n  --series-2: #00bb00;\n  --series-3: #0000cc;\n"
    )


def test_the_stylesheets_variables_are_the_light_palette_at_root_and_the_dark_one_under_the_dark_scheme():
    from arena.results.site import palette

    lines = palette.css_variables().split("\n")
    light = [f"  --{k}: {v};" for k, v in LIGHT.items()] + [f"  --series-{k + 1}: {c};" for k, c in enumerate(SERIES)]
    dark = [f"  --{k}: {v};" for k, v in DARK.items()]
    dark += [f"  --series-{k + 1}: {c};" for k, c in enumerate(SERIES_DARK)]
    assert lines == [
        "/* Colours: written from arena/results/site/palette.py (the plots use the same). */",
        ":root {",
        "  color-scheme: light dark;",
        *light,
        "}",
        "@media (prefers-color-scheme: dark) {",
        ":root {",
        *dark,
        "}",
        "}",
        "",
    ]
    assert (light[0], light[-1], dark[0], dark[-1]) == (
        "  --bg: #f7f6f2;",
        "  --series-8: #6b7280;",
        "  --bg: #15171a;",
        "  --series-8: #a0a7b1;",
    )
