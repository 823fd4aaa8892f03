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


def test_a_hexgo_capture_is_a_long_frame_of_the_changed_cells_the_stone_and_what_was_taken_each_with_its_status():
    # Houses of the size-2 board, by index: b1 c1 / a2 b2 c2 / a3 b3.  White's a3 takes Black's
    # a2 (the rules remove it: see the board below); the stones before it only fill a house.
    players = ["ann", "bob"]
    moves = ["b3", "b2", "c2", "b1", "a2", "a3"]
    game = make_game("hexgo", {"size": 2})
    state = game.initial_state(None)
    status = []
    for move in moves:
        state.play(move)
        status.append(state.status(players))
    assert list(state.cells) == [1, -1, -1, 1, 0, 1, 0]  # b1 W, c1 empty, a2 taken, b2 W, c2 B, a3 W, b3 B
    live = Replay("hexgo", game.options.model_dump(), players, None)
    live.start(None, None)
    assert live.frames_of(moves) == [
        [0, 6, "black", status[0]],
        [1, 3, "white", status[1]],
        [0, 4, "black", status[2]],
        [1, 0, "white", status[3]],
        [0, 2, "black", status[4]],
        {"seat": 1, "set": [[2, ""], [5, "white"]], "last": [5], "gone": [[2, "black"]], "status": status[5]},
    ]
    assert all(status)  # HexGo tells each ply's territory


def test_a_hexgo_swap_changes_no_house_and_its_frame_tells_the_seats_new_colours():
    players = ["ann", "bob"]
    live = Replay("hexgo", make_game("hexgo", {"size": 2}).options.model_dump(), players, None)
    live.start(None, None)
    assert live.frames_of(["b1", "swap"]) == [
        [0, 0, "black", "ann (Black): territory 7; bob (White): territory 0"],
        {"seat": 1, "set": [], "status": "ann (White): territory 0; bob (Black): territory 7"},
    ]


def test_a_placement_is_one_piece_put_on_the_one_cell_named_and_the_board_before_is_left_as_it_was():
    from arena.results.site.boards import _placement

    code = {0: "", 1: "black", 2: "white"}
    before = [1, 0, 0]
    assert _placement(1, before, [1, 0, 2], [2], code) == [1, 2, "white"]
    assert _placement(1, before, [0, 0, 2], [2], code) is None  # the stone took the black piece too
    assert _placement(1, before, [1, 0, 0], [0], code) is None  # nothing changed on the named cell
    assert _placement(1, before, [0, 0, 0], [0], code) is None  # the named cell emptied: a removal
    assert _placement(1, before, [1, 2, 2], [1, 2], code) is None  # two cells named
    assert before == [1, 0, 0]


def test_a_boards_move_tokens_are_looked_up_once_however_many_games_play_them(monkeypatch):
    import json

    from arena.results.site import boards
    from arena.rules.picture import BoardPicture

    looked_up: list[str] = []
    move_cells = BoardPicture.move_cells
    monkeypatch.setattr(BoardPicture, "move_cells", lambda self, move: looked_up.append(move) or move_cells(self, move))
    boards._rules.cache_clear()
    options = make_game("hexgo", {"size": 2}).options.model_dump()
    for _ in range(2):
        live = Replay("hexgo", options, PLAYERS[:2], None)
        live.start(None, None)
        live.frames_of(["b3", "b2", "c2"])
    assert looked_up == ["b3", "b2", "c2"]
    assert boards._rules("hexgo", json.dumps(options, sort_keys=True)).named_cells == {"b3": [6], "b2": [3], "c2": [4]}
