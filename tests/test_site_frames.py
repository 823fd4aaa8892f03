"""The viewer's frames a game gives as it plays (``State.play_placements``) are the frames a
replay compared cell by cell finds, for every game: random games from fixed seeds, Hex's
swap among them, and a record the rules refuse still refused."""

from __future__ import annotations

import pytest
from helpers import random_record

from arena.record import GameRecord
from arena.results.site.boards import Replay, replay
from arena.results.site.pages import move_data
from arena.rules import GAMES, IllegalMove, make_game

PLAYERS = ["alpha", "beta", "gamma"]


def options_of(game_name: str) -> dict:
    return {"players": 3} if make_game(game_name).players > 2 else {}


def started(record: dict) -> Replay:
    game = Replay(record["game"], record["options"], record["players"], record.get("seed"))
    game.start(record.get("setup"), record.get("deal"), record.get("opening_setup"))
    return game


def compared(record: dict) -> tuple[list, list[int], object]:
    """The frames, last board and ending of a replay that compares every ply's board."""
    game = started(record)
    frames = game._compared(record["moves"])
    return frames, list(game.state.cells), game.ending()


def given(record: dict) -> tuple[list, list[int], object]:
    """The same, as the site replays: the game giving what it can."""
    game = started(record)
    frames = game.frames_of(record["moves"])
    return frames, list(game.state.cells), game.ending()


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_the_frames_a_game_gives_are_those_a_compared_replay_finds(game_name):
    options = options_of(game_name)
    players = PLAYERS[: make_game(game_name, options).players]
    for seed in range(8):
        record = random_record(game_name, options, seed, players)
        assert given(record) == compared(record), (game_name, seed)


@pytest.mark.parametrize("size", [2, 5, 7, 11])
def test_hex_frames_with_and_without_the_swap_equal_a_compared_replay(size):
    for seed in range(6):
        for first in [(), ("a1", "swap"), ("b2", "swap")][: 3 if size > 2 else 2]:
            for swap in (True, False):
                if first and not swap:
                    continue
                record = random_record("hex", {"size": size, "swap": swap}, seed, PLAYERS[:2], first)
                frames, cells, ending = given(record)
                assert (frames, cells, ending) == compared(record), (size, seed, first)
                if first:  # the swap's frame is the long one: the stone moved to its mirror
                    assert isinstance(frames[1], dict) and frames[1]["seat"] == 1


def test_the_whole_replay_of_hex_gives_short_frames_and_its_chain_at_the_end():
    record = random_record("hex", {"size": 7}, 3, PLAYERS[:2])
    frames = replay(record).frames
    assert all(isinstance(f, list) and len(f) == 3 for f in frames[1:-1])
    _, cells, _ = given(record)
    chain = frames[-1]["end"]["marks"]["chain"]
    assert chain and {cells[cell] for cell in chain} == {record["winner"]}


@pytest.mark.parametrize(
    "moves, why",
    [
        (["a1", "b2", "a1"], "already occupied"),  # a stone on a stone
        (["a1", "b2", "z9"], "not a cell"),
        (["a1", "b2", "swap"], "swap"),  # the swap after its ply
    ],
)
def test_a_hex_record_the_rules_refuse_is_refused_by_the_replay_that_gives_frames(moves, why):
    record = random_record("hex", {"size": 5}, 1, PLAYERS[:2])
    record = {**record.model_dump(), "moves": moves}
    with pytest.raises(IllegalMove, match=why):
        given(record)


def test_a_hex_stone_after_the_game_is_over_is_refused():
    record = random_record("hex", {"size": 5}, 2, PLAYERS[:2])
    free = next(name for name in make_game("hex", {"size": 5}).board.names if name not in record["moves"])
    record = {**record.model_dump(), "moves": [*record["moves"], free]}
    with pytest.raises(IllegalMove, match="over"):
        given(record)


def test_a_live_game_given_a_move_at_a_time_has_the_frames_of_the_whole_replay():
    record = random_record("hex", {"size": 7}, 4, PLAYERS[:2], ("c3", "swap"))
    live = started(record)
    frames = [live.play(move) for move in record["moves"]]
    assert frames == compared(record)[0]


def hex_forfeit(moves: list[str], times_ms: list[int], move_info: list) -> GameRecord:
    """A game of Hex on the 2x2 board whose first ply was the book's and whose last engine move
    was illegal: that move is not among the moves, but its time and info are recorded (as the
    match records a forfeit)."""
    return GameRecord.model_validate(
        {
            "game": "hex",
            "options": {"size": 2, "swap": False},
            "players": ["alpha", "beta"],
            "moves": moves,
            "times_ms": times_ms,
            "move_info": move_info,
            "opening_plies": 1,
            "termination": "illegal",
        }
    )


def test_a_viewer_pages_move_rows_show_the_timed_moves_infos_but_not_the_rejected_moves():
    """After the book's a1, beta's b1 took 40 ms and alpha's rejected move 70 ms: the rows show
    b1's info only; the times are the record's, both; the clock starts at its base and, with no
    increment set, adds nothing."""
    record = hex_forfeit(["a1", "b1"], [40, 70], [{"depth": 2, "score": 5}, {"depth": 9}])
    assert move_data(record, {"base_ms": 60000}) == {
        "moves": ["a1", "b1"],
        "times": [40, 70],
        "opening": 1,
        "clock": [60000, 0],
        "infos": ["depth 2, score 5"],
    }
    assert move_data(record, {"base_ms": 5000, "inc_ms": 0})["clock"] == [5000, 0]


def test_a_game_whose_first_timed_move_was_rejected_shows_no_infos():
    """Only the book's a1 was played; beta's move after it was refused, so no row shows its
    info, and a game without a time control has no clock."""
    record = hex_forfeit(["a1"], [70], [{"depth": 9, "nodes": 100}])
    assert move_data(record, None) == {"moves": ["a1"], "times": [70], "opening": 1, "clock": None, "infos": []}
