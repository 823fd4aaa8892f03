"""Posies rules (docs/rules/posies.md): board, setup token, pairs, splits, end,
the three scorings, three players and hidden information."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import IllegalMove, OptionError, make_game
from arena.rules.hexgrid import connected_components
from arena.rules.posies import EMPTY, LETTERS, PosiesState

# Any valid setup; tests that need a particular position overwrite the cells.
FULL = "pug" * 17


def game(**options):
    return make_game("posies", options)


def position(cells: dict[str, str], **options) -> PosiesState:
    """A state whose board holds only ``cells`` (name -> letter p/u/g)."""
    g = game(**options)
    state = g.state_from_setup(FULL)
    state.cells[:] = [EMPTY] * len(g.board)
    for name, letter in cells.items():
        state.cells[g.board.index(name)] = LETTERS.index(letter)
    return state


def row4(letters: str, **options) -> PosiesState:
    """Posies on row 4 only, from a4 rightwards ('.' for an empty point)."""
    return position({f"{'abcdefghi'[k]}4": ch for k, ch in enumerate(letters) if ch != "."}, **options)


def illegal(state: PosiesState, move: str) -> str:
    before = (state.cells[:], [c[:] for c in state.captured], state.moves[:])
    with pytest.raises(IllegalMove) as info:
        state.play(move)
    assert (state.cells, state.captured, state.moves) == before, "state changed by an illegal move"
    assert info.value.move == move and str(info.value).startswith(f"illegal move {move!r}: ")  # the move refused
    return info.value.reason


def board_letters(state: PosiesState) -> dict[str, str]:
    names = state.game.names
    return {names[i]: LETTERS[c] for i, c in enumerate(state.cells) if c != EMPTY}


# -- board, options, setup -------------------------------------------------------


def test_board_is_the_51_point_hexagon():
    board = game().board
    assert len(board) == 51
    rows = [sum(1 for r, _ in board.coords if r == row) for row in range(7)]
    assert rows == [6, 7, 8, 9, 8, 7, 6]
    assert board.names[0] == "d1" and board.names[-1] == "f7"
    # Inner points have six neighbours, like points of a triangular lattice.
    assert max(len(n) for n in board.neighbours) == 6


def test_options_and_players():
    assert game().players == 2
    assert game(players=3).players == 3
    assert game(players=3, variant=2).option_tokens() == ["players=3", "variant=2", "board=standard"]
    for bad in ({"players": 4}, {"variant": 3}, {"board": "big"}, {"colours": 3}):
        with pytest.raises(OptionError, match=next(iter(bad))):
            game(**bad)


def test_seed_setup_is_random_full_and_deterministic():
    g = game()
    a, b = g.initial_state(7), g.initial_state(8)
    assert a.cells == g.initial_state(7).cells
    assert a.cells != b.cells
    assert sorted(a.cells) == sorted([0, 1, 2] * 17)  # full board, 17 of each colour
    # The variant does not change the board a seed gives.
    assert game(variant=2).initial_state(7).cells == a.cells


def test_documented_setup_example():
    # docs/rules/posies.md shows seed 1; this also pins the setup across Python versions.
    token = "pppggugpgpuupppuuupppuupuguuugpggppguggugguguuggppg"
    assert game().initial_state(1).setup_token() == token


def test_tournament_file_options_validate():
    import tomllib
    from pathlib import Path

    spec = tomllib.loads((Path(__file__).parent.parent / "tournaments/posies3.toml").read_text())
    g = make_game(spec["game"], spec["options"])
    assert g.players == 3 and g.options.variant == 2 and len(spec["engines"]) == 3


def test_setup_token_round_trip():
    g = game(players=3)
    state = g.initial_state(3)
    token = state.setup_token()
    assert len(token) == 51 and set(token) == set("pug")
    assert g.state_from_setup(token).cells == state.cells
    assert g.state_from_setup(token).setup_token() == token


@pytest.mark.parametrize(
    "token, problem",
    [
        ("pug" * 16, "must be 51 letters"),
        ("pug" * 17 + "p", "got 52"),
        ("x" + ("pug" * 17)[1:], "'x' at position 1 (d1) is not p (pink)"),
        ("start", "must be 51 letters"),
        ("p" * 18 + "u" * 16 + "g" * 17, "18 pink, 16 purple, 17 green"),
    ],
)
def test_bad_setup_tokens(token, problem):
    with pytest.raises(OptionError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        game().state_from_setup(token)


# -- the two kinds of pair ----------------------------------------------------------


def test_adjacent_pair_either_order_recorded_sorted():
    state = position({"c3": "p", "d3": "p", "e3": "u", "a7": "u"})
    state.play("d3-c3")
    assert state.moves == ["c3-d3"]
    assert state.captured[0] == [2, 0, 0]
    assert board_letters(state) == {"e3": "u", "a7": "u"}
    assert state.current_player() == 1


def test_pair_on_a_line_of_posies():
    state = position({"c3": "g", "d3": "u", "e3": "p", "f3": "g", "a7": "p", "b7": "p"})
    assert "c3-f3" in state.legal_moves()
    state.play("f3-c3")
    assert state.moves == ["c3-f3"] and state.captured[0] == [0, 0, 2]
    assert board_letters(state) == {"d3": "u", "e3": "p", "a7": "p", "b7": "p"}


def test_lines_in_all_three_directions():
    # c3-c5 runs south-east through c4; e3-c5 runs south-west through d4.
    state = position({"c3": "p", "c4": "u", "c5": "p", "e3": "p", "d4": "g"})
    legal = state.legal_moves()
    assert {"c3-c5", "e3-c5"} <= set(legal)
    assert "c3-e3" not in legal  # d3 between them is empty


def test_middle_posies_may_have_any_colour():
    state = row4("ppp")
    assert set(state.legal_moves()) == {"a4-b4", "b4-c4", "a4-c4"}


@pytest.mark.parametrize(
    "cells, move, rule",
    [
        ({"c3": "p", "d3": "u"}, "c3-d3", "must be of like colour"),
        ({"c3": "p"}, "c3-d3", "d3 is empty"),
        ({"c3": "p", "e4": "p"}, "c3-e4", "neither adjacent nor on one straight line"),
        ({"c3": "p", "d3": "u", "f3": "p"}, "c3-f3", "e3 between c3 and f3 is empty"),
        ({"c3": "p", "f3": "p", "a7": "u", "b7": "u"}, "c3-f3", "d3, e3 between c3 and f3 are empty"),
        ({"c3": "p", "d3": "p"}, "c3-c3", "named twice"),
    ],
)
def test_illegal_pairs_name_the_rule(cells, move, rule):
    cells = {"a7": "u", "b7": "u", **cells}  # a legal pair, so the game is not over
    assert rule in illegal(position(cells), move)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "c3",
        "c3-",
        "-c3",
        "c3-d3-e3",
        "c3--d3",
        "c3-d3/",
        "c3/d3",
        "C3-D3",
        "a1-c3",
        "c3-z9",
        "c3-d3/q7",
        "c3-d3/c3/d3",
        " c3-d3",
        "c3-d3 ",
        "é-ü",
        "c3-d3\n",
        "/",
        "-",
    ],
)
def test_garbage_tokens_are_illegal_with_a_reason(token):
    state = position({"c3": "p", "d3": "p", "a7": "u", "b7": "u"})
    assert illegal(state, token)


@pytest.mark.parametrize(
    "token, meant",
    [
        ("C3-d3", "'c3'"),
        ("c3-D3", "'d3'"),
        (" c3-d3", "'c3'"),
        ("c3-d3\n", "'d3'"),
    ],
)
def test_upper_case_or_padded_cells_are_rejected_naming_the_cell_meant(token, meant):
    # PROTOCOL.md section 6: tokens are exact, cell names lower case (as in Hex and HexGo).
    text = illegal(position({"c3": "p", "d3": "p", "a7": "u", "b7": "u"}), token)
    assert "cell names are lower case" in text and f"write {meant}" in text


# -- splits ---------------------------------------------------------------------------


def test_split_with_one_smallest_group_is_kept_without_choice():
    state = row4("uppuuu")  # removing b4-c4 leaves {a4} and {d4,e4,f4}
    assert "b4-c4" in state.legal_moves()
    assert "single smallest group (at a4)" in illegal(state, "b4-c4/a4")
    state.play("b4-c4")
    assert state.moves == ["b4-c4"]
    assert state.captured[0] == [2, 1, 0]  # the two pinks and the kept purple a4
    assert board_letters(state) == {"d4": "u", "e4": "u", "f4": "u"}


def test_split_into_equal_smallest_groups_needs_a_choice():
    state = row4("uuppgg")  # removing c4-d4 leaves {a4,b4} and {e4,f4}
    legal = state.legal_moves()
    assert {"c4-d4/a4", "c4-d4/e4"} <= set(legal) and "c4-d4" not in legal
    reason = illegal(state, "c4-d4")
    assert reason.startswith("removing c4-d4 splits a group")
    assert "equally small smallest groups of 2 (at a4, e4)" in reason and "'/cell'" in reason
    state.play("d4-c4/f4")  # any cell of the kept group; recorded by its first cell
    assert state.moves == ["c4-d4/e4"]
    assert state.captured[0] == [2, 0, 2]
    assert board_letters(state) == {"a4": "u", "b4": "u"}


def test_three_way_split_by_a_line_pair():
    state = row4("pugupgg")  # removing b4-d4 leaves {a4}, {c4}, {e4,f4,g4}
    assert {m for m in state.legal_moves() if m.startswith("b4-d4")} == {"b4-d4/a4", "b4-d4/c4"}
    assert "e4 is not in one of the smallest groups of 1" in illegal(state, "b4-d4/e4")
    state.play("b4-d4/c4")
    assert state.captured[0] == [0, 2, 1]
    assert board_letters(state) == {"a4": "p", "e4": "p", "f4": "g", "g4": "g"}


def test_three_equal_groups_offer_three_choices():
    state = row4("pugup")  # removing b4-d4 leaves {a4}, {c4}, {e4}
    assert {m for m in state.legal_moves() if m.startswith("b4-d4")} == {"b4-d4/a4", "b4-d4/c4", "b4-d4/e4"}


def test_no_split_when_the_group_stays_connected_around_a_ring():
    # A ring around the empty d4: removing d3-e3 leaves c4-c5-d5-e4 connected.
    state = position({"d3": "g", "e3": "g", "e4": "p", "d5": "u", "c5": "p", "c4": "u"})
    assert "no group" in illegal(state, "d3-e3/c4")
    state.play("d3-e3")
    assert state.captured[0] == [0, 0, 2]
    assert len(board_letters(state)) == 4


def test_removing_a_whole_group_is_no_split():
    state = position({"c3": "p", "d3": "p", "a7": "u", "b7": "u"})
    assert "splits no group" in illegal(state, "c3-d3/a7")
    state.play("c3-d3")
    assert board_letters(state) == {"a7": "u", "b7": "u"}


def test_only_the_group_of_the_pair_can_split():
    # b7 and a7 are a separate group; removing b4-c4 splits only row 4.
    state = position({"a4": "g", "b4": "p", "c4": "p", "d4": "u", "e4": "u", "a7": "g", "b7": "u"})
    state.play("b4-c4")
    assert state.captured[0] == [2, 0, 1]
    assert board_letters(state) == {"d4": "u", "e4": "u", "a7": "g", "b7": "u"}


# -- end of game, scoring, players ----------------------------------------------------


def test_game_ends_when_the_player_to_move_has_no_pair():
    state = position({"c3": "g", "d3": "g", "a6": "p", "b6": "p", "f2": "u"})
    assert not state.is_terminal() and state.end_reason() == "not over"
    state.play("c3-d3")
    state.play("a6-b6")
    assert state.is_terminal() and state.legal_moves() == []
    assert state.end_reason() == "no move left"
    assert "game is over" in illegal(state, "f2-g2")


def test_position_without_pairs_is_terminal():
    state = row4("pug")
    assert state.is_terminal() and state.legal_moves() == []


def finished(**options) -> PosiesState:
    """Seat 0 removes two greens, seat 1 two pinks; the purple left over scores nothing."""
    state = position({"c3": "g", "d3": "g", "a6": "p", "b6": "p", "f2": "u"}, **options)
    state.play("c3-d3")
    state.play("a6-b6")
    assert state.is_terminal()
    return state


def test_standard_scoring():
    state = finished()
    assert state.scores() == [6.0, 2.0]
    assert state.winner() == 0 and state.places() == [0, 1]


def test_variant_1_counts_posies_and_ties_share_the_place():
    state = finished(variant=1)
    assert state.scores() == [2.0, 2.0]
    assert state.winner() is None and state.places() == [0, 0]


@pytest.mark.parametrize(
    "hidden, scores",
    [
        (("green", "purple"), [9.0, 5.0]),  # (2 green + hidden) x 3 ; hidden x 3 + 2 pinks
        (("pink", "pink"), [5.0, 9.0]),
        (("purple", "green"), [5.0, 5.0]),
    ],
)
def test_variant_2_hidden_colour_scores_triple(hidden, scores):
    state = finished(variant=2)
    for seat, colour in enumerate(hidden):
        state.apply_private(seat, f"hidden {colour}")
    assert state.scores() == scores
    assert state.winner() == (None if scores[0] == scores[1] else scores.index(max(scores)))


def test_three_players_take_turns_in_rotation():
    state = position(
        {"a4": "p", "b4": "p", "d4": "u", "e4": "u", "g4": "g", "h4": "g", "a7": "p", "b7": "p"}, players=3
    )
    for seat, move in enumerate(["a4-b4", "d4-e4", "g4-h4", "a7-b7"]):
        assert state.current_player() == seat % 3
        state.play(move)
    assert state.captured == [[4, 0, 0], [0, 2, 0], [0, 0, 2]]
    assert state.scores() == [4.0, 4.0, 6.0]
    assert state.winner() == 2 and state.places() == [1, 1, 0]


def test_scores_so_far_are_available_before_the_end():
    state = position({"c3": "g", "d3": "g", "a6": "p", "b6": "p"})
    state.play("c3-d3")
    assert state.scores() == [6.0, 0.0] and state.winner() is None


# -- hidden information --------------------------------------------------------------


def test_variant_2_draws_distinct_hidden_posies_from_the_bag():
    for seed in range(20):
        two = game(variant=2).initial_state(seed)
        assert sorted([*two.hidden, two.bag]) == [0, 1, 2]
        three = game(variant=2, players=3).initial_state(seed)
        assert sorted(three.hidden) == [0, 1, 2] and three.bag is None
    assert len({tuple(game(variant=2).initial_state(s).hidden) for s in range(30)}) == 6


def test_private_info_is_for_variant_2_and_the_own_seat_only():
    state = game(variant=2, players=3).initial_state(4)
    names = ["pink", "purple", "green"]
    for seat in range(3):
        assert state.private_info(seat) == [f"hidden {names[state.hidden[seat]]}"]
    assert game(variant=0).initial_state(4).private_info(0) == []
    assert game(variant=1, players=3).initial_state(4).private_info(2) == []


def random_game(state: PosiesState, seed: int, plies: int | None = None) -> PosiesState:
    rng = random.Random(seed)
    while not state.is_terminal() and (plies is None or len(state.moves) < plies):
        state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize("players", [2, 3])
def test_hidden_posies_never_show_before_the_end(players):
    g = game(variant=2, players=players)
    referee = g.initial_state(11)
    engine = g.state_from_setup(referee.setup_token())
    engine.apply_private(1, referee.private_info(1)[0])
    # A referee that dealt different hidden posies shows exactly the same things.
    other = g.initial_state(11)
    other.hidden = [(c + 1) % 3 for c in other.hidden]
    other.bag = None if other.bag is None else (other.bag + 1) % 3
    rng = random.Random(5)
    while not referee.is_terminal():
        views = {
            (s.setup_token(), s.render(), repr(s.details()), tuple(s.moves), tuple(s.legal_moves()))
            for s in (referee, engine, other)
        }
        assert len(views) == 1
        assert "hidden" not in referee.render() and "score" not in referee.render()
        move = rng.choice(referee.legal_moves())
        for s in (referee, engine, other):
            s.play(move)
    assert referee.details()["hidden"] == [["pink", "purple", "green"][c] for c in referee.hidden]
    assert "hidden" in referee.render()
    assert engine.details()["hidden"][1] == referee.details()["hidden"][1]
    assert engine.details()["hidden"][0] == "unknown"
    if players == 2:
        assert referee.details()["bag"] == ["pink", "purple", "green"][referee.bag]


def test_engine_state_needs_hidden_posies_to_score_variant_2():
    referee = random_game(game(variant=2).initial_state(2), 2)
    engine = game(variant=2).state_from_setup(referee.setup_token())
    for move in referee.moves:
        engine.play(move)
    with pytest.raises(ValueError, match="seat 0's hidden posy is unknown"):
        engine.scores()
    engine.apply_private(0, referee.private_info(0)[0])
    assert engine.points(0, engine.hidden[0]) == referee.scores()[0]
    assert engine.points(1, referee.hidden[1]) == referee.scores()[1]
    engine.apply_private(1, referee.private_info(1)[0])
    assert engine.scores() == referee.scores() and engine.winner() == referee.winner()


@pytest.mark.parametrize(
    "payload, variant, seat",
    [
        ("hidden red", 2, 0),
        ("hidden", 2, 0),
        ("secret pink", 2, 0),
        ("hidden pink", 0, 0),
        ("hidden pink", 2, 5),
    ],
)
def test_bad_private_payloads(payload, variant, seat):
    with pytest.raises(ValueError):
        game(variant=variant).state_from_setup(FULL).apply_private(seat, payload)


def test_private_payload_may_not_contradict_the_referee():
    state = game(variant=2).initial_state(1)
    wrong = ["pink", "purple", "green"][(state.hidden[0] + 1) % 3]
    with pytest.raises(ValueError, match="already known"):
        state.apply_private(0, f"hidden {wrong}")


# -- properties over random games --------------------------------------------------------


def reference_moves(state: PosiesState) -> set[str]:
    """Legal moves straight from the rules text, by brute force."""
    board, cells = state.game.board, state.cells
    names = board.names
    occupied = [i for i, c in enumerate(cells) if c != EMPTY]
    group_of = {i: frozenset(g) for g in connected_components(occupied, board.neighbours) for i in g}
    moves = set()
    for a in occupied:
        for b in occupied:
            if b <= a or cells[a] != cells[b]:
                continue
            between = board.line_between(a, b)
            if b not in board.neighbours[a] and (between is None or any(cells[c] == EMPTY for c in between)):
                continue
            parts = connected_components(group_of[a] - {a, b}, board.neighbours)
            size = min(map(len, parts), default=0)
            smallest = [p for p in parts if len(p) == size] if len(parts) > 1 else []
            pair = f"{names[a]}-{names[b]}"
            if len(smallest) > 1:
                moves |= {f"{pair}/{names[min(p)]}" for p in smallest}
            else:
                moves.add(pair)
    return moves


games = st.tuples(st.integers(0, 2**32), st.sampled_from([2, 3]), st.sampled_from([0, 1, 2]), st.integers(0, 2**32))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
@pytest.mark.slow
def test_legal_moves_match_the_rules_by_brute_force(params):
    seed, players, variant, move_seed = params
    state = game(players=players, variant=variant).initial_state(seed)
    rng = random.Random(move_seed)
    while True:
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        assert set(legal) == reference_moves(state)
        if not legal:
            break
        state.play(rng.choice(legal))


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(games)
def test_random_games_are_sound(params):
    seed, players, variant, move_seed = params
    g = game(players=players, variant=variant)
    state = g.initial_state(seed)
    rng = random.Random(move_seed)
    while not state.is_terminal():
        before = sum(c != EMPTY for c in state.cells)
        mover = state.current_player()
        assert mover == len(state.moves) % players
        legal = state.legal_moves()
        move = rng.choice(legal)
        snapshot = state.clone()
        state.play(move)
        after = sum(c != EMPTY for c in state.cells)
        assert before - after >= 2 and sum(map(sum, state.captured)) + after == 51
        assert state.moves[-1] == move  # legal_moves gives canonical tokens
        assert snapshot.moves == state.moves[:-1] and snapshot.legal_moves() == legal  # clone independent
        assert len(state.moves) <= 25
    assert state.legal_moves() == [] and state.end_reason() == "no move left"
    scores = state.scores()
    assert len(scores) == players == len(state.places())
    top = max(scores)
    assert state.winner() == (scores.index(top) if scores.count(top) == 1 else None)
    # Same seed and moves, same game; an engine's state from the setup token agrees too.
    again = g.initial_state(seed)
    engine = g.state_from_setup(state.setup_token())
    for move in state.moves:
        again.play(move)
        engine.play(move)
    assert again.cells == engine.cells == state.cells
    assert again.scores() == scores and again.details() == state.details()
    for seat in range(players):
        for payload in state.private_info(seat):
            engine.apply_private(seat, payload)
    assert engine.scores() == scores


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 12), st.text(max_size=12))
def test_play_never_raises_anything_but_illegal_move(seed, plies, token):
    state = random_game(game(players=3).initial_state(seed), seed, plies)
    if token in state.legal_moves():
        return
    cells, played = state.cells[:], len(state.moves)
    try:
        state.play(token)
    except IllegalMove as exc:
        assert exc.reason and state.cells == cells
    else:
        assert len(state.moves) == played + 1  # a non-canonical spelling of a legal move


def test_deal_redraws_only_the_hidden_posies_and_only_before_the_first_move():
    game = make_game("posies", {"players": 3, "variant": 2})
    base = game.initial_state(5)
    dealt = {tuple(base.hidden)}
    for deal in range(12):
        state = game.initial_state(5)
        state.deal(deal)
        assert state.setup_token() == base.setup_token() and state.cells == base.cells
        assert sorted(state.hidden) == sorted(base.hidden)
        dealt.add(tuple(state.hidden))
    assert len(dealt) > 1
    # The deal follows its seed: the same seed, the same secrets (every time, not by chance).
    for deal in range(12):
        first, again = game.initial_state(5), game.initial_state(5)
        first.deal(deal)
        again.deal(deal)
        assert (again.hidden, again.bag) == (first.hidden, first.bag)
    state.play(state.legal_moves()[0])
    with pytest.raises(ValueError, match="before the first move"):
        state.deal(1)
    plain = make_game("posies", {"players": 2, "variant": 0}).initial_state(5)
    plain.deal(3)
    assert plain.hidden == [None, None]


def seed_five(plies: int | None, **options) -> PosiesState:
    """Seed 5's board after ``plies`` random moves of seed 1 (None: to the end)."""
    return random_game(game(**options).initial_state(5), 1, plies)


