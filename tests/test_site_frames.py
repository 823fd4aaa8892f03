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


# -- the board geometry the viewer draws (boards.board_geometry), worked out by hand ---------
#
# A hexagon's circumradius is R = 20 units, so neighbouring centres are W = 20 * sqrt(3) =
# 34.641 apart and rows 1.5 * R = 30 apart; cell (row r, column c) is at x = (c + r / 2) * W,
# y = 30 * r, shifted so the leftmost centre is W / 2 + 34 (the margin) from the left and the
# top row R + 34 = 54 from the top.  A pointy-top hexagon's corners, from the top clockwise,
# are R * (0, -1), (W / 2, -R / 2), (W / 2, R / 2), (0, R), (-W / 2, R / 2), (-W / 2, -R / 2)
# from its centre, i.e. (0, -20), (17.32, -10), (17.32, 10), (0, 20), (-17.32, 10), (-17.32, -10).


def hexagon(x: float, y: float) -> str:
    """The outline the viewer draws around the centre (x, y): its six corners, from the top
    clockwise, two decimals each (x and y given to more places than the corners keep)."""
    corners = [(0, -20), (17.3205, -10), (17.3205, 10), (0, 20), (-17.3205, 10), (-17.3205, -10)]
    return " ".join(f"{x + dx:.2f},{y + dy:.2f}" for dx, dy in corners)


def test_the_2x2_hex_board_is_drawn_with_its_hexagons_coloured_sides_and_hexgui_labels():
    """Hex's 2x2 rhombus: a1 at the margin, (W / 2 + 34, 54) = (51.32, 54); b1 one W right,
    (85.96, 54); a2 half a W right of a1 and a row down, (68.64, 84); b2 (103.28, 84).  The
    picture is W / 2 + 34 right of the rightmost centre, 103.28 + 17.32 + 34 = 154.60, and R + 34
    below the bottom row, 84 + 54 = 138.  Red owns the sides facing off the top and bottom
    rows, Blue those off the left and right columns, each side k from corner k to k + 1: a1's
    top-right side (k 0) runs from its top corner (51.32, 34) to its upper right one
    (68.64, 44), and a1's lower left side (k 3) from its bottom corner (51.32, 74) to its lower
    left (34, 64).  Column letters stand 1.45 R = 29 above the top row's centres (y 25), row
    numbers 1.25 W = 43.30 left of the row's first centre, their baseline 4 below it: row 1's at
    (51.32 - 43.30, 58) = (8.02, 58), row 2's at (68.64 - 43.30, 88) = (25.34, 88)."""
    from arena.results.site.boards import board_geometry

    a1, b1, a2, b2 = (51.3205, 54.0), (85.9615, 54.0), (68.641, 84.0), (103.282, 84.0)
    red, blue = "red", "blue"
    expected = {
        "game": "hex",
        "kind": "cells",
        "width": 154.6,
        "height": 138.0,
        "radius": 20.0,
        "cells": [
            {"name": "a1", "x": 51.32, "y": 54.0, "outline": hexagon(*a1)},
            {"name": "b1", "x": 85.96, "y": 54.0, "outline": hexagon(*b1)},
            {"name": "a2", "x": 68.64, "y": 84.0, "outline": hexagon(*a2)},
            {"name": "b2", "x": 103.28, "y": 84.0, "outline": hexagon(*b2)},
        ],
        "streets": [],
        "edges": [
            # a1: top-right and top-left sides Red (off the top row), the two left sides Blue
            [51.32, 34.0, 68.64, 44.0, red],
            [51.32, 74.0, 34.0, 64.0, blue],
            [34.0, 64.0, 34.0, 44.0, blue],
            [34.0, 44.0, 51.32, 34.0, red],
            # b1: both top sides Red, its right side Blue
            [85.96, 34.0, 103.28, 44.0, red],
            [103.28, 44.0, 103.28, 64.0, blue],
            [68.64, 44.0, 85.96, 34.0, red],
            # a2: both bottom sides Red, its left side Blue
            [85.96, 94.0, 68.64, 104.0, red],
            [68.64, 104.0, 51.32, 94.0, red],
            [51.32, 94.0, 51.32, 74.0, blue],
            # b2: its upper right and right sides Blue, both bottom sides Red
            [103.28, 64.0, 120.6, 74.0, blue],
            [120.6, 74.0, 120.6, 94.0, blue],
            [120.6, 94.0, 103.28, 104.0, red],
            [103.28, 104.0, 85.96, 94.0, red],
        ],
        "labels": [[51.32, 25.0, "a"], [85.96, 25.0, "b"], [8.02, 58.0, "1"], [25.34, 88.0, "2"]],
        "static": {},
        "marks": [["last", "the move shown"], ["chain", "the winning chain, joining the winner's two edges"]],
    }
    assert hexagon(*a1) == "51.32,34.00 68.64,44.00 68.64,64.00 51.32,74.00 34.00,64.00 34.00,44.00"
    geometry = board_geometry(make_game("hex", {"size": 2}))
    assert geometry == expected


