"""The report site's look, in Chromium: no Python value on any page, the settings as the
file's author wrote them, sortable tables, the cross table's colours, dark mode and the
palette the plots share with the stylesheet.  Screenshots go where test_site.py puts them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import test_site
from helpers import engine_toml, run_arena, write_tournament
from matplotlib.colors import to_hex, to_rgb

from arena.results.site import SiteData, palette, plots, write_site
from arena.rules import make_game

pytestmark = pytest.mark.timeout(240)
browser, page = test_site.browser, test_site.page  # the same Chromium fixtures
random_record, shot = test_site.random_record, test_site.shot
# A Python value shown as such: a word None/True/False, or a list's or dict's repr.
PYTHON_VALUE = re.compile(r"\b(?:None|True|False)\b|\['|\{'")
SUMMARY = ("index.html", "crosstable.html", "engines.html", "games.html", "settings.html")
FIVE_GAMES = [
    ("hex", {"size": 5}, 3),
    ("groups", {"size": 3}, 5),
    ("hexgo", {"size": 3}, 0),
    ("bases", {"max_plies": 40}, 1),
    ("posies", {"variant": 0, "players": 3}, 5),
]


def python_values(page) -> list[str]:
    """The Python values in the page's visible text."""
    return PYTHON_VALUE.findall(page.inner_text("body"))


def column(page, table: str, k: int) -> list[str]:
    return page.locator(f"#{table} tbody tr td:nth-child({k + 1})").all_text_contents()


@pytest.mark.slow
def test_no_page_of_a_real_sprt_run_shows_a_python_value(page, tmp_path):
    """A real SPRT run with an engine given options, and booleans in the settings: every
    page's visible text, at the first and last ply of a game too, holds no Python value,
    and the settings page is a table of what the file says."""
    engines = engine_toml("searcher", "{python}", "-m", "engines.search", extra='options = { level = "easy" }')
    engines += engine_toml("random", "{python}", "-m", "engines.random_engine", extra="max_failures = 0")
    extra = "affinity = false\n[sprt]\nelo0 = 0\nelo1 = 10\n[openings]\nrandom_plies = 2\n"
    path = write_tournament(
        tmp_path, engines, name="plain", rounds=100, seed=5, extra=extra, time_control="movetime_ms = 100"
    )
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out, "-q")
    assert run.returncode == 0, run.stderr
    site = out / "report"
    for name in SUMMARY:
        page.goto((site / name).as_uri())
        assert python_values(page) == [], name
    for game in ("0", "1"):
        page.goto((site / "games" / f"{game}.html").as_uri())
        assert python_values(page) == [], game
        page.click("#first")
        assert python_values(page) == [], game
    page.goto((site / "settings.html").as_uri())
    rows = {
        row.locator("th").text_content(): row.locator("td .line").all_text_contents()
        for row in page.locator("#tournament-settings tbody tr").all()
    }
    assert rows["options"] == ["size = 5", "swap = yes"] and rows["affinity"] == ["no"]
    assert "elo0 = 0" in rows["sprt"] and rows["openings"][-1] == "random_plies = 2"
    assert "paths" not in rows and "cluster" not in rows  # arena's own marker; unset
    headers = page.locator("#engine-settings thead th").all_text_contents()
    searcher = page.locator("#engine-settings tbody tr").first.locator("td")
    assert searcher.nth(headers.index("options")).text_content() == "level = easy"
    assert searcher.nth(headers.index("command")).text_content() == "{python} -m engines.search"
    shot(page, tmp_path, "settings")
    assert not page.errors


def five_game_sites(tmp_path: Path) -> dict[str, Path]:
    """A small site of each game: random games between its players, one game per pairing."""
    sites = {}
    for game_name, options, seed in FIVE_GAMES:
        players = ["alpha", "beta", "gamma"][: make_game(game_name, options).players]
        pairs = [players] if len(players) > 2 else [["alpha", "beta"], ["beta", "gamma"], ["gamma", "alpha"]]
        engines = sorted({p for pair in pairs for p in pair})
        records = [
            random_record(game_name, options, seed + k, pair).replace(id=k, round=k) for k, pair in enumerate(pairs)
        ]
        data = SiteData(f"arena · {game_name}", game_name, records[0]["options"], engines, records)
        sites[game_name] = write_site(tmp_path / game_name, data).parent
    return sites


@pytest.mark.slow
def test_the_five_games_sites_look_designed_and_say_no_python(page, tmp_path):
    """The index, cross table, engine page and a game page of each game: screenshots, no
    Python value, and the cross table's cells coloured by the row engine's result."""
    for game_name, site in five_game_sites(tmp_path).items():
        for name in ("index.html", "crosstable.html", "engines.html", "games/0.html"):
            page.goto((site / name).as_uri())
            assert python_values(page) == [], (game_name, name)
            shot(page, tmp_path, f"{game_name}-{name.replace('/', '-').removesuffix('.html')}")
        page.goto((site / "crosstable.html").as_uri())
        for row in page.locator("#cross tbody tr").all():
            for cell in row.locator("td").all()[1:]:
                text, cls = cell.text_content(), cell.get_attribute("class") or ""
                if text == "—":
                    assert cls == "self"
                elif text:
                    points, games = (float(v) for v in text.split("/"))
                    half = games / 2
                    assert cls == ("win" if points > half else "draw" if points == half else "loss"), text
    assert not page.errors