def test_the_status_line_shows_each_seats_posies_and_their_scores_unless_a_colour_is_hidden():
    seats = ["ann", "bob", "cy"]
    took = "took posies: pink 2, purple 2, green 2"
    assert seed_five(6).status(seats) == f"ann {took} (score 12); bob {took} (score 12)"  # 2 + 4 + 6
    assert seed_five(6, variant=1).status(seats) == f"ann {took} (score 6); bob {took} (score 6)"
    assert seed_five(6, variant=2).status(seats) == f"ann {took}; bob {took}"
    three = seed_five(None, players=3, variant=1).status(seats).split("; ")
    assert three[0] == "ann took posies: pink 7, purple 9, green 4 (score 20)"


def test_the_ending_reveals_the_scores_and_the_hidden_posies_and_the_bag():
    state = seed_five(None, variant=2)
    assert (state.captured, state.hidden, state.bag) == ([[7, 7, 7], [9, 8, 8]], [0, 2], 1)
    # 3 x (7 + 1) + 7 + 7 and 3 x (8 + 1) + 9 + 8
    reveal = "ann: score 38, hidden posy pink; bob: score 44, hidden posy green; left in the bag: purple"
    assert state.ending(["ann", "bob"]).reveal == reveal
    lines = state.render().splitlines()[-2:]
    assert lines == [
        "seat 0: pink 7 purple 7 green 7, hidden pink, score 38",
        "seat 1: pink 9 purple 8 green 8, hidden green, score 44",
    ]
    state = seed_five(None)
    assert state.ending(["ann", "bob"]).reveal == "ann: score 42; bob: score 49"  # 7 + 14 + 21, 9 + 16 + 24
    assert state.render().splitlines()[-1] == "seat 1: pink 9 purple 8 green 8, score 49"


