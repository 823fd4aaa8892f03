"""A person plays engines in a real headless Chromium: the play pages served by uvicorn on a
loopback port, every game against real engine processes through the match, each stored in
a folder that ``arena verify`` and ``arena results`` read.

Screenshots go to $ARENA_ARTIFACTS when it is set, else to the test's temporary folder.
"""

from __future__ import annotations

import json
import random
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import uvicorn
from click.testing import CliRunner
from helpers import artifacts
from starlette.applications import Starlette

from arena.cli import main
from arena.serve.play import PlaySettings, play_routes

HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile_engine.py"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The play routes in an app of their own, on a free loopback port; the engine list
    offers the hostile engine besides the bundled ones."""
    where = tmp_path_factory.mktemp("play")
    listed = where / "engines.toml"
    listed.write_text(f'[[engines]]\nname = "hostile"\ncommand = ["{sys.executable}", "{HOSTILE}"]\n')
    app = Starlette(routes=play_routes(PlaySettings(where / "games", engine_list=listed)))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", where / "games"
    uv.should_exit = True
    thread.join(10)


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    yield pg
    context.close()
    assert pg.errors == []


def choose(page, base: str, game: str, options: dict, seat: int, engines: list[str], name: str = "ada", clock=None):
    """Fill the setup page as a person does, and start the game."""
    page.goto(base + "/play")
    page.wait_for_selector("#opponents select")
    page.select_option("#game", game)
    for key, value in options.items():
        field = page.locator(f'[data-option="{key}"]')
        kind = field.get_attribute("data-kind")
        if kind == "switch":
            field.set_checked(value)
        elif kind == "choice":
            field.select_option(json.dumps(value))
        else:
            field.fill(str(value))
        field.dispatch_event("change")
    page.wait_for_function(f"document.querySelectorAll('#opponents select').length === {len(engines)}")
    page.select_option("#seat", str(seat))
    for k, engine in enumerate(engines):
        page.select_option(f'[data-opponent="{k}"]', engine)
    page.fill("#name", name)
    if clock is not None:
        page.select_option("#clock-kind", "clock")
        page.fill("#base-min", str(clock))
    else:
        page.fill("#move-s", "30")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/game/"))
    wait_turn_or_end(page)


def wait_turn_or_end(page) -> dict:
    page.wait_for_function(
        "() => window.arenaPlay && arenaPlay.view() && arenaPlay.view().cells !== null &&"
        " (arenaPlay.view().result || arenaPlay.view().to_move === arenaPlay.view().seat)"
    )
    return page.evaluate("arenaPlay.view()")


def click_move(page, move: str, cells: list[int]) -> None:
    """Play ``move`` by clicking its cells in order (or its button, for a move of no cell,
    or a choice between moves the same cells make)."""
    version = page.evaluate("arenaPlay.view().version")
    for cell in cells:
        page.locator(f'#board [data-index="{cell}"]').click()
    if not cells or page.locator(f'#actions button[data-move="{move}"]').count():
        page.locator(f'#actions button[data-move="{move}"]').click()
    page.wait_for_function(f"arenaPlay.view().version > {version}")


def play_out(page, rng: random.Random, prefer=lambda legal: None) -> dict:
    """Click random legal moves (``prefer`` may pick one) until the game ends; its last view."""
    view = wait_turn_or_end(page)
    while not view.get("result"):
        legal = view["legal"]
        move, cells = prefer(legal) or rng.choice(legal)
        click_move(page, move, cells)
        view = wait_turn_or_end(page)
    return view


def folder_of(games: Path, view: dict) -> Path:
    folder = Path(view["folder"])
    assert folder.parent == games and (folder / "games.jsonl").is_file()
    return folder


def stored(folder: Path) -> dict:
    (line,) = (folder / "games.jsonl").read_text().splitlines()
    return json.loads(line)


def check_folder(folder: Path, person: str) -> None:
    """``arena verify`` replays the game; ``arena results`` ranks the person with the engines."""
    verified = CliRunner().invoke(main, ["verify", str(folder / "games.jsonl")])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["ok"] is True
    results = CliRunner().invoke(main, ["results", str(folder)], env={"COLUMNS": "200"})
    assert results.exit_code == 0, results.output
    standings = results.output.split("\n\n")[0]
    assert re.search(rf"^\d+\s+{person}\s", standings, re.M), results.output


def test_a_person_plays_hex_with_the_swap_and_bases_with_slides(page, server, tmp_path):
    base, games = server
    choose(page, base, "hex", {"size": 3, "swap": True}, seat=1, engines=["random"], name="ada")
    view = page.evaluate("arenaPlay.view()")
    assert [m for m, cells in view["legal"] if not cells] == ["swap"]
    swap = page.locator('#actions button[data-move="swap"]')
    assert swap.is_visible()
    # Hovering a cell shows the legal moves it starts; an occupied one says none does.
    taken = view["cells"].index(next(c for c in view["cells"] if c))
    free = view["cells"].index("")
    page.locator(f'#board [data-index="{free}"]').hover()
    assert "legal" in page.locator(f'#board [data-index="{free}"]').get_attribute("class")
    (move,) = [m for m, cells in view["legal"] if cells == [free]]
    assert page.text_content("#hover") == f"{move}: {move}"
    page.locator(f'#board [data-index="{taken}"]').hover()
    assert "no legal move starts here" in page.text_content("#hover")
    # A click on the occupied cell is answered in the referee's words, and costs nothing.
    page.locator(f'#board [data-index="{taken}"]').click()
    page.wait_for_function("document.getElementById('message').textContent.includes('is not a move now')")
    assert "occupied" in page.text_content("#message")
    assert page.text_content("#moves tbody tr td:nth-child(2)") == "random"  # who made the move
    page.screenshot(path=str(artifacts(tmp_path) / "play-hex-1280x900.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts(tmp_path) / "play-hex-390x844.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    click_move(page, "swap", [])
    last = play_out(page, random.Random(1))
    record = stored(folder_of(games, last))
    assert record["moves"][1] == "swap" and record["players"] == ["random", "ada"]
    assert page.is_visible("#result") and record["termination"] == "normal"
    check_folder(folder_of(games, last), "ada")

    choose(page, base, "bases", {"max_plies": 16}, seat=0, engines=["random"], name="bea")
    first = page.evaluate("arenaPlay.view()")
    slide, cells = first["legal"][0]
    assert len(cells) == 2  # a piece, then where it slides
    theirs = first["cells"].index("blue")  # the engine's piece: no move of the person starts there
    page.locator(f'#board [data-index="{theirs}"]').click()
    page.wait_for_function("document.getElementById('message').textContent.endsWith('no legal move starts there')")
    page.locator(f'#board [data-index="{cells[0]}"]').click()
    targets = page.eval_on_selector_all("#board .cell.target", "nodes => nodes.map(n => Number(n.dataset.index))")
    assert set(targets) == {c[1] for m, c in first["legal"] if c[0] == cells[0]}
    assert page.locator(f'#board [data-index="{cells[0]}"]').get_attribute("class").count("picked") == 1
    # A destination the piece cannot reach: the referee's reason, and the selection cleared.
    wrong = next(i for i, code in enumerate(first["cells"]) if i not in targets and i != cells[0])
    page.locator(f'#board [data-index="{wrong}"]').click()
    page.wait_for_function("document.getElementById('message').textContent.includes('is not a move now')")
    click_move(page, slide, cells)
    last = play_out(page, random.Random(2))
    record = stored(folder_of(games, last))
    assert record["moves"][0] == slide and "-" in slide
    check_folder(folder_of(games, last), "bea")


def test_a_person_plays_groups_hexgo_and_hidden_posies_with_three_seats(page, server, tmp_path):
    base, games = server
    for game, options, seat, name in (("groups", {"size": 3}, 0, "cai"), ("hexgo", {"size": 2}, 1, "dan")):
        choose(page, base, game, options, seat=seat, engines=["random"], name=name)
        last = play_out(page, random.Random(3))
        folder = folder_of(games, last)
        assert stored(folder)["players"][seat] == name
        check_folder(folder, name)

    choose(page, base, "posies", {"players": 3, "variant": 2}, seat=1, engines=["random", "random"], name="eve")
    view = page.evaluate("arenaPlay.view()")
    assert view["players"] == ["random-0", "eve", "random-2"]
    (mine,) = view["private"]
    assert re.fullmatch(r"hidden (pink|purple|green)", mine)
    assert page.text_content("#private") == f"Only you see: {mine}"
    text = json.dumps(view)
    assert text.count("hidden") == 1  # no other seat's hidden posy reaches the page
    page.screenshot(path=str(artifacts(tmp_path) / "play-posies-1280x900.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts(tmp_path) / "play-posies-390x844.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    last = play_out(page, random.Random(4))
    folder = folder_of(games, last)
    record = stored(folder)
    assert f"hidden {record['details']['hidden'][1]}" == mine
    assert page.is_visible("#end")  # the end reveals every seat's hidden posy
    check_folder(folder, "eve")


def test_resign_the_clocks_and_a_new_game(page, server, tmp_path):
    base, games = server
    choose(page, base, "hex", {"size": 4, "swap": False}, seat=0, engines=["search-easy"], name="fay", clock=1)
    assert re.fullmatch(r"[01]:\d\d", page.text_content('#seats li[data-seat="0"] .clock'))
    page.click("#resign")
    page.wait_for_function("arenaPlay.view().result")
    record = stored(folder_of(games, page.evaluate("arenaPlay.view()")))
    assert record["termination"] == "resign" and record["winner"] == 1
    assert "resign" in page.text_content("#result")
    page.click("#new-game")
    page.wait_for_url(re.compile(r"/play$"))
    assert page.locator("#game option").count() == 5
    page.wait_for_selector("#seat option", state="attached")
    assert not page.is_visible("#base-min")  # the clock's fields show only for a clock
    page.screenshot(path=str(artifacts(tmp_path) / "play-setup-1280x900.png"), full_page=True)
    # A new game chosen while one is going resigns that one.
    choose(page, base, "hex", {"size": 4}, seat=1, engines=["random"], name="fay")
    going = page.evaluate("arenaPlay.view()")
    page.click("#new-game")
    page.wait_for_url(re.compile(r"/play$"))
    folder, deadline = Path(going["folder"]), time.monotonic() + 30
    # The match stores it once it hears the resignation: the file is made, then its line written.
    while not ((folder / "games.jsonl").is_file() and (folder / "games.jsonl").read_text().endswith("\n")):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert stored(folder)["termination"] == "resign" and stored(folder)["players"][1] == "fay"


def test_engine_text_is_shown_never_run(page, server):
    base, games = server
    choose(page, base, "hex", {"size": 3}, seat=1, engines=["hostile"], name="gus")
    page.wait_for_function("arenaPlay.view().result")
    assert "<img/src=x/onerror=" in page.text_content("#result")
    assert page.title() != "pwned" and page.locator("main img").count() == 0


def post(url: str, body: object, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_page_can_start_only_offered_engines_and_only_from_this_origin(server):
    base, _ = server
    setup = {
        "game": "hex",
        "options": {"size": 3},
        "name": "hal",
        "seat": 0,
        "clock": {"kind": "move", "move_s": 5},
    }
    assert post(base + "/play/new", {**setup, "engines": ["/bin/sh"]}) == (
        400,
        {"error": "opponents: /bin/sh is not an engine offered here"},
    )
    status, answer = post(base + "/play/new", {**setup, "engines": ["random"]}, {"Origin": "http://evil.example"})
    assert (status, answer) == (403, {"error": "refused: this request comes from another site"})
    status, answer = post(base + "/play/new", {**setup, "engines": ["random"], "options": {"size": 99}})
    assert status == 400 and "size" in answer["error"]
    status, answer = post(base + "/play/new", {**setup, "engines": ["random"], "name": "<b>x</b>"})
    assert status == 400 and answer["error"].startswith("your name:")
    assert post(base + "/play/new", {**setup, "engines": [["random"]]}) == (
        400,
        {"error": "opponents: choose 1 engine(s)"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base + "/play/seats?game=hex&options=[1]", timeout=10)
    assert refused.value.code == 400
    assert json.loads(refused.value.read()) == {"error": "options: expected an object of option values"}
