"""The game viewer's page in a real headless Chromium: the board stays in the window at
a desktop's, a laptop's and a phone's size, and what the board shows is explained on it
(coordinates, legend, labelled counters)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import artifacts, game_address, random_record, site_of

from arena.results.site.boards import replay
from arena.rules import GAMES as REGISTERED_GAMES
from arena.rules import make_game

pytestmark = pytest.mark.timeout(300)
SIZES = [(1920, 1080), (1280, 900), (390, 844)]
# One real game of each game at its default options (the largest boards users see).
GAMES = [("hex", {}, 3), ("hexgo", {}, 0), ("groups", {}, 5), ("posies", {"players": 3}, 5), ("bases", {}, 2)]


def game_page(tmp_path: Path, game_name: str, options: dict, seed: int) -> tuple[dict, str]:
    """A site of one game played to its end; its record and the game page's address."""
    players = ["alpha", "beta", "gamma"][: make_game(game_name, options).players]
    record = random_record(game_name, options, seed, players)
    site = site_of(tmp_path, [record], players)
    return record, game_address(site, seed)


# Where the board is, and the ply shown: one round trip to the browser a step.
WHERE = """() => {
  const r = document.getElementById("board").getBoundingClientRect();
  const row = document.querySelector("#moves tr.current").getBoundingClientRect();
  const box = document.getElementById("moves-box").getBoundingClientRect();
  return {board: [r.left, r.top, r.right, r.bottom], window: [innerWidth, innerHeight],
          scrolled: [scrollX, scrollY], row: row.top >= box.top - 1 && row.bottom <= box.bottom + 1,
          ply: document.getElementById("ply").value};
}"""


def assert_in_window(page, when: str) -> str:
    """Fails unless the board is whole in the window; the ply shown."""
    return assert_placed(page.evaluate(WHERE), when)


def assert_placed(where: dict, when: str) -> str:
    left, top, right, bottom = where["board"]
    width, height = where["window"]
    assert right - left > 150 and bottom - top > 150, (when, where)  # a board, not a speck
    assert left >= 0 and top >= 0 and right <= width and bottom <= height, (when, where)
    assert where["scrolled"] == [0, 0], (when, where)  # stepping scrolls the move list only
    assert where["row"], (when, where)  # the current move is in sight in its box
    return where["ply"]


@pytest.mark.slow
@pytest.mark.parametrize("game_name, options, seed", GAMES)
def test_the_board_stays_in_the_window_on_load_and_while_stepping(browser, tmp_path, game_name, options, seed):
    record, address = game_page(tmp_path, game_name, options, seed)
    plies = len(record["moves"])
    assert plies >= 8, "pick a seed whose game has some moves"
    for width, height in SIZES:
        page = new_page(browser, (width, height))
        page.goto(address)
        size = f"{game_name} at {width}x{height}"
        assert_in_window(page, f"{size}, on load")
        if (width, height) == SIZES[0]:
            assert_every_ply_in_window(page, plies, size)
        page.keyboard.press("Home")
        shown = assert_in_window(page, f"{size}, at the start")
        # Through Playwright's keyboard and mouse, the first plies and the last few (the layout
        # does not change in between, the move list's scrolling is checked at the end).
        for ply in [*range(1, 7), *range(plies - 2, plies + 1)]:  # the arrow key and the button, in turn
            if shown != str(ply - 1):  # jump near the end: End, then back
                page.keyboard.press("End")
                for _ in range(plies - ply + 1):
                    page.keyboard.press("ArrowLeft")
            page.keyboard.press("ArrowRight") if ply % 2 else page.click("#forward")
            shown = assert_in_window(page, f"{size}, ply {ply}")
            assert shown == str(ply), f"{size}: ply {shown} shown after stepping to {ply}"
        page.click("#first")
        page.click("#last")
        assert_in_window(page, f"{size}, at the end again")
        assert not page.errors
        page.context.close()