def test_the_check_engine_position_is_seat_two_to_move_holding_its_hidden_posy():
    posies = game(players=3, variant=2)
    (position,) = posies.check_positions(lambda g, seed: g.initial_state(seed))
    state = position.build()
    assert state.current_player() == 2 and len(state.moves) == 2 and state.private_info(2) == ["hidden pink"]
    again = position.build()  # the same position every time check-engine asks
    assert (again.setup_token(), again.moves, again.hidden) == (state.setup_token(), state.moves, state.hidden)


def test_the_picture_draws_posies_on_the_points_and_the_kept_group():
    picture = game().picture()
    state = position({"d1": "p", "e1": "u", "f1": "g"})
    index = state.game.board.index
    assert [picture.codes[state.cells[index(c)]] for c in ("d1", "e1", "f1", "g1")] == ["pink", "purple", "green", ""]
    assert picture.layout == "points" and picture.kept_groups
    assert [mark.name for mark in picture.marks] == ["last", "kept"]


def test_a_clone_plays_on_without_touching_the_original():
    state = seed_five(6, variant=2)
    before = (state.render(), state.setup_token(), state.moves[:], [c[:] for c in state.captured])
    other = state.clone()
    assert (other.render(), other.setup_token(), other.moves, other.captured) == before
    assert (other.hidden, other.bag, other.legal_moves()) == (state.hidden, state.bag, state.legal_moves())
    rng = random.Random(3)
    while not other.is_terminal():
        other.play(other.random_move(rng))
    assert (state.render(), state.setup_token(), state.moves, state.captured) == before
    assert not state.is_terminal() and other.scores() != [0.0, 0.0]
    assert other.clone().is_terminal() and other.clone().legal_moves() == []