def test_a_board_of_points_is_drawn_with_streets_its_stones_radius_and_labels_past_each_column():
    """HexGo's smallest board, a hexagon of 2 houses a side (rows b1 c1 / a2 b2 c2 / a3 b3):
    its leftmost point a2 is at the margin, (W / 2 + 34, 84) = (51.32, 84); b1 and a3 half a W
    right of it, (68.64, 54) and (68.64, 114); b2 (85.96, 84); c1 and b3 (103.28, 54 and 114);
    c2 (120.60, 84).  Points have no outline; a stone's radius is 0.42 W = 14.55; the picture is
    120.60 + 17.32 + 34 = 171.92 wide and 114 + 54 = 168 high.  Twelve streets join the
    neighbours (the six spokes from b2 and the rim), each once, from the lower index.  Each
    row's number is 1.25 W left of its first point, 4 below it; each column's letter stands
    where its next point down would be (half a W right, a row down), 4 below: column a ends at
    a3 (68.64, 114), so "a" is at (85.96, 114 + 30 + 4 = 148); column c ends at c2, so "c" is at
    (137.92, 118)."""
    from arena.results.site.boards import board_geometry

    b1, c1, a2, b2, c2, a3, b3 = (
        (68.64, 54.0),
        (103.28, 54.0),
        (51.32, 84.0),
        (85.96, 84.0),
        (120.6, 84.0),
        (68.64, 114.0),
        (103.28, 114.0),
    )
    points = {"b1": b1, "c1": c1, "a2": a2, "b2": b2, "c2": c2, "a3": a3, "b3": b3}
    expected = {
        "game": "hexgo",
        "kind": "points",
        "width": 171.92,
        "height": 168.0,
        "radius": 14.55,
        "cells": [{"name": name, "x": x, "y": y} for name, (x, y) in points.items()],
        "streets": [
            [*b1, *c1],
            [*b1, *b2],
            [*b1, *a2],
            [*c1, *c2],
            [*c1, *b2],
            [*a2, *b2],
            [*a2, *a3],
            [*b2, *c2],
            [*b2, *b3],
            [*b2, *a3],
            [*c2, *b3],
            [*a3, *b3],
        ],
        "edges": [],
        "labels": [
            [25.34, 58.0, "1"],
            [8.02, 88.0, "2"],
            [25.34, 118.0, "3"],
            [85.96, 148.0, "a"],
            [120.6, 148.0, "b"],
            [137.92, 118.0, "c"],
        ],
        "static": {},
        "marks": [
            ["last", "the move shown"],
            ["gone", "dotted: a stone the move shown captured"],
            ["territory-black", "small dot: Black's territory (an empty house it dominates)"],
            ["territory-white", "small dot: White's territory (an empty house it dominates)"],
        ],
    }
    assert board_geometry(make_game("hexgo", {"size": 2})) == expected


def test_the_board_files_numbers_are_decimals_even_where_whole():
    """The site writes the geometry as JSON (the board file the viewer loads): every coordinate
    is a decimal rounded to hundredths, so a whole one is written as 54.0, never as 54."""
    import json

    from arena.results.site.boards import board_geometry

    for name in ("hex", "hexgo"):
        geometry = board_geometry(make_game(name, {"size": 2}))
        numbers = [geometry["width"], geometry["height"], geometry["radius"]]
        numbers += [v for cell in geometry["cells"] for v in (cell["x"], cell["y"])]
        numbers += [
            v
            for row in (*geometry["edges"], *geometry["labels"], *geometry["streets"])
            for v in row
            if not isinstance(v, str)
        ]
        assert [type(v) for v in numbers] == [float] * len(numbers), name
    text = json.dumps(board_geometry(make_game("hex", {"size": 2}))["labels"])
    assert text == '[[51.32, 25.0, "a"], [85.96, 25.0, "b"], [8.02, 58.0, "1"], [25.34, 88.0, "2"]]'


def test_the_bases_board_draws_each_base_in_its_owners_colour_all_game():
    """Bases' standard board: Red's base (b9 c9 d9 c8 d8 d7) is drawn as base0 and Blue's
    (f1 g1 h1 f2 g2 f3) as base1 all game, and its legend has the three marks it draws."""
    from arena.results.site.boards import board_geometry

    game = make_game("bases", {})
    board = game.picture().board
    geometry = board_geometry(game)
    red = {board.index(name): "base0" for name in ("b9", "c9", "d9", "c8", "d8", "d7")}
    blue = {board.index(name): "base1" for name in ("f1", "g1", "h1", "f2", "g2", "f3")}
    assert geometry["static"] == {**red, **blue}
    assert geometry["marks"] == [
        ["last", "the move shown: where the piece slid to"],
        ["gone", "dotted: where it slid from"],
        ["occupied", "the base the winner filled"],
    ]
    assert sorted(geometry) == [
        "cells",
        "edges",
        "game",
        "height",
        "kind",
        "labels",
        "marks",
        "radius",
        "static",
        "streets",
        "width",
    ]
    assert (geometry["game"], geometry["kind"], geometry["edges"], geometry["streets"]) == ("bases", "cells", [], [])


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