# Every ply from the start, the arrow key's event and the button in turn, inside the page: the
# viewer shows a ply at once (no frame waited for), and a round trip from Playwright a step
# cost about 45 ms, five seconds on a Hex game.
WALK = f"""(plies) => {{
  const where = {WHERE};
  const seen = [];
  document.dispatchEvent(new KeyboardEvent("keydown", {{key: "Home", bubbles: true}}));
  seen.push(where());
  for (let ply = 1; ply <= plies; ply++) {{
    if (ply % 2) document.dispatchEvent(new KeyboardEvent("keydown", {{key: "ArrowRight", bubbles: true}}));
    else document.getElementById("forward").click();
    seen.push(where());
  }}
  return seen;
}}"""


def assert_every_ply_in_window(page, plies: int, size: str) -> None:
    for ply, where in enumerate(page.evaluate(WALK, plies)):
        shown = assert_placed(where, f"{size}, ply {ply} of the walk")
        assert shown == str(ply), f"{size}: ply {shown} shown after stepping to {ply}"


def new_page(browser, size: tuple[int, int]):
    """A page in a window of ``size``, collecting the script errors it raises."""
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def open_game(browser, tmp_path: Path, game_name: str, options: dict, seed: int, size=(1280, 900)):
    """A game played to its end, its page open in a window of ``size``."""
    record, address = game_page(tmp_path, game_name, options, seed)
    page = new_page(browser, size)
    page.goto(address)
    return record, page


# Every label's box and every cell's full-size box, in the board's own units.
BOXES = """() => {
  const board = window.ARENA_BOARD;
  const box = b => [b.x, b.y, b.x + b.width, b.y + b.height];
  const labels = Array.from(document.querySelectorAll("#board text.label")).map(t => [t.textContent, box(t.getBBox())]);
  const cells = board.cells.map(c => [c.name, c.x, c.y, board.kind === "points"
    ? [c.x - board.radius, c.y - board.radius, c.x + board.radius, c.y + board.radius]
    : box(document.querySelector(`#board [data-cell="${c.name}"]`).getBBox())]);
  return {labels, cells};
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.slow
@pytest.mark.parametrize("game_name, options, seed", GAMES)
def test_every_board_labels_the_coordinates_its_moves_name(browser, tmp_path, game_name, options, seed):
    record, page = open_game(browser, tmp_path, game_name, options, seed)
    board = make_game(game_name, options).board
    rows = {str(r + 1) for r, _ in board.coords}
    columns = {name.rstrip("0123456789") for name in board.names}
    boxes = page.evaluate(BOXES)
    texts = [text for text, _ in boxes["labels"]]
    assert sorted(texts) == sorted(rows | columns)  # each row and column named once
    named = {cell for move in record["moves"] for cell in re.findall(r"[a-z]\d+", move)}
    assert named and all(set(re.match(r"([a-z])(\d+)", cell).groups()) <= set(texts) for cell in named)
    spacing = 40  # a little more than the distance between neighbouring centres
    for text, label in boxes["labels"]:
        cx, cy = (label[0] + label[2]) / 2, (label[1] + label[3]) / 2
        line = [
            (x, y)
            for name, x, y, _ in boxes["cells"]
            if re.fullmatch(r"([a-z])(\d+)", name).group(1 if text.isalpha() else 2) == text
        ]
        assert min(abs(x - cx) + abs(y - cy) for x, y in line) < 1.5 * spacing, f"{text} is far from its cells"
        if text.isdigit():  # a row's number is level with its row
            assert abs(line[0][1] - cy) < 6, text
        assert not any(overlap(label, cell) for *_, cell in boxes["cells"]), f"label {text} covers a cell"
    assert not page.errors
    page.context.close()


@pytest.mark.parametrize("game_name", sorted(REGISTERED_GAMES))
def test_every_game_describes_each_mark_its_games_draw(game_name):
    """The legend's words come from the game: every mark a replay draws, by a move or at
    the end, is one the game's picture describes (with words, once)."""
    options = {"players": 3} if make_game(game_name).players > 2 else {}
    picture = make_game(game_name, options).picture()
    described = [mark.name for mark in picture.marks]
    assert len(set(described)) == len(described) and all(mark.meaning for mark in picture.marks)
    drawn: set[str] = set()
    for seed in range(6):
        players = ["alpha", "beta", "gamma"][: make_game(game_name, options).players]
        frames = [
            f if isinstance(f, dict) else {"last": [f[1]]}
            for f in replay(random_record(game_name, options, seed, players)).frames
        ]
        for frame in frames:  # a cell emptied is "gone" unless the move names it or kept it
            outlined = {*frame.get("last", []), *frame.get("kept", [])}
            drawn |= {key for key in ("last", "kept") if frame.get(key)}
            drawn |= {"gone"} if {i for i, _ in frame.get("gone", [])} - outlined else set()
        drawn |= {mark for mark, cells in frames[-1]["end"]["marks"].items() if cells}
    assert drawn <= set(described), f"{game_name} draws {drawn - set(described)} without describing it"


