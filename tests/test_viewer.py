"""The game viewer's page in a real headless Chromium: the board stays in the window at
a desktop's, a laptop's and a phone's size, and what the board shows is explained on it
(coordinates, legend, labelled counters)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright
from test_site import CHROMIUM, CHROMIUM_FLAGS, random_record, site_of

from arena.rules import make_game

pytestmark = pytest.mark.timeout(300)
SIZES = [(1920, 1080), (1280, 900), (390, 844)]
# One real game of each game at its default options (the largest boards users see).
GAMES = [("hex", {}, 3), ("hexgo", {}, 0), ("groups", {}, 5), ("posies", {"players": 3}, 5), ("bases", {}, 2)]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


def game_page(tmp_path: Path, game_name: str, options: dict, seed: int) -> tuple[dict, str]:
    """A site of one game played to its end; its record and the game page's address."""
    players = ["alpha", "beta", "gamma"][: make_game(game_name, options).players]
    record = random_record(game_name, options, seed, players)
    site = site_of(tmp_path, [record], players)
    return record, (site / "games" / f"{seed}.html").as_uri()


WHERE = """() => {
  const r = document.getElementById("board").getBoundingClientRect();
  const row = document.querySelector("#moves tr.current").getBoundingClientRect();
  const box = document.getElementById("moves-box").getBoundingClientRect();
  return {board: [r.left, r.top, r.right, r.bottom], window: [innerWidth, innerHeight],
          scrolled: [scrollX, scrollY], row: row.top >= box.top - 1 && row.bottom <= box.bottom + 1};
}"""


def assert_in_window(page, when: str) -> None:
    where = page.evaluate(WHERE)
    left, top, right, bottom = where["board"]
    width, height = where["window"]
    assert right - left > 150 and bottom - top > 150, (when, where)  # a board, not a speck
    assert left >= 0 and top >= 0 and right <= width and bottom <= height, (when, where)
    assert where["scrolled"] == [0, 0], (when, where)  # stepping scrolls the move list only
    assert where["row"], (when, where)  # the current move is in sight in its box


@pytest.mark.slow
@pytest.mark.parametrize("game_name, options, seed", GAMES)
def test_the_board_stays_in_the_window_on_load_and_while_stepping(browser, tmp_path, game_name, options, seed):
    record, address = game_page(tmp_path, game_name, options, seed)
    plies = len(record["moves"])
    assert plies >= 8, "pick a seed whose game has some moves"
    for width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(address)
        size = f"{game_name} at {width}x{height}"
        assert_in_window(page, f"{size}, on load")
        page.keyboard.press("Home")
        assert_in_window(page, f"{size}, at the start")
        for ply in range(1, plies + 1):  # the arrow key and the button, in turn
            page.keyboard.press("ArrowRight") if ply % 2 else page.click("#forward")
            assert page.input_value("#ply") == str(ply)
            assert_in_window(page, f"{size}, ply {ply}")
        page.click("#first")
        page.click("#last")
        assert_in_window(page, f"{size}, at the end again")
        assert not errors
        context.close()