def tiny_hex_record(moves: list[str]) -> GameRecord:
    return GameRecord.model_validate(
        {"game": "hex", "options": {"size": 2, "swap": True}, "players": ["ann", "bob"], "moves": moves}
    )


def test_a_2x2_hex_game_with_a_swap_off_the_diagonal_replays_to_these_whole_frames():
    # Cells a1 b1 / a2 b2 are 0 1 / 2 3.  Red's b1 is swapped: it leaves b1 for its mirror a2,
    # blue; red's a1, then blue's b2 joins a2 to b2 across the board, the chain shown at the end.
    replayed = replay(tiny_hex_record(["b1", "swap", "a1", "b2"]))
    assert replayed.cells == 4 and replayed.colours == ["red", "blue"]
    assert replayed.frames == [
        {"set": []},
        [0, 1, "red"],
        {"seat": 1, "set": [[1, ""], [2, "blue"]], "last": [2], "gone": [[1, "red"]]},
        [0, 0, "red"],
        {"seat": 1, "set": [[3, "blue"]], "last": [3], "end": {"marks": {"chain": [2, 3]}, "reveal": ""}},
    ]


def test_a_live_hex_game_swapped_off_the_diagonal_gives_each_move_its_frame():
    live = Replay("hex", {"size": 2, "swap": True}, ["ann", "bob"], None)
    live.start(None, None)
    assert live.play("b1") == [0, 1, "red"]
    assert live.play("swap") == {"seat": 1, "set": [[1, ""], [2, "blue"]], "last": [2], "gone": [[1, "red"]]}
    assert live.frames_of(["a1"]) == [[0, 0, "red"]]


def test_a_hex_game_of_stones_only_is_replayed_without_comparing_any_board(monkeypatch):
    def refused(self, moves):
        raise AssertionError("a board was compared")

    monkeypatch.setattr(Replay, "_compared", refused)
    live = Replay("hex", {"size": 2, "swap": False}, ["ann", "bob"], None)
    live.start(None, None)
    assert live.frames_of(["a1", "b1", "a2"]) == [[0, 0, "red"], [1, 1, "blue"], [0, 2, "red"]]


def test_a_hexgo_first_frame_is_the_empty_board_with_its_status():
    players = ["ann", "bob"]
    game = make_game("hexgo", {"size": 2})
    live = Replay("hexgo", game.options.model_dump(), players, None)
    live.start(None, None)
    status = game.initial_state(None).status(players)
    assert status  # HexGo tells the territory from the first position
    assert live.first == {"set": [], "status": status}


def test_the_last_frame_of_a_short_frame_is_its_long_form_with_its_status_and_the_ending():
    from arena.results.site.boards import last_frame

    ending = {"marks": {"chain": [2, 3]}, "reveal": "ann: score 1"}
    assert last_frame([1, 5, "white", "ann: 3; bob: 4"], ending) == {
        "seat": 1,
        "set": [[5, "white"]],
        "last": [5],
        "status": "ann: 3; bob: 4",
        "end": ending,
    }
    assert last_frame([0, 2, "black"], ending) == {"seat": 0, "set": [[2, "black"]], "last": [2], "end": ending}


def posies_first_set(cells: list[int]) -> list[list[int | str]]:
    """The first frame's pieces: every point with a posy on it, by its colour's name."""
    codes = make_game("posies").picture().codes
    return [[i, codes[v]] for i, v in enumerate(cells) if codes[v]]


def test_a_posies_record_with_its_seed_and_no_setup_starts_from_the_seeds_board():
    record = random_record("posies", {"players": 2}, 5, PLAYERS[:2]).model_dump()
    record.pop("setup")
    first = replay(GameRecord.model_validate(record)).frames[0]
    assert first["set"] == posies_first_set(list(make_game("posies").initial_state(5).cells))
    assert len(first["set"]) == 51  # a posy on every point


def test_a_posies_record_with_its_setup_and_no_seed_starts_from_the_setup():
    record = random_record("posies", {"players": 2}, 6, PLAYERS[:2]).model_dump()
    record.pop("seed")
    first = replay(GameRecord.model_validate(record)).frames[0]
    assert first["set"] == posies_first_set(list(make_game("posies").initial_state(6).cells))


def test_a_posies_record_from_a_book_starts_from_the_books_board_not_its_seeds():
    booked = random_record("posies", {"players": 2}, 7, PLAYERS[:2]).model_dump()
    record = {**booked, "seed": 8, "opening_setup": True}  # seed 8 deals another board
    assert make_game("posies").initial_state(8).setup_token() != booked["setup"]
    first = replay(GameRecord.model_validate(record)).frames[0]
    assert first["set"] == posies_first_set(list(make_game("posies").initial_state(7).cells))


def test_a_hidden_posies_record_reveals_the_posies_its_deal_drew():
    players = PLAYERS[:3]
    record = random_record("posies", {"players": 3, "variant": 2}, 9, players)
    state = make_game("posies", record["options"]).initial_state(9)
    state.deal(record["deal"])
    for move in record["moves"]:
        state.play(move)
    reveal = state.ending(players).reveal
    assert "hidden posy" in reveal
    assert replay(record).frames[-1]["end"]["reveal"] == reveal
