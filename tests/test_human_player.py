"""The person's seat (arena/serve/human.py) and a person's game (arena/serve/table.py),
without a browser: the real match, a real engine process, a real results folder."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner
from starlette.requests import Request

from arena.cli import main
from arena.engine.player import EngineSpec
from arena.match import TimeControl, play_game
from arena.results.admit import read_counted
from arena.results.store import GameStore
from arena.rules import make_game
from arena.serve.human import HumanPlayer
from arena.serve.play import game_form, same_origin
from arena.serve.roster import BUNDLED, Offered, roster
from arena.serve.table import Seating, Table, attempted
from arena.tournament.config import ConfigError


def test_a_person_who_does_not_move_loses_on_the_matchs_clock():
    game = make_game("hex", {"size": 2})
    idle, other = HumanPlayer("ada"), HumanPlayer("bea")
    other.moves.put("a1")
    result = play_game(game, [other, idle], seed=1, time_control=TimeControl(movetime_ms=200, margin_ms=50), names=None)
    record = result.record
    assert (record.termination, record.forfeit_seat, record.winner) == ("timeout", 1, 0)
    assert record.reason == "ada (seat 1): no move within 0.25 s" and record.moves == ["a1"]


def test_a_resignation_is_a_resigned_game():
    game = make_game("hex", {"size": 2})
    first, second = HumanPlayer("ada"), HumanPlayer("bea")
    first.moves.put(None)
    record = play_game(game, [first, second], seed=1, time_control=TimeControl(movetime_ms=1000)).record
    assert (record.termination, record.winner, record.moves) == ("resign", 1, [])


def wait_for(check, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return found


def turn_or_end(table: Table, after: int) -> dict | None:
    """The table's view once past version ``after`` and it is the person's turn or the end."""
    view = table.view()
    return view if view["version"] > after and (view["legal"] or view.get("result")) else None


@pytest.mark.slow  # an engine process started and a game played: a second or two
def test_a_persons_game_against_a_real_engine_is_a_folder_the_results_count(tmp_path):
    random_engine = Offered(BUNDLED[0], "bundled engines", tmp_path).spec()
    seating = Seating(make_game("hex", {"size": 2, "swap": False}), (None, random_engine), "ada", TimeControl(5000), 7)
    table = Table(seating, tmp_path / "game")
    table.start()
    view = wait_for(lambda: turn_or_end(table, -1))
    assert view["to_move"] == 0 and view["players"] == ["ada", "random"] and view["private"] == []
    assert table.offer("z9").startswith("not a cell of the 2x2 board")  # the referee's words
    assert table.offer("a1") is None
    assert table.offer("b1") == "your move is on its way"
    while (view := wait_for(lambda: turn_or_end(table, view["version"]))).get("result") is None:
        assert table.offer(view["legal"][0][0]) is None
    table.join(10)
    counted = read_counted(tmp_path / "game")
    assert [r.players for r in counted.counted] == [["ada", "random"]] and counted.refused == []
    assert counted.counted[0].moves[0] == "a1" and view["result"].startswith(("ada wins", "random wins"))
    assert counted.settings["engines"][0] == {"name": "ada", "person": True}
    # The report and the SGF export read the folder as a tournament's.
    folder = tmp_path / "game"
    report = CliRunner().invoke(main, ["report", str(folder)])
    assert report.exit_code == 0, report.output
    assert "ada" in (folder / "report" / "games" / "0.html").read_text()
    exported = CliRunner().invoke(main, ["export", "sgf", str(folder), "-o", str(tmp_path / "game.sgf")])
    assert exported.exit_code == 0 and "PB[ada]" in (tmp_path / "game.sgf").read_text()


def test_clicks_become_the_token_a_legal_move_of_as_many_cells_writes():
    bases = make_game("bases", {}).picture()
    assert attempted(["d7", "e5"], ["d7-g7", "c8-a8"], bases) == "d7-e5"
    assert attempted(["e5"], ["d7-g7"], bases) is None
    groups = make_game("groups", {"size": 3}).picture()
    assert attempted(["a3", "b3"], ["c1", "c1,d2"], groups) == "a3,b3"


def test_the_form_asks_the_game_for_its_options():
    posies = {o["name"]: o for o in game_form("posies")["options"]}
    assert posies["players"]["kind"] == "choice" and posies["players"]["choices"] == [2, 3]
    assert posies["variant"]["choices"] == [0, 1, 2] and "hidden" in posies["variant"]["meaning"]
    hex_ = {o["name"]: o for o in game_form("hex")["options"]}
    assert hex_["swap"] == {"name": "swap", "default": True, "meaning": hex_["swap"]["meaning"], "kind": "switch"}
    assert (hex_["size"]["kind"], hex_["size"]["min"], hex_["size"]["max"], hex_["size"]["default"]) == (
        "number",
        2,
        26,
        11,
    )


def test_the_engines_offered_are_the_bundled_and_the_listed_ones(tmp_path):
    listed = tmp_path / "engines.toml"
    listed.write_text('[[engines]]\nname = "mine"\ncommand = ["{python}", "-m", "engines.random_engine"]\n')
    offered = roster(listed, (), tmp_path)
    assert list(offered) == ["random", "search-easy", "search-medium", "search-hard", "mine"]
    spec = offered["mine"].spec()
    assert isinstance(spec, EngineSpec) and spec.command[1:] == ("-m", "engines.random_engine")


def test_a_results_folders_engines_are_offered_but_not_its_people(tmp_path):
    folder = tmp_path / "old-run"
    engine = {"name": "veteran", "command": ["{python}", "-m", "engines.random_engine"], "protocol": "arena"}
    with GameStore(folder) as store:
        store.open({"name": "old-run", "game": "hex", "engines": [engine, {"name": "ada", "person": True}]})
    offered = roster(None, (folder,), tmp_path)
    assert "veteran" in offered and "ada" not in offered
    assert offered["veteran"].spec().command[1:] == ("-m", "engines.random_engine")
    with pytest.raises(ConfigError, match="no arena.db here"):
        roster(None, (tmp_path / "nothing",), tmp_path)


def test_an_engine_that_cannot_start_is_refused_in_a_line_naming_it(tmp_path):
    listed = tmp_path / "engines.toml"
    listed.write_text('[[engines]]\nname = "gone"\ncommand = ["./no-such-engine"]\n')
    with pytest.raises(ConfigError) as err:
        roster(listed, (), tmp_path)["gone"].spec()
    assert str(err.value).startswith(f"{listed}: engine 'gone': ") and "no-such-engine" in str(err.value)


def request(headers: dict[str, str]) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    scope = {"type": "http", "method": "POST", "scheme": "http", "server": ("127.0.0.1", 8123), "path": "/play/new"}
    return Request({**scope, "headers": [(b"host", b"127.0.0.1:8123"), *raw], "query_string": b""})


@pytest.mark.parametrize(
    "headers, allowed",
    [
        ({"Origin": "http://127.0.0.1:8123", "Sec-Fetch-Site": "same-origin"}, True),
        ({}, True),  # a program, not a page
        ({"Origin": "http://evil.example"}, False),
        ({"Origin": "http://127.0.0.1:8124"}, False),
        ({"Sec-Fetch-Site": "cross-site"}, False),
        ({"Origin": "null"}, False),
    ],
)
def test_only_this_servers_pages_may_change_anything(headers, allowed):
    assert same_origin(request(headers)) is allowed
