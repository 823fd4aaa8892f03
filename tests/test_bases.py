"""Bases rules (docs/rules/bases.md): every rule, every illegal kind, draws, random games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import IllegalMove, OptionError, make_game
from arena.rules.bases import BLUE, RED, STANDARD_CELLS, BasesGame, BasesState

# Custom layouts used below (red base / blue base / black hexes).
# Blue's corner base can only get out through i3; Red's i5 piece can plug it.
PLUG_LAYOUT = "f1,i5,a9,b9,c9,d9/g1,g2,h1,h2,i1,i2/f2,f3,g3,h3,e5"
# Red's pieces are walled in from the start.
WALLED_RED_LAYOUT = "g1,g2,h1,h2,i1,i2/f1,a9,b9,c9,d9,e9/f2,f3,g3,h3,i3"
# The bases touch: Blue can fill the hole Red leaves on its very first move.
TOUCHING_LAYOUT = "a9,b9,c9,d9,e9,f8/a7,b7,c7,d7,e7,f7/a5,c5,e5,g5,i5"

# Red and Blue each shuttle one piece between two stops: the position after
# ply 1 recurs after plies 5 and 9 (plies counted from 0).
SHUTTLE = "d7-g7 f3-c3 g7-a7 c3-i3 a7-g7 i3-c3 g7-a7 c3-i3 a7-g7 i3-c3".split()


def play(moves: list[str] | str, **options: object) -> BasesState:
    state = make_game("bases", options).initial_state()
    for move in moves.split() if isinstance(moves, str) else moves:
        state.play(move)
    return state


def reason(state: BasesState, move: str) -> str:
    before = (state.render(), list(state.moves), state.legal_moves())
    with pytest.raises(IllegalMove) as info:
        state.play(move)
    assert (state.render(), list(state.moves), state.legal_moves()) == before, "state changed"
    assert info.value.move == move and str(info.value).startswith(f"illegal move {move!r}: ")  # the move refused
    return info.value.reason


# -- board and start ----------------------------------------------------------


def test_standard_layout_is_point_symmetric() -> None:
    game = make_game("bases")
    board = game.board
    flip = {i: board.at(8 - r, 8 - c) for i, (r, c) in enumerate(board.coords)}
    red, blue = game.layout.bases
    assert sorted(flip[c] for c in red) == list(blue)
    assert sorted(flip[c] for c in game.layout.black) == list(game.layout.black)
    assert len(board) == 61 and len(red) == len(blue) == 6 and len(game.layout.black) == 5


def test_start_position_and_red_moves_first() -> None:
    state = play([])
    assert state.current_player() == RED
    assert state.render() == "\n".join(
        [
            "    a b c d e f g h i",
            "  1         . B B B .",
            "  2        . . B B . .",
            "  3       . . . B . . .",
            "  4      . . . . . . . .",
            "  5     # . # . # . # . #",
            "  6      . . . . . . . .",
            "  7       . . . R . . .",
            "  8        . . R R . .",
            "  9         . R R R .",
        ]
    )
    assert state.legal_moves() == [
        "d7-g7",
        "d7-a7",
        "d7-d2",
        "d7-i2",
        "c8-a8",
        "c8-c6",
        "d8-f8",
        "d8-f6",
        "b9-a9",
        "b9-b4",
        "d9-e9",
        "d9-i4",
    ]
    assert reason(state, "f3-f8").startswith("f3 holds a Blue piece, not yours")


def test_setup_token_is_start() -> None:
    game = make_game("bases")
    assert game.state_from_setup("start").render() == game.initial_state(99).render()
    with pytest.raises(OptionError):
        game.state_from_setup("random")


# -- sliding ------------------------------------------------------------------


def test_slide_stops_before_black_hex_edge_and_pieces() -> None:
    state = play("c8-c6")  # c5 is black
    assert state.cells[state.game.board.index("c6")] == RED + 1
    state.play("g2-g4")  # g5 is black
    state.play("d7-g7")  # the edge
    state.play("f3-f8")  # crosses the middle row at the gap f5
    state.play("d8-e8")  # stops before Blue's f8
    assert state.moves == ["c8-c6", "g2-g4", "d7-g7", "f3-f8", "d8-e8"]


def test_must_slide_as_far_as_possible() -> None:
    state = play([])
    assert "must slide as far as possible" in reason(state, "c8-c7")
    assert "ends at c6" in reason(state, "c8-c7")
    assert "ends at d2" in reason(state, "d7-d4")


def test_never_passes_over_or_stops_on_anything() -> None:
    state = play([])
    assert reason(state, "c8-c4") == (
        "blocked at c5 by a black hex: a piece may not pass over or stop on a piece or a black hex"
    )
    assert "blocked at c5 by a black hex" in reason(state, "c8-c5")
    assert "blocked at c8 by a Red piece" in reason(state, "c9-c7")
    state.play("d8-f8")
    assert "blocked at f8 by a Red piece" in reason(state, "f3-f8")  # may not land on it


def test_cannot_move_in_a_direction_with_no_room() -> None:
    # c9 is walled in by its own pieces and the edge: no move of c9 at all.
    state = play([])
    assert not any(m.startswith("c9-") for m in state.legal_moves())
    assert "blocked at c8" in reason(state, "c9-c8")


def test_moving_through_the_opponents_base_is_allowed() -> None:
    # f7-a7 slides west through d7, a cell of Red's base, and stops on a7.
    state = play("d8-f8 f3-f7 d7-d2")
    state.play("f7-a7")
    assert not state.is_terminal() and state.current_player() == RED


def test_piece_stopped_on_opponents_base_is_frozen() -> None:
    # Blue's d2 piece slides down column d and stops on d8 in Red's base.
    state = play("d8-f6 f2-d2 d7-a7 d2-d8 c8-c6")
    assert not state.is_terminal()
    assert not any(m.startswith("d8-") for m in state.legal_moves())
    assert reason(state, "d8-f8") == (
        "the piece on d8 is frozen: a piece that has stopped on the opponent's base may not move again"
    )


def test_own_base_pieces_may_return_and_leave_again() -> None:
    # Only the opponent's base freezes: c8 goes out, comes home (d7 is still empty) and may leave.
    state = play("d7-a7 f3-c3 c8-c6 c3-i3 c6-c8 i3-c3")
    assert not state.is_terminal() and "c8-c6" in state.legal_moves()


# -- winning --------------------------------------------------------------------


def test_first_turn_rule_full_bases_do_not_count_before_ply_two() -> None:
    state = play("c8-c6")
    assert not state.is_terminal()  # Blue's base is still full, but Blue has not moved
    assert state.base_count == [5, 6]


def test_filling_the_base_with_the_opponents_own_piece_wins() -> None:
    # Blue leaves f2 with five Blue pieces still home; Red's d2 fills the hole.
    state = play("d7-d2 f2-d4 d2-f2")
    assert state.is_terminal() and state.winner() == RED and state.scores() == [1.0, 0.0]
    assert state.end_reason() == "Blue's base is fully occupied"
    assert state.details()["occupied_base"] == {
        "f1": "Blue",
        "g1": "Blue",
        "h1": "Blue",
        "f2": "Red",
        "g2": "Blue",
        "f3": "Blue",
    }
    assert state.legal_moves() == []
    assert reason(state, "f1-e1") == "the game is over"


def test_refilling_your_own_base_loses() -> None:
    state = play("d7-d2 f1-e1 d2-d7")
    assert state.winner() == BLUE and state.scores() == [0.0, 1.0]
    assert state.end_reason() == "Red's base is fully occupied"


def test_base_can_be_won_on_ply_two() -> None:
    state = play("f8-h6 f7-f8", layout=TOUCHING_LAYOUT)
    assert state.winner() == BLUE and state.end_reason() == "Red's base is fully occupied"


def test_both_bases_full_would_go_to_the_mover() -> None:
    # Unreachable by play (a move fills at most one cell); the rule is still defined.
    state = play("d7-d2 f2-d4")
    state.base_count[:] = [6, 6]
    assert state._check_bases(BLUE) and state.winner() == BLUE
    state = play("d7-d2 f2-d4")
    state.base_count[:] = [6, 6]
    assert state._check_bases(RED) and state.winner() == RED


def test_player_without_a_move_loses() -> None:
    state = play([], layout=PLUG_LAYOUT)
    elsewhere = play("a9-a5", layout=PLUG_LAYOUT)
    assert elsewhere.legal_moves() == ["i2-i4"]  # i3 is Blue's only way out
    state.play("i5-i3")  # the last exit of Blue's base is closed
    assert state.is_terminal() and state.winner() == RED
    assert state.end_reason() == "Blue has no move" and state.scores() == [1.0, 0.0]


def test_player_without_a_move_at_the_start_loses() -> None:
    state = play([], layout=WALLED_RED_LAYOUT)
    assert state.is_terminal() and state.winner() == BLUE and state.end_reason() == "Red has no move"
    assert state.legal_moves() == []


# -- arena's draws ------------------------------------------------------------------


def test_draw_by_repetition() -> None:
    state = play(SHUTTLE[:-1])
    assert not state.is_terminal()
    state.play(SHUTTLE[-1])
    assert state.is_terminal() and state.winner() is None and state.scores() == [0.5, 0.5]
    assert state.end_reason() == "draw by repetition (same position 3 times)"
    assert state.places() == [0, 0]


def test_repetition_option() -> None:
    state = play(SHUTTLE[:6], repetition=2)
    assert state.end_reason() == "draw by repetition (same position 2 times)"
    assert not play(SHUTTLE, repetition=4).is_terminal()


def test_draw_by_move_limit() -> None:
    state = play(SHUTTLE[:4], max_plies=4)
    assert state.is_terminal() and state.scores() == [0.5, 0.5]
    assert state.end_reason() == "draw by move limit (4 plies)"
    assert reason(state, "a7-g7") == "the game is over"


def test_base_win_on_the_last_allowed_ply_beats_the_move_limit() -> None:
    state = play("d7-d2 f2-d4 d2-f2", max_plies=3)
    assert state.winner() == RED


# -- illegal moves --------------------------------------------------------------------


@pytest.mark.parametrize(
    "move, expected",
    [
        ("", "malformed move: expected 'from-to'"),
        ("c8", "malformed move"),
        ("c8-c6-c4", "malformed move"),
        ("c8 - c6", "not a cell"),
        ("C8-C6", "'C8' is not a cell of the 61-hex board"),
        ("c8-z1", "'z1' is not a cell"),
        ("a1-a5", "'a1' is not a cell"),
        ("e7-e6", "e7 is empty: a move slides one of your own pieces"),
        ("e5-e4", "e5 is a black hex"),
        ("g1-g4", "g1 holds a Blue piece, not yours: Red may only move Red pieces"),
        ("c8-c8", "zero-length move"),
        ("c8-e7", "c8 and e7 are not on a straight line: a piece slides in one of the six directions"),
        ("c8-c7", "stops short: a piece must slide as far as possible"),
        ("c8-c4", "blocked at c5 by a black hex"),
        ("d9-d7", "blocked at d8 by a Red piece"),
    ],
)
def test_illegal_move_reasons(move: str, expected: str) -> None:
    assert expected in reason(play([]), move)


def test_off_board_corner_reason_does_not_list_it_as_a_cell() -> None:
    # a1 and i9 are corners of the a-i x 1-9 grid cut off the hexagon: the reason must say so,
    # not offer "a1..i9" as the range of cells.
    for move in ("a1-a5", "e5-i9"):
        text = reason(play([]), move)
        assert "cut-off corners" in text and "a1..i9" not in text, text
    with pytest.raises(OptionError, match="cut-off corners"):
        make_game("bases", {"layout": "a1,b9,c9,d9,e9,a8/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5"})


def test_a_name_that_is_no_cell_is_told_what_a_cell_is() -> None:
    assert reason(play([]), "c8-z1") == (
        "'z1' is not a cell of the 61-hex board: a lower-case column a-i and row 1-9 inside the hexagon, "
        "e.g. e5 (a1, i9 and the other cut-off corners of the grid are not cells; see docs/rules/bases.md)"
    )


def test_long_junk_is_shortened_in_the_reason() -> None:
    assert len(reason(play([]), "x" * 10_000 + "-c6")) < 300


def test_non_string_moves_are_rejected_cleanly() -> None:
    assert "malformed" in reason(play([]), None)  # type: ignore[arg-type]


# -- options ----------------------------------------------------------------------------


def test_default_options_tokens() -> None:
    assert make_game("bases").option_tokens() == ["layout=standard", "max_plies=300", "repetition=3"]


def test_custom_layout_is_canonicalised_and_round_trips() -> None:
    shuffled = "d7,d8,c8,d9,c9,b9/f3,g2,f2,h1,g1,f1/i5,g5,e5,c5,a5"
    game = make_game("bases", {"layout": shuffled})
    assert game.options.layout == "/".join(
        ",".join(p)
        for p in (
            ["d7", "c8", "d8", "b9", "c9", "d9"],
            ["f1", "g1", "h1", "f2", "g2", "f3"],
            ["a5", "c5", "e5", "g5", "i5"],
        )
    )
    again = make_game("bases", dict(t.split("=", 1) for t in game.option_tokens()))
    assert again.options == game.options
    assert play("d7-d2 f2-d4 d2-f2", layout=shuffled).winner() == RED


@pytest.mark.parametrize(
    "layout, expected",
    [
        ("standard2", "expected 'standard' or three comma-separated cell lists"),
        ("a9,b9/c9", "expected 'standard'"),
        ("a9,b9,c9,d9,e9/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5", "red base needs exactly 6 cells, got 5"),
        ("a9,b9,c9,d9,e9,a8/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5", "black hexes needs exactly 5 cells, got 4"),
        ("a9,b9,c9,d9,e9,a8/f1,g1,h1,f2,g2,z3/a5,c5,e5,g5,i5", "blue base: 'z3' is not a cell"),
        ("a9,b9,c9,d9,e9,a9/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5", "red base: a9 is listed twice"),
        ("a9,b9,c9,d9,e9,f3/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5", "f3 is in both the red base and the blue base"),
        ("a9,b9,c9,d9,e9,e5/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,i5", "e5 is in both the red base and the black"),
        ("a9,b9,c9,d9,e9,a8/f1,g1,h1,f2,g2,f3/a5,c5,e5,g5,f1", "f1 is in both the blue base and the black"),
    ],
)
def test_bad_layouts_name_the_option(layout: str, expected: str) -> None:
    with pytest.raises(OptionError) as info:
        make_game("bases", {"layout": layout})
    assert "'layout'" in str(info.value) and expected in str(info.value)


@pytest.mark.parametrize(
    "options, expected",
    [
        ({"max_plies": 0}, "'max_plies'"),
        ({"repetition": 1}, "'repetition'"),
        ({"size": 5}, "unknown option 'size'"),
    ],
)
def test_bad_options(options: dict, expected: str) -> None:
    with pytest.raises(OptionError, match=expected):
        make_game("bases", options)


def test_standard_cells_match_the_doc() -> None:
    assert make_game("bases").options.layout == "standard"
    assert [len(p) for p in STANDARD_CELLS] == [6, 6, 5]


# -- properties over random games ----------------------------------------------------------


def random_game(game: BasesGame, rng: random.Random) -> BasesState:
    state = game.initial_state()
    while not state.is_terminal():
        legal = state.legal_moves()
        assert legal, "a live position always has a move"
        mover, before = state.current_player(), len(state.moves)
        state.play(rng.choice(legal))
        assert len(state.moves) == before + 1
        full = [c == 6 for c in state.base_count]
        assert not all(full)  # never both at once
        if any(full) and len(state.moves) >= 2:
            assert state.is_terminal() and state.winner() == full.index(True) ^ 1
        assert state.current_player() == 1 - mover or state.is_terminal()
    return state


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 300))
def test_random_games_are_legal_and_end_within_max_plies(rng: random.Random, max_plies: int) -> None:
    game = make_game("bases", {"max_plies": max_plies})
    state = random_game(game, rng)
    assert len(state.moves) <= max_plies
    assert sum(state.scores()) == 1.0 and state.end_reason() != "not over"
    replay = game.initial_state()
    for move in state.moves:
        replay.play(move)
    assert (replay.render(), replay.scores(), replay.end_reason()) == (
        state.render(),
        state.scores(),
        state.end_reason(),
    )


@settings(max_examples=8, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 40))
def test_legal_moves_are_exactly_the_accepted_moves(rng: random.Random, plies: int) -> None:
    game = make_game("bases")
    state = game.initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state.play(rng.choice(state.legal_moves()))
    legal = set(state.legal_moves())
    names = game.board.names
    accepted = set()
    for a in names:
        for b in names:
            trial = state.clone()
            try:
                trial.play(f"{a}-{b}")
            except IllegalMove:
                continue
            accepted.add(f"{a}-{b}")
    assert accepted == legal


@settings(max_examples=10, deadline=None)
@given(st.randoms(use_true_random=False))
def test_clone_is_independent(rng: random.Random) -> None:
    state = play("d7-a7 f3-c3")
    copy = state.clone()
    snapshot = (state.render(), list(state.moves), dict(state._seen), state.base_count[:])
    while not copy.is_terminal() and len(copy.moves) < 60:
        copy.play(rng.choice(copy.legal_moves()))
    assert (state.render(), list(state.moves), dict(state._seen), state.base_count[:]) == snapshot


def test_the_text_board_marks_each_bases_empty_cells_with_its_owners_letter() -> None:
    rows = play("d7-d2 f1-e1").render().splitlines()
    assert rows[1] == "  1         B b B B ." and rows[7] == "  7       . . . r . . ."


def test_the_picture_draws_pieces_walls_and_each_base_all_game() -> None:
    game = make_game("bases")
    picture = game.picture()
    names = game.board.names
    static = {names[cell]: drawn for cell, drawn in picture.static.items()}
    assert static == {cell: "base0" for cell in ("b9", "c8", "c9", "d7", "d8", "d9")} | {
        cell: "base1" for cell in ("f1", "f2", "f3", "g1", "g2", "h1")
    }
    state = play([])
    drawn = [picture.codes[state.cells[game.board.index(c)]] for c in ("d7", "f1", "a5", "e4")]
    assert drawn == ["red", "blue", "wall", ""] and picture.layout == "cells"
    assert [mark.name for mark in picture.marks] == ["last", "gone", "occupied"] and len(picture.labels) == 18


def test_the_ending_lights_the_occupied_base_and_nothing_when_no_base_decided() -> None:
    state = play("d7-d2 f2-d4 d2-f2")
    names = state.game.board.names
    assert sorted(names[c] for c in state.ending(["r", "b"]).marks["occupied"]) == ["f1", "f2", "f3", "g1", "g2", "h1"]
    assert play("d7-d2").ending(["r", "b"]).marks == {"occupied": []} and play("d7-d2").details() == {}


def test_the_check_engine_position_has_a_base_one_piece_from_full() -> None:
    game = make_game("bases")
    (position,) = game.check_positions(lambda g, seed: g.initial_state(seed))
    state = position.build()
    occupied = [sum(state.cells[c] != 0 for c in base) for base in game.layout.bases]
    assert 5 in occupied and len(state.moves) >= 6 and not state.is_terminal()


def test_a_long_move_is_shown_cut_to_twenty_characters_and_an_empty_base_is_counted_not_misnamed() -> None:
    assert reason(play([]), "x" * 20 + "-e5").startswith(f"{'x' * 20!r} is not a cell of the 61-hex board")
    assert reason(play([]), "y" * 21 + "-e5").startswith(f"{'y' * 20!r}... is not a cell of the 61-hex board")
    with pytest.raises(OptionError, match="red base needs exactly 6 cells, got 0"):
        make_game("bases", {"layout": "/a7,b7,c7,d7,e7,f7/a5,c5,e5,g5,i5"})


def test_a_layout_listing_a_cell_twice_names_that_cell() -> None:
    with pytest.raises(OptionError, match="blue base: c7 is listed twice"):
        make_game("bases", {"layout": "a9,b9,c9,d9,e9,f8/a7,b7,c7,c7,e7,f7/a5,c5,e5,g5,i5"})


def test_scores_before_the_end_are_refused() -> None:
    with pytest.raises(ValueError, match="^the game is not over$"):
        play("d7-d2").scores()


def test_a_win_by_blocking_lights_no_base() -> None:
    state = play([], layout=PLUG_LAYOUT)
    state.play("i5-i3")  # Blue is left without a move: Red wins, no base decided it
    assert state.winner() == RED and state.end_reason() == "Blue has no move"
    assert state.details() == {} and state.ending(["r", "b"]).marks == {"occupied": []}


def test_a_game_not_over_says_so_in_each_answer() -> None:
    state = play("c8-c6")
    assert state.is_terminal() is False and state.winner() is None and state.end_reason() == "not over"


@pytest.mark.parametrize("seed, plies, loser", [(78, 180, RED), (82, 201, BLUE)])
def test_a_side_whose_only_pieces_with_room_are_frozen_has_no_move_and_loses(seed: int, plies: int, loser: int) -> None:
    # Random games that end with the side to move stuck: every one of its pieces with an empty
    # neighbour stands frozen on the other's base, so it has no move and the other side wins.
    rng, state = random.Random(seed), play([], max_plies=400)
    while not state.is_terminal():
        state.play(rng.choice(state.legal_moves()))
    assert len(state.moves) == plies and state.end_reason() == f"{('Red', 'Blue')[loser]} has no move"
    assert state.winner() == 1 - loser and state.scores()[loser] == 0.0 and state.legal_moves() == []
    steps = state.game.board.step
    free = [p for p in state.pieces[loser] if any(s[p] != -1 and state.cells[s[p]] == 0 for s in steps)]
    assert free and all(state.is_frozen(p) for p in free)


def test_a_zero_length_or_malformed_move_states_the_rule_in_full() -> None:
    assert reason(play([]), "c8-c8") == "zero-length move: a piece must slide at least one hex"
    assert reason(play([]), "c8") == "malformed move: expected 'from-to', two cell names joined by '-', e.g. 'c8-c6'"