# Each mark's cells on the board, drawn as the legend's sample: an ending's mark where the
# last move does not outline the cell too.
MARK_CELLS = {"last": ".cell.last", "gone": ".cell.gone:not(.last):not(.kept)", "kept": ".cell.kept"}
STYLE = "n => { const s = getComputedStyle(n); return [s.fill, s.stroke, s.strokeDasharray, s.strokeWidth, s.r, s.filter]; }"
# The marks drawn on the board now: the move's, and each ending's (its classes besides "end").
DRAWN = """selectors => {
  const marks = Object.keys(selectors).filter(mark => document.querySelector("#board " + selectors[mark]));
  for (const n of document.querySelectorAll("#board .cell.end")) {
    marks.push(...Array.from(n.classList).filter(c => c !== "cell" && c !== "end" && !(c in selectors)));
  }
  return marks;
}"""
# One step's look, in one round trip: the marks drawn, and which of the pending marks
# ([mark, its cells' selector]) has a cell drawn as its legend sample is.
STEP = f"""([selectors, pending]) => {{
  const style = {STYLE};
  const same = (a, b) => a.length === b.length && a.every((v, k) => v === b[k]);
  const matched = pending.filter(([mark, cells]) => {{
    const samples = document.querySelectorAll(`#legend li[data-mark='${{mark}}'] .cell`);
    if (samples.length !== 1) throw new Error(`${{samples.length}} legend samples for ${{mark}}`);
    const sample = style(samples[0]);
    return Array.from(document.querySelectorAll("#board " + cells)).some(c => same(style(c), sample));
  }}).map(([mark]) => mark);
  return {{drawn: ({DRAWN})(selectors), matched}};
}}"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "game_name, options, seed, marks",
    [
        ("hex", {}, 3, {"last", "chain"}),
        ("hexgo", {}, 0, {"last", "gone", "territory-black"}),
        ("groups", {}, 5, {"last", "deciding"}),
        ("posies", {"players": 3}, 5, {"last", "kept"}),
        ("bases", {}, 2, {"last", "gone", "occupied"}),
    ],
)
def test_the_legend_explains_the_outlines_the_game_draws(browser, tmp_path, game_name, options, seed, marks):
    """One legend entry per mark drawn in the game, in the game's words, its sample drawn
    as the mark is on the board; no mark is drawn without an entry."""
    record, page = open_game(browser, tmp_path, game_name, options, seed)
    picture = make_game(game_name, options).picture()
    items = page.locator("#legend li").evaluate_all("items => items.map(i => [i.dataset.mark, i.textContent])")
    assert dict(items) == {m.name: m.meaning for m in picture.marks if m.name in marks}
    shot(page, tmp_path, f"legend-{game_name}")
    page.keyboard.press("Home")
    drawn: set[str] = set()
    matched = set()
    for _ in record["moves"]:  # each mark on the board is drawn as its sample, at some ply
        page.keyboard.press("ArrowRight")
        pending = [[mark, MARK_CELLS.get(mark, f".cell.end.{mark}:not(.last):not(.gone)")] for mark in marks - matched]
        step = page.evaluate(STEP, [MARK_CELLS, pending])
        drawn |= set(step["drawn"])
        matched |= set(step["matched"])
    assert matched == marks
    assert drawn - set(picture.static.values()) == marks  # every mark drawn has its entry
    assert not page.errors
    page.context.close()


def shot(page, tmp_path: Path, name: str) -> None:
    """The page's screenshot, in $ARENA_ARTIFACTS when it is set."""
    page.screenshot(path=str(artifacts(tmp_path) / f"{name}.png"), full_page=True)