def test_the_text_board_letters_and_the_records_details():
    state = seed_five(6)
    assert state.render().splitlines()[7] == "  7       g g . u g p"
    assert state.details() == {"captured": [{"pink": 2, "purple": 2, "green": 2}] * 2}
    assert sorted(seed_five(None, variant=2).details()) == ["bag", "captured", "hidden"]
    assert sorted(seed_five(None, players=3, variant=2).details()) == ["captured", "hidden"]  # no bag left


def test_an_engine_knows_no_hidden_posy_until_told_and_only_of_real_seats():
    posies = game(variant=2)
    state = posies.state_from_setup(posies.initial_state(5).setup_token())
    assert state.private_info(0) == []
    with pytest.raises(ValueError, match="^seat 2 is not a seat of this 2-player game$"):
        state.apply_private(2, "hidden pink")


def test_an_engines_board_at_the_end_scores_only_the_seat_whose_hidden_posy_it_knows():
    referee = seed_five(None, variant=2)
    engine = referee.game.state_from_setup(referee.setup_token())
    engine.apply_private(0, "hidden pink")
    for move in referee.moves:
        engine.play(move)
    assert engine.render().splitlines()[-2:] == [
        "seat 0: pink 7 purple 7 green 7, hidden pink, score 38",
        "seat 1: pink 9 purple 8 green 8, hidden unknown",
    ]


