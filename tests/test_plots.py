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
