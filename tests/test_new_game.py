"""A game arena does not know (tests/games/line.py) joins through the registry alone and is
played end to end: a tournament with the bundled random engine, verify, results, the report
site drawn in Chromium, and check-engine; nothing outside the test suite names it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, engine_toml, game_address, run_arena, write_tournament

import arena.rules
from arena.rules import GAMES_VARIABLE, OptionError, make_game, register_game

pytestmark = pytest.mark.timeout(240)  # a real tournament run, then a browser
RANDOM = ("{python}", "-m", "engines.random_engine")
# The page's code for each cell value of the line game's rules, written out here on purpose.
EXPECTED = {-1: "", 0: "red", 1: "blue"}


@pytest.fixture
def line_game(monkeypatch):
    """The line game registered here, and through the environment in every process the CLI
    starts (PYTHONPATH: so that they import it from this checkout's tests/games)."""
    monkeypatch.setenv(GAMES_VARIABLE, os.environ.get(GAMES_VARIABLE, ""))  # restored afterwards
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    register_game("line", "tests.games.line:LineGame")
    yield dict(os.environ)
    arena.rules.GAMES.pop("line")


@pytest.mark.slow
def test_a_registered_game_is_played_verified_reported_drawn_and_checked(line_game, tmp_path, browser):
    engines = engine_toml("random-a", *RANDOM) + engine_toml("random-b", *RANDOM)
    path = write_tournament(tmp_path, engines, game="line", options="size = 4", rounds=2, workers=2)
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out, "--quiet", env=line_game)
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["game"] for r in records} == {"line"}
    assert all(r["termination"] == "normal" for r in records)

    verify = run_arena("verify", out / "games.jsonl", env=line_game)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert all(json.loads(line)["ok"] for line in verify.stdout.splitlines())

    results = run_arena("results", out, env=line_game)
    assert results.returncode == 0, results.stderr
    assert "random-a" in results.stdout and "score % as red" in results.stdout

    report = run_arena("report", out, env=line_game)
    assert report.returncode == 0, report.stderr
    _step_through_in_chromium(browser, out / "report", next(r for r in records if r["winner"] is not None))

    check = run_arena("check-engine", "--game", "line", sys.executable, "-m", "engines.random_engine", env=line_game)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "PASS  line: one cell left (c3)" in check.stdout
    assert "FAIL" not in check.stdout and "SKIP" not in check.stdout


def _step_through_in_chromium(browser, site: Path, record: dict) -> None:
    """Every ply of the game's viewer page shows the referee's cells; the last lights the line."""
    game = make_game(record["game"], record["options"])
    state = game.initial_state(record["seed"])
    positions = [state.clone()]
    for move in record["moves"]:
        state.play(move)
        positions.append(state.clone())
    names = game.board.names
    page = browser.new_page()  # in the Chromium the browser tests share (tests/conftest.py)
    try:
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(game_address(site, record["id"]))
        page.wait_for_selector("#board [data-cell]")
        assert page.locator("#board [data-cell]").count() == len(names)
        page.click("#first")
        for ply, position in enumerate(positions):
            if ply:
                page.keyboard.press("ArrowRight")
            assert page.input_value("#ply") == str(ply)
            shown = page.evaluate(
                "() => Object.fromEntries(Array.from(document.querySelectorAll('#board [data-cell]'))"
                ".map(n => [n.dataset.cell, n.dataset.state]))"
            )
            assert shown == {names[i]: EXPECTED[v] for i, v in enumerate(position.cells)}, f"ply {ply}"
        lit = page.evaluate("() => Array.from(document.querySelectorAll('#board .chain')).map(n => n.dataset.cell)")
        assert lit and sorted(lit) == sorted(state.details()["line"])
        # its legend is the game's own words, and the stylesheet outlines a mark it never named
        legend = page.evaluate("() => Array.from(document.querySelectorAll('#legend li')).map(i => i.textContent)")
        assert legend == ["the move shown", "the winning line"]
        assert page.locator("#board .cell.end.chain").first.evaluate("n => getComputedStyle(n).strokeWidth") == "4px"
        assert errors == []
    finally:
        page.close()