def reference_removed(state: PosiesState, move: str) -> set[int]:
    """The points a legal ``move`` empties, straight from the rules text: the pair, and
    the smallest part of its group (the one named after '/', if any) when the group splits."""
    board, cells = state.game.board, state.cells
    pair, _, choice = move.partition("/")
    a, b = (board.index(name) for name in pair.split("-"))
    occupied = [i for i, c in enumerate(cells) if c != EMPTY]
    group = next(set(g) for g in connected_components(occupied, board.neighbours) if a in g)
    parts = connected_components(group - {a, b}, board.neighbours)
    if len(parts) < 2:
        return {a, b}
    size = min(map(len, parts))
    kept = [set(p) for p in parts if len(p) == size and (not choice or board.index(choice) in p)]
    assert len(kept) == 1
    return {a, b} | kept[0]


@pytest.mark.parametrize("seed", range(6))
def test_every_legal_move_of_sparse_positions_removes_what_the_rules_say(seed):
    """Random half-empty boards split often, and in every way: each legal move is the brute
    force's, and playing it empties the pair and the kept group, which the mover takes."""
    rng = random.Random(seed)
    g = game(players=2 + seed % 2)
    names = g.board.names
    state = position({names[i]: rng.choice("pug") for i in g.board if rng.random() < 0.55}, players=2 + seed % 2)
    while not state.is_terminal():
        legal = state.legal_moves()
        assert len(legal) == len(set(legal)) and set(legal) == reference_moves(state)
        for move in legal:
            after, mover = state.clone(), state.current_player()
            after.play(move)
            removed = {i for i in g.board if state.cells[i] != EMPTY and after.cells[i] == EMPTY}
            assert removed == reference_removed(state, move), move
            taken = [sum(state.cells[i] == c for i in removed) for c in range(3)]
            assert after.captured[mover] == [n + t for n, t in zip(state.captured[mover], taken)]
            assert after.moves == [*state.moves, move] and after.current_player() == (mover + 1) % g.players
        state.play(rng.choice(legal))
    assert not reference_moves(state)