def standings_site(tmp_path: Path) -> Path:
    """Twelve engines, so that ten sorts after nine: a number sorted as text would not."""
    names = [f"e{k}" for k in range(12)]
    records = []
    for k in range(60):
        a, b = names[k % 12], names[(k * 5 + 1) % 12]
        if a != b:
            records.append(random_record("hex", {"size": 3}, k, [a, b]).replace(id=len(records)))
    return write_site(tmp_path / "site", SiteData("t", "hex", records[0]["options"], names, records)).parent


@pytest.mark.slow
def test_clicking_a_header_sorts_its_table_numbers_as_numbers(page, tmp_path):
    site = standings_site(tmp_path)
    page.goto((site / "index.html").as_uri())
    headers = page.locator("#standings thead th").all_text_contents()
    games = headers.index("games")
    header = page.locator("#standings thead th").nth(games)
    assert header.get_attribute("aria-sort") == "none"
    header.locator("button").click()
    shown = [int(v) for v in column(page, "standings", games)]
    assert shown == sorted(shown) and header.get_attribute("aria-sort") == "ascending"
    header.locator("button").click()
    assert [int(v) for v in column(page, "standings", games)] == sorted(shown, reverse=True)
    assert header.get_attribute("aria-sort") == "descending"
    # By the keyboard: the header's button takes the focus, Enter sorts by rank again.
    rank = page.locator("#standings thead th").nth(headers.index("rank"))
    rank.locator("button").focus()
    page.keyboard.press("Enter")
    ranks = column(page, "standings", headers.index("rank"))
    assert [int(v) for v in ranks] == list(range(1, 13))  # 10, 11, 12 after 9: numbers, not text
    assert rank.get_attribute("aria-sort") == "ascending" and header.get_attribute("aria-sort") == "none"
    page.locator("#standings thead th").nth(headers.index("engine")).locator("button").click()
    assert column(page, "standings", headers.index("engine")) == sorted(f"e{k}" for k in range(12))
    # The games list sorts every game, not only the page shown.
    page.goto((site / "games.html").as_uri())
    plies = page.locator("#games thead th").nth(5).locator("button")
    plies.click()
    plies.click()  # descending: the longest game of all first
    assert int(column(page, "games", 5)[0]) == max(game_lengths(site))
    page.locator("#games thead th").first.locator("button").click()
    ids = [int(v) for v in column(page, "games", 0)]
    assert ids == sorted(ids) and ids[0] == 0
    assert not page.errors


def game_lengths(site: Path) -> list[int]:
    """Every game's plies, from the games list's index."""
    text = (site / "data" / "games-index.js").read_text()
    index = json.loads(text[text.index("=") + 1 :].strip().rstrip(";"))
    return [g[5] for g in index["games"]]


@pytest.mark.slow
def test_dark_mode_and_the_palette_the_plots_share(browser, tmp_path):
    site = standings_site(tmp_path)
    styles = "() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color]; }"
    looks = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        pg = context.new_page()
        pg.goto((site / "crosstable.html").as_uri())
        looks[scheme] = pg.evaluate(styles)
        win = pg.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--win').trim()")
        assert win == (palette.DARK if scheme == "dark" else palette.LIGHT)["win"]
        shot(pg, tmp_path, f"crosstable-{scheme}")
        context.close()
    assert looks["light"] != looks["dark"]
    assert looks["dark"][0] == _rgb(palette.DARK["bg"]) and looks["light"][0] == _rgb(palette.LIGHT["bg"])
    # The plots draw with the same colours: the engines' lines, the Elo points, the score
    # matrix from the loss colour to the win colour.
    ratings = (site / "plots" / "ratings.svg").read_text()
    assert all(colour in ratings for colour in palette.SERIES[:3])
    assert palette.LIGHT["accent"] in (site / "plots" / "elo.svg").read_text()
    cmap = plots.score_colormap()
    assert to_hex(cmap(0.0)) == palette.LIGHT["loss"] and to_hex(cmap(1.0)) == palette.LIGHT["win"]
    middle = to_rgb(palette.LIGHT["draw"])  # within the colour map's 256 steps of it
    assert all(abs(a - b) < 2 / 255 for a, b in zip(cmap(0.5)[:3], middle, strict=True))
    sprt = plots.sprt_plot([0.1, 0.5, 1.2], -2.94, 2.94)
    assert palette.LIGHT["win"] in sprt and palette.LIGHT["loss"] in sprt


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"