@pytest.mark.slow
def test_posies_counters_and_groups_counts_read_as_sentences(browser, tmp_path):
    record, page = open_game(browser, tmp_path, "posies", {"players": 3}, 5)
    status = page.text_content("#status")
    for player in record["players"]:
        assert re.search(rf"{player} took posies: pink \d+, purple \d+, green \d+ \(score \d+\)", status), status
    page.context.close()
    record, page = open_game(browser, tmp_path / "groups", "groups", {}, 5)
    page.keyboard.press("Home")
    texts = []
    for _ in record["moves"]:
        page.keyboard.press("ArrowRight")
        texts.append(page.text_content("#status"))
    assert "alpha (White): 1 group; beta (Black): 0 groups" == texts[0]  # after the first stone
    assert not any(re.search(r"\b1 groups", text) for text in texts)
    page.context.close()


# The element drawn at each side's middle of the move's cells: the cell itself when its
# outline is on top of its neighbours'.
ON_TOP = """() => {
  const m = document.getElementById("board").getScreenCTM();
  const misses = [];
  for (const cell of document.querySelectorAll("#board .cell.last")) {
    const p = cell.points;
    for (let k = 0; k < p.length; k++) {
      const a = p[k], b = p[(k + 1) % p.length];
      const x = (a.x + b.x) / 2, y = (a.y + b.y) / 2;
      const hit = document.elementFromPoint(m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f);
      if (hit !== cell) misses.push([cell.dataset.cell, k, hit && hit.dataset.cell]);
    }
  }
  return misses;
}"""


@pytest.mark.slow
def test_the_last_moves_outline_is_drawn_over_its_neighbours(browser, tmp_path):
    record, page = open_game(browser, tmp_path, "groups", {}, 5)
    page.keyboard.press("Home")
    for ply in range(1, len(record["moves"]) + 1):
        page.keyboard.press("ArrowRight")
        assert page.locator("#board .cell.last").count() >= 1
        assert page.evaluate(ON_TOP) == [], ply
    assert not page.errors
    page.context.close()


@pytest.mark.slow
@pytest.mark.parametrize("width, height", SIZES)
def test_the_moves_heading_is_whole_after_stepping(browser, tmp_path, width, height):
    record, page = open_game(browser, tmp_path, "hex", {}, 3, (width, height))
    page.keyboard.press("Home")
    page.keyboard.press("End")
    heading = page.evaluate(
        """() => { const h = document.getElementById("moves-heading"), r = h.getBoundingClientRect();
        return {text: h.textContent, top: r.top, bottom: r.bottom,
                drawn: document.elementFromPoint(r.left + 2, r.top + 1) === h}; }"""
    )
    assert heading["text"] == "Moves" and heading["drawn"], heading
    page.context.close()


@pytest.mark.slow
def test_wide_tables_scroll_in_their_own_box(browser, tmp_path):
    names = [f"engine-with-a-long-name-{k}" for k in range(4)]
    records = [random_record("hex", {"size": 3}, seed, [names[seed % 4], names[(seed + 1) % 4]]) for seed in range(8)]
    site = site_of(tmp_path, records, names)
    page = new_page(browser, (390, 844))
    boxed = 0
    for name in ("index", "crosstable", "engines", "games", "settings"):
        page.goto((site / f"{name}.html").as_uri())
        widths = page.evaluate(
            """() => ({page: document.documentElement.scrollWidth, window: innerWidth,
            boxes: Array.from(document.querySelectorAll("main table")).map(t => {
              const box = t.closest(".wide, #moves-box");
              return box ? [t.offsetWidth, box.clientWidth, getComputedStyle(box).overflowX] : [t.offsetWidth, 0, "none"];
            })})"""
        )
        assert widths["page"] <= widths["window"], (name, widths)  # the page is never wider than the window
        for table, box, overflow in widths["boxes"]:
            assert table <= box or overflow == "auto", (name, widths)
            boxed += table > box
    assert boxed >= 3, "the test needs tables wider than a phone's window"
    assert not page.errors
    page.context.close()