def test_a_state_started_without_a_seed_is_seed_zeros():
    g = game()
    assert g.initial_state().setup_token() == g.initial_state(0).setup_token() != g.initial_state(1).setup_token()


@pytest.mark.parametrize(
    "letters, move, said",
    [
        (
            "uuppgg",
            "c4-d4",
            "removing c4-d4 splits a group and leaves 2 equally small smallest groups of 2 (at a4, e4): "
            "the mover chooses which to keep, so add '/cell' naming a cell of it",
        ),
        (
            "uppuuu",
            "b4-c4/a4",
            "removing b4-c4 leaves a single smallest group (at a4), which the mover keeps without choosing: "
            "leave out the '/cell'",
        ),
        (
            "p.pgg",
            "a4-c4",
            "b4 between a4 and c4 is empty: non-adjacent posies must be separated by an unbroken straight line of posies",
        ),
        ("pug", "a4-b4", "the game is over: no pair of like-coloured posies can be removed"),
        ("pp", "a4", "expected two cells joined by '-', optionally '/cell' (e.g. c3-c4 or c3-c5/f2)"),
    ],
)
def test_a_refusal_states_the_rule_in_full(letters, move, said):
    assert illegal(row4(letters), move) == said


def test_hidden_information_errors_state_the_rule_in_full():
    g = game(variant=2)
    engine = g.state_from_setup(FULL)
    with pytest.raises(ValueError) as err:
        engine.points(0)
    assert str(err.value) == (
        "seat 0's hidden posy is unknown to this state, so its variant 2 score is unknown "
        "(only the referee's state knows all)"
    )
    with pytest.raises(ValueError) as err:
        engine.apply_private(0, "hidden blue")
    assert str(err.value) == (
        "posies variant 2: unexpected private payload 'hidden blue' (variant 2 sends 'hidden pink|purple|green')"
    )
    played = g.initial_state(1)
    played.play(played.legal_moves()[0])
    with pytest.raises(ValueError, match="^the hidden posies are drawn before the first move$"):
        played.deal(3)
    with pytest.raises(OptionError) as err:
        g.parse_setup("pug")
    assert str(err.value) == "posies setup token must be 51 letters, one per point in board order (p/u/g), got 3"