def test_a_registered_game_replaces_its_own_entry_in_the_environment_and_keeps_the_others(monkeypatch):
    """ARENA_GAMES is how every process started later knows the game: registering adds one
    entry (with none before it), replaces an older entry of the same name, and keeps the
    others; a process started from here plays the game."""
    monkeypatch.setenv(GAMES_VARIABLE, "")  # so that the teardown removes what registering sets
    monkeypatch.delenv(GAMES_VARIABLE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    try:
        register_game("line", "tests.games.line:LineGame")
        assert os.environ[GAMES_VARIABLE] == "line=tests.games.line:LineGame"
        os.environ[GAMES_VARIABLE] = "other=tests.games.other:Other,line=tests.games.old:Line,third=x.y:Z"
        register_game("line", "tests.games.line:LineGame")
        entries = "other=tests.games.other:Other,third=x.y:Z,line=tests.games.line:LineGame"
        assert os.environ[GAMES_VARIABLE] == entries
        os.environ[GAMES_VARIABLE] = "line=tests.games.line:LineGame, again = tests.games.line:LineGame"
        started = subprocess.run(
            [
                sys.executable,
                "-c",
                "from arena.rules import make_game as g; print(g('line').players, g('again').players)",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (started.returncode, started.stdout) == (0, "2 2\n"), started.stderr
    finally:
        arena.rules.GAMES.pop("line", None)


def test_the_games_named_in_the_environment_are_known_when_arena_starts(monkeypatch):
    """A process reads ARENA_GAMES when arena.rules loads: comma-separated ``name=module:Class``
    entries, spaces around them and empty entries ignored."""
    monkeypatch.setenv(GAMES_VARIABLE, " line = tests.games.line:LineGame ,, again=tests.games.line:LineGame,")
    try:
        arena.rules._from_environment()  # what loading the module does
        assert (arena.rules.GAMES["line"], arena.rules.GAMES["again"]) == ("tests.games.line:LineGame",) * 2
        assert make_game("again").players == 2
    finally:
        arena.rules.GAMES.pop("line", None)
        arena.rules.GAMES.pop("again", None)
    monkeypatch.delenv(GAMES_VARIABLE)
    known = dict(arena.rules.GAMES)
    arena.rules._from_environment()  # no variable: the bundled games only
    assert arena.rules.GAMES == known


@pytest.mark.parametrize(
    "name, target",
    [("line", "tests.games.line:"), ("line", ":LineGame"), ("line", "tests.games.line"), ("", "m:C"), ("2d", "m:C")],
)
def test_a_registration_without_a_name_module_and_class_is_refused(name, target, monkeypatch):
    monkeypatch.delenv(GAMES_VARIABLE, raising=False)
    with pytest.raises(OptionError) as err:
        register_game(name, target)
    assert str(err.value) == f"cannot register game {name!r} as {target!r}: expected a name and 'module:Class'"
    assert name not in arena.rules.GAMES and GAMES_VARIABLE not in os.environ


def test_a_game_name_taken_by_another_class_is_refused():
    with pytest.raises(OptionError) as err:
        register_game("hex", "tests.games.line:LineGame")
    assert str(err.value) == "game 'hex' is already 'arena.rules.hex:HexGame'"


BUILT_IN = "hex|groups|bases|hexgo|posies"
# A game's name compared, looked up or used as a key: what this file's game never needs.
SWITCH = re.compile(
    rf'(==|!=|\bin)\s*[(\[{{]?\s*"({BUILT_IN})"|"({BUILT_IN})"\s*:|game(\.name|_name)?\s*(==|!=|in\b)\s*[(\["]'
)


def test_no_module_outside_the_rules_switches_on_a_games_name():
    """Everything outside the rules asks the game (the benchmarks, outside arena/, play fixed games on purpose)."""
    files = [
        path for path in sorted((ROOT / "arena").rglob("*.py")) if not path.is_relative_to(ROOT / "arena" / "rules")
    ]
    switches = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if SWITCH.search(line)
    ]
    assert switches == []
    # The modules that once knew a game (GTP, SGF, the ladder) are among those read.
    read = {path.relative_to(ROOT).as_posix() for path in files}
    assert {"arena/engine/gtp.py", "arena/results/sgf.py", "arena/ladder.py"} <= read


# In the site's templates, scripts and stylesheets: a game's name quoted or as a class
# (".board.bases"), or the record's game written into a class attribute.
WEB_SWITCH = re.compile(rf"""([\"'.])({BUILT_IN})\b|class="[^"]*{{{{[^}}]*game""")


def test_no_template_script_or_stylesheet_of_the_site_knows_a_game():
    """The stylesheet draws what the board picture names (its kinds, codes and marks), never a game."""
    site, serve = ROOT / "arena" / "results" / "site", ROOT / "arena" / "serve"  # the report, the play pages
    files = sorted(
        path
        for folder in (site, serve)
        for path in [*folder.glob("templates/*.html"), *folder.glob("static/*.js"), *folder.glob("static/*.css")]
    )
    assert {"game.html", "viewer.js", "site.css", "play.js", "setup.js", "play_game.html"} <= {p.name for p in files}
    switches = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if WEB_SWITCH.search(line)
    ]
    assert switches == []


def test_the_web_check_finds_a_game_named_by_the_site():
    named = [".board.bases .cell { fill: red; }", 'if (game === "posies") {', '<svg class="board {{ record.game }}">']
    assert all(WEB_SWITCH.search(line) for line in named)
    assert not any(WEB_SWITCH.search(line) for line in [".board.points .cell {", "svg.classList.add(board.kind);"])


@pytest.mark.parametrize("name", ["hex", "hexgo", "groups", "bases", "posies"])
def test_every_games_picture_draws_its_own_board_labels_every_row_and_explains_each_mark(name):
    game = make_game(name, {})
    picture = game.picture()
    assert picture.board is game.board
    rows = {r for r, _ in game.board.coords}
    assert {label.text for label in picture.labels if label.where == "left"} == {str(r + 1) for r in rows}
    assert len({label.text for label in picture.labels if label.where != "left"}) == len(
        {c for _, c in game.board.coords}
    )
    assert picture.marks[0].name == "last"
    assert all(isinstance(mark.meaning, str) and mark.meaning for mark in picture.marks)


@pytest.mark.parametrize(
    "name, move, cells",
    [
        ("hex", "e4", ["e4"]),
        ("hex", "swap", []),
        ("groups", "c3,e5,g2", ["c3", "e5", "g2"]),
        ("bases", "c8-c6", ["c8", "c6"]),
        ("posies", "d1-e1/f1", ["d1", "e1"]),  # the kept group's cell after the slash is not the move's
    ],
)
def test_the_viewer_marks_the_cells_a_move_token_names(name, move, cells):
    game = make_game(name, {})
    assert [game.board.names[c] for c in game.picture().move_cells(move)] == cells


def test_games_without_fixed_colours_or_a_status_line_show_none():
    assert make_game("posies", {"players": 3}).initial_state().seat_colours() == ["", "", ""]
    assert make_game("hex", {}).initial_state().seat_colours() == ["red", "blue"]
    assert make_game("hex", {}).initial_state().status(["a", "b"]) == ""


SHOWN = {
    "hex": (
        [
            "after a swap (b3 swap ... : b3 is the only free cell, Blue to move)",
            "swap off (swap=false, b3, Blue to move: 'swap' is not a move)",
        ],
        {"last": "the move shown", "chain": "the winning chain, joining the winner's two edges"},
    ),
    "groups": (
        ["a multi-stone turn"],
        {
            "last": "the move shown (its stones)",
            "deciding": "the winner's group that decided the game (its largest, unless the largest tie)",
        },
    ),
    "bases": (
        ["a base one piece from full"],
        {
            "last": "the move shown: where the piece slid to",
            "gone": "dotted: where it slid from",
            "occupied": "the base the winner filled",
        },
    ),
    "posies": (
        ["three seats, hidden colour ('private' line), seat 2 to move"],
        {"last": "the move shown: the pair it removed", "kept": "fine dots: the group the mover kept (a split)"},
    ),
    "hexgo": (
        ["after captures"],
        {
            "last": "the move shown",
            "gone": "dotted: a stone the move shown captured",
            "territory-black": "small dot: Black's territory (an empty house it dominates)",
            "territory-white": "small dot: White's territory (an empty house it dominates)",
        },
    ),
}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_each_games_check_engine_labels_and_legend_read_as_written(name):
    """The words `arena check-engine` prints for each position and the viewer's legend shows
    for each mark (nothing is built: a position's label is read, not the position)."""
    game = make_game(name, {})
    labels, meanings = SHOWN[name]
    assert [position.label for position in game.check_positions(lambda g, seed: g.initial_state(seed))] == labels
    assert {mark.name: mark.meaning for mark in game.picture().marks} == meanings
