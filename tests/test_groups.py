"""Groups rules (docs/rules/groups.md): every rule, every illegal kind, scoring, properties."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import IllegalMove, OptionError, groups, make_game
from arena.rules.base import random_position
from arena.rules.groups import BLACK, WHITE, GroupsGame, GroupsState, decide
from arena.rules.hexgrid import Board, connected_components

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def new(size: int = 5) -> GroupsState:
    return make_game("groups", {"size": size}).initial_state()


def after(*moves: str, size: int = 5) -> GroupsState:
    state = new(size)
    for move in moves:
        state.play(move)
    return state


def position(size: int, white: list[str], black: list[str], ply: int) -> GroupsState:
    """Stones put straight on the board (bypassing turn rules) with ``ply`` fake moves played,
    for positions that would take long sequences to reach.  Test-only."""
    state = new(size)
    index = state.game.board.index
    for colour, names in ((WHITE, white), (BLACK, black)):
        for name in names:
            state._place(index(name), colour)
    state._moves = ["setup"] * ply
    return state


def illegal(state: GroupsState, move: str, *words: str) -> None:
    """``move`` is rejected with a reason containing ``words``, and the state is untouched."""
    before = (state.cells[:], state.moves[:], state.groups[:], state.render())
    with pytest.raises(IllegalMove) as info:
        state.play(move)
    assert info.value.move == move  # the refusal names the move refused
    for word in words:
        assert word in info.value.reason, info.value.reason
    assert (state.cells, state.moves, state.groups, state.render()) == before


# Black to move with two groups (d2, g7); White has e5 and c6.
TWO_GROUPS = ("e5", "d2", "g7", "c6")
# Black to move with groups d2 and f2 whose only common vacant neighbour is e2.
JOINABLE = ("e5", "d2", "f2", "a5")


# -- options and board ---------------------------------------------------------


def test_default_board_is_hexhex_5_with_61_cells() -> None:
    game = make_game("groups")
    assert game.options.size == 5 and game.option_tokens() == ["size=5"]
    assert len(game.board) == 61 and game.board == Board.hexhex(5)


@pytest.mark.parametrize("raw", [{"size": 1}, {"size": 9}, {"size": "big"}, {"sides": 5}])
def test_bad_options_are_rejected(raw: dict) -> None:
    with pytest.raises(OptionError):
        make_game("groups", raw)


@pytest.mark.parametrize("size", range(2, 9))
def test_every_allowed_board_has_an_odd_cell_count(size: int) -> None:
    # The reason no finished game is drawn (see test_full_board_is_never_a_draw).
    assert len(make_game("groups", {"size": size}).board) % 2 == 1


# -- opening and turn order ----------------------------------------------------


def test_turn_order_white_black_then_black_white_alternating() -> None:
    state, seen = new(), []
    rng = random.Random(3)
    for _ in range(8):
        seen.append(state.current_player())
        state.play(state.random_move(rng))
    assert seen == [WHITE, BLACK, BLACK, WHITE, BLACK, WHITE, BLACK, WHITE]


def test_opening_stones_are_single_and_may_go_anywhere() -> None:
    illegal(new(), "c3,g4", "single stone", "White")
    illegal(after("e5"), "c3,g4", "single stone", "Black")
    state = after("e5", "d5")  # Black's opening stone may touch White's
    assert state.current_player() == BLACK and state.max_stones() == 1


def test_blacks_first_turn_after_the_opening_allows_one_stone() -> None:
    state = after("e5", "d2")
    illegal(state, "c3,g4", "as many stones as you have groups (1)")
    state.play("g4")
    assert state.groups == [1, 2] and state.max_stones() == 1  # White: one group, one stone


# -- stone count -----------------------------------------------------------------


def test_as_many_stones_as_groups() -> None:
    state = after(*TWO_GROUPS)
    assert state.max_stones() == 2
    illegal(state, "c3,g4,a5", "as many stones as you have groups (2)")
    state.play("g4,c3")
    assert state.moves[-1] == "c3,g4"  # recorded in board order


def test_at_least_one_stone() -> None:
    illegal(after(*TWO_GROUPS), "", "at least one stone")


def test_never_more_than_three_stones() -> None:
    state = after(*TWO_GROUPS, "a5,i1", "e9")  # Black now has four groups
    assert state.groups[BLACK] == 4 and state.max_stones() == 3
    illegal(state, "c3,g4,i5,b8", "maximum number of stones you may place is 3")
    state.play("c3,g4,b8")  # c3 grows d2's group, g4 and b8 start new ones
    assert state.groups[BLACK] == 6


def test_stones_allowed_are_counted_at_the_start_of_the_turn() -> None:
    # Black has one group: it may place one stone, even though that stone would make two groups.
    illegal(after("e5", "d2", "e2", "c6"), "a5,i1", "as many stones as you have groups (1)")


# -- placement -------------------------------------------------------------------


def test_placed_stones_may_not_be_adjacent() -> None:
    illegal(after(*TWO_GROUPS), "c3,d3", "stones c3 and d3 are adjacent", "may not be adjacent")


def test_a_group_may_not_grow_by_two_stones() -> None:
    illegal(after(*TWO_GROUPS), "c3,e2", "both grow your group at d2", "more than one stone")


def test_a_joining_stone_grows_every_group_it_joins() -> None:
    state = after(*JOINABLE)
    illegal(state, "e2,g2", "both grow your group at f2")  # e2 already grew f2's group
    illegal(state, "d3,e2", "adjacent")
    state.play("e2,h5")  # one stone joins both groups, one starts a new group
    assert state.groups[BLACK] == 2 and state.group_sizes(BLACK) == [3, 1]


def test_a_single_joining_stone_merges_groups() -> None:
    state = after(*JOINABLE, "e2")
    assert state.groups[BLACK] == 1 and state.group_sizes(BLACK) == [3]
    state.play("a9")  # White
    assert state.max_stones() == 1  # Black's joined group allows one stone


def test_touching_the_opponents_groups_is_free() -> None:
    state = after(*TWO_GROUPS)
    state.play("d5,f5")  # both touch White's e5: only own groups count
    assert state.groups == [2, 4]


def test_occupied_cell() -> None:
    illegal(after(*TWO_GROUPS), "c3,e5", "e5 is already occupied")


def test_off_board_duplicate_and_malformed_tokens() -> None:
    state = after(*TWO_GROUPS)
    illegal(state, "a1", "a1 is not on the board")
    illegal(state, "c3,z20", "z20 is not on the board")
    illegal(state, "c3,c3", "c3 is listed twice")
    for junk in ("foo", "E5", "e5 ", "c3,", ",c3", "c3,,g4", "c3;g4", "pass", "swap", "\x00", "c3-c4"):
        illegal(state, junk, "not a cell name")
    illegal(state, "x" * 100_000, "not a cell name")


@pytest.mark.parametrize(
    ("moves", "move", "reason"),
    [
        (TWO_GROUPS, "", "you must place at least one stone (a move is one to three cells joined by ',')"),
        (TWO_GROUPS, "c3,g4,i5,b8", "4 stones: the maximum number of stones you may place is 3"),
        (TWO_GROUPS, "c3,c3", "c3 is listed twice: each stone goes on its own vacant cell"),
        ((), "c3,g4", "2 stones: in the opening White places a single stone"),
        (
            TWO_GROUPS,
            "c3,g4,a5",
            "3 stones: you may place as many stones as you have groups (2), and never more than 3",
        ),
        (TWO_GROUPS, "c3,e5", "e5 is already occupied: stones go on vacant cells"),
        (
            TWO_GROUPS,
            "c3,d3",
            "stones c3 and d3 are adjacent: the stones you place may not be adjacent to one another",
        ),
        (
            TWO_GROUPS,
            "c3,e2",
            "stones c3 and e2 both grow your group at d2: you may not grow any group by more than one "
            "stone (a stone joining groups grows each of them)",
        ),
        (("b2", "b1", "a3", "c1", "a2,c2", "b3"), "a1", "the game is over: the board is full"),
    ],
)
def test_each_refusal_states_the_rule_in_full(moves: tuple[str, ...], move: str, reason: str) -> None:
    size = 2 if len(moves) == 6 else 5
    state = after(*moves, size=size)
    with pytest.raises(IllegalMove) as info:
        state.play(move)
    assert (info.value.move, info.value.reason) == (move, reason)


def test_an_off_board_cell_names_the_boards_size_and_junk_is_quoted_to_twenty_characters() -> None:
    state = after(*TWO_GROUPS)
    illegal(state, "c3,z20", "z20 is not on the board (a hexhex board with 5 cells per side; see docs/rules/groups.md)")
    illegal(new(4), "h4", "h4 is not on the board (a hexhex board with 4 cells per side;")
    illegal(state, "y" * 20, f"{'y' * 20!r} is not a cell name")
    illegal(state, "y" * 21, f"{'y' * 20 + '...'!r} is not a cell name")


def test_no_move_after_the_game_is_over() -> None:
    state = after("b2", "b1", "a3", "c1", "a2,c2", "b3", size=2)
    assert state.is_terminal() and state.legal_moves() == []
    illegal(state, "b2", "the game is over")


def test_a_random_move_of_a_finished_game_is_refused_in_words() -> None:
    state = after("b2", "b1", "a3", "c1", "a2,c2", "b3", size=2)
    with pytest.raises(ValueError) as refused:
        state.random_move(random.Random(0))
    assert str(refused.value) == "the game is over"


# -- edge cases the seed leaves open ---------------------------------------------


def test_fewer_vacant_cells_than_stones_allowed() -> None:
    # Size 3, White (to move) has three groups c1, e3, a5; Black fills the rest but two cells.
    def crowded(vacant: set[str]) -> GroupsState:
        white = ["c1", "e3", "a5"]
        black = [n for n in Board.hexhex(3).names if n not in vacant and n not in white]
        return position(3, white, black, ply=15)

    apart = crowded({"e1", "a3"})  # not adjacent, touching no White group
    assert apart.max_stones() == 3 and apart.legal_moves() == ["e1", "a3", "e1,a3"]
    illegal(apart.clone(), "e1,a3,b2", "already occupied")
    apart.play("a3,e1")
    assert apart.moves[-1] == "e1,a3" and apart.is_terminal()
    assert crowded({"d1", "e1"}).legal_moves() == ["d1", "e1"]  # adjacent to each other
    assert crowded({"b2", "d1"}).legal_moves() == ["d1", "b2"]  # both would grow c1


def test_a_single_stone_is_always_legal_so_play_ends_only_on_a_full_board() -> None:
    rng = random.Random(11)
    state = new(4)
    while not state.is_terminal():
        legal = set(state.legal_moves())
        names = state.game.board.names
        assert {names[i] for i, v in enumerate(state.cells) if v < 0} <= legal
        state.play(state.random_move(rng))
    assert all(v >= 0 for v in state.cells)


# -- end of game and scoring -----------------------------------------------------


def test_having_a_group_beats_having_none() -> None:
    # Size 2: White b2-c1-b3 (3); Black b1-a2-a3 (3) and c2 (1).
    state = after("b2", "b1", "a3", "c1", "a2,c2", "b3", size=2)
    assert state.details() == {"white_groups": [3], "black_groups": [3, 1]}
    assert state.winner() == BLACK and state.scores() == [0.0, 1.0] and state.places() == [1, 0]
    assert state.end_reason() == "board full: Black's 2nd-largest group (1) beats White's (none)"


def test_largest_group_wins() -> None:
    # Size 2: White b2-a2-c2 (3); Black b1-c1 (2) and b3-a3 (2).
    state = after("b2", "b1", "b3", "a2", "a3,c1", "c2", size=2)
    assert state.details() == {"white_groups": [3], "black_groups": [2, 2]}
    assert state.winner() == WHITE and state.scores() == [1.0, 0.0]
    assert state.end_reason() == "board full: White's largest group (3) beats Black's (2)"


def test_comparison_goes_down_the_ranks() -> None:
    assert decide([5, 3, 2], [5, 3, 1]) == (WHITE, 2)
    assert decide([5, 2], [5, 3]) == (BLACK, 1)
    assert decide([4], [4, 1]) == (BLACK, 1)
    assert decide([6], [5, 5, 5]) == (WHITE, 0)


def test_equal_groups_are_a_draw_worth_half_each() -> None:
    assert decide([3, 2], [3, 2]) == (None, -1)
    state = new(2)
    state._result = (None, -1, [3, 2], [3, 2])  # unreachable on an odd board; the branch still works
    assert state.scores() == [0.5, 0.5] and state.winner() is None and state.places() == [0, 0]
    assert state.end_reason() == "board full: equal groups, draw"


def test_scores_before_the_end_raise() -> None:
    with pytest.raises(ValueError, match="^the game is not over$"):
        new().scores()
    assert new().winner() is None and new().end_reason() == "not over"


def test_a_clone_of_a_finished_game_keeps_its_result() -> None:
    state = after("b2", "b1", "b3", "a2", "a3,c1", "c2", size=2)
    copy = state.clone()
    assert copy.is_terminal() and copy.winner() == WHITE and copy.scores() == [1.0, 0.0]
    assert copy.end_reason() == state.end_reason() and copy.legal_moves() == []


def test_render_and_setup() -> None:
    game = make_game("groups")
    assert game.state_from_setup("start").moves == []
    with pytest.raises(OptionError, match="^groups has no random setup; expected 'start', got 'xyz'$"):
        game.state_from_setup("xyz")
    text = after(*TWO_GROUPS).render()
    assert text.count("W") == 2 and text.count("B") == 2 and len(text.splitlines()) == 10


# -- move generation -------------------------------------------------------------


def brute_force_legal(state: GroupsState) -> set[str]:
    """Every subset of up to three vacant cells that play() accepts, canonical form."""
    names = state.game.board.names
    vacant = [names[i] for i, v in enumerate(state.cells) if v < 0]
    found = set()
    for k in (1, 2, 3):
        for combo in combinations(vacant, k):
            trial = state.clone()
            try:
                trial.play(",".join(combo))
            except IllegalMove:
                continue
            found.add(trial.moves[-1])
    return found


@pytest.mark.slow
@pytest.mark.timeout(120)  # 50 whole games against a brute force: ~15 s quiet
@FAST
@given(seed=st.integers(0, 2**32), size=st.sampled_from([2, 3, 4]))
def test_legal_moves_is_exactly_what_play_accepts(seed: int, size: int) -> None:
    rng, state = random.Random(seed), new(size)
    while not state.is_terminal():
        legal = state.legal_moves()
        assert len(legal) == len(set(legal)) and set(legal) == brute_force_legal(state)
        state.play(rng.choice(legal))


@pytest.mark.parametrize("seed, size", [(0, 2), (1, 3), (2, 3), (3, 3)])
def test_legal_moves_of_a_few_games_are_exactly_what_play_accepts(seed: int, size: int) -> None:
    """The quick form of the hypothesis test above: a few fixed games on the smaller boards."""
    rng, state = random.Random(seed), new(size)
    while not state.is_terminal():
        legal = state.legal_moves()
        assert len(legal) == len(set(legal)) and set(legal) == brute_force_legal(state)
        state.play(rng.choice(legal))


@FAST
@given(seed=st.integers(0, 2**32))
def test_random_games_from_legal_moves_end_with_a_winner(seed: int) -> None:
    rng, state = random.Random(seed), new(4)
    cells = len(state.game.board)
    while not state.is_terminal():
        assert len(state.moves) < cells  # every turn fills at least one cell
        legal = state.legal_moves()
        assert legal
        state.play(rng.choice(legal))
    assert state.winner() in (WHITE, BLACK) and sorted(state.scores()) == [0.0, 1.0]


@FAST
@given(seed=st.integers(0, 2**32), size=st.sampled_from([3, 4, 5]))
def test_random_move_is_always_legal(seed: int, size: int) -> None:
    rng, state = random.Random(seed), new(size)
    while not state.is_terminal():
        move = state.random_move(rng)
        if size < 5:
            assert move in set(state.legal_moves())
        state.play(move)
        assert state.moves[-1] == move  # random_move gives canonical tokens


def test_random_move_is_uniform_over_legal_moves() -> None:
    # A position where White has three groups, so singles, pairs and triples are legal.
    state, rng = new(3), random.Random(1)
    while state.max_stones() < 3:
        state.play(state.random_move(rng))
    legal = state.legal_moves()
    assert {len(m.split(",")) for m in legal} == {1, 2, 3}
    per_move = 200
    counts = Counter(state.random_move(rng) for _ in range(per_move * len(legal)))
    assert set(counts) == set(legal)
    chi_square = sum((counts[m] - per_move) ** 2 / per_move for m in legal)
    # Chi-square with len(legal) - 1 degrees of freedom: mean df, sd sqrt(2 df); 6 sd is far
    # beyond chance, while a sampler that favours a stone count is off by hundreds of sd.
    df = len(legal) - 1
    assert chi_square < df + 6 * (2 * df) ** 0.5, (chi_square, df)


@FAST
@given(seed=st.integers(0, 2**32))
def test_group_tracking_matches_a_flood_fill(seed: int) -> None:
    rng, state = random.Random(seed), new(5)
    neighbours = state.game.board.neighbours
    while not state.is_terminal():
        state.play(state.random_move(rng))
        for colour in (WHITE, BLACK):
            stones = [i for i, v in enumerate(state.cells) if v == colour]
            comps = connected_components(stones, neighbours)
            assert state.groups[colour] == len(comps)
            assert state.group_sizes(colour) == sorted(map(len, comps), reverse=True)


@FAST
@given(seed=st.integers(0, 2**32))
def test_full_board_is_never_a_draw(seed: int) -> None:
    rng, state = random.Random(seed), new(5)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    white, black = state.group_sizes(WHITE), state.group_sizes(BLACK)
    assert sum(white) + sum(black) == 61 and state.winner() == decide(white, black)[0] is not None


@FAST
@given(seed=st.integers(0, 2**32))
def test_same_moves_same_result_and_clones_are_independent(seed: int) -> None:
    rng, state = random.Random(seed), new(4)
    while not state.is_terminal():
        branch = state.clone()
        branch.play(branch.random_move(random.Random(seed + 1)))
        state.play(state.random_move(rng))
        assert len(branch.moves) == len(state.moves)
    replay = after(*state.moves, size=4)
    assert replay.render() == state.render() and replay.details() == state.details()
    assert replay.scores() == state.scores() and replay.end_reason() == state.end_reason()


@FAST
@given(seed=st.integers(0, 2**32), order=st.permutations([0, 1, 2]))
def test_stone_order_in_a_token_does_not_matter(seed: int, order: list[int]) -> None:
    rng, state = random.Random(seed), new(5)
    while not state.is_terminal() and state.max_stones() < 3:
        state.play(state.random_move(rng).split(",")[0])
    if state.is_terminal():
        return
    move = state.random_move(rng).split(",")
    shuffled = ",".join(move[i] for i in order if i < len(move))
    state.play(shuffled)
    assert state.moves[-1] == ",".join(move)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(max_size=12)
    | st.lists(st.sampled_from(Board.hexhex(5).names + ("a1", "", "x")), max_size=5).map(",".join)
)
def test_any_string_is_accepted_or_rejected_cleanly(text: str) -> None:
    state = after(*TWO_GROUPS)
    before = (state.cells[:], state.moves[:], state.groups[:])
    try:
        state.play(text)
    except IllegalMove as exc:
        assert exc.reason and (state.cells, state.moves, state.groups) == before
    else:
        assert state.moves[-1] in set(after(*TWO_GROUPS).legal_moves())


def test_legal_moves_size_stays_in_tens_of_thousands_on_the_default_board() -> None:
    # Worst case: three stones allowed as early as possible (ply 6) on a nearly empty board.
    state = after("e5", "d2", "g7", "c6", "a5,i1", "e9,i3")
    assert state.max_stones() == 3
    legal = state.legal_moves()
    assert 10_000 < len(legal) < 30_000
    assert GroupsGame.name == "groups"


@pytest.mark.parametrize("seed", range(12))
def test_the_ending_marks_the_winners_group_that_decided_the_game(seed: int) -> None:
    state = new()
    rng = random.Random(seed)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    winner, rank = decide(state.group_sizes(WHITE), state.group_sizes(BLACK))
    marks = state.ending(["a", "b"]).marks
    if winner is None:
        assert marks == {}
        return
    (group,) = connected_components(marks["deciding"], state.game.board.neighbours)  # one group
    assert {state.cells[c] for c in group} == {winner}
    assert len(group) == state.group_sizes(winner)[rank]
    # the whole group: no stone of the winner's colour touches it from outside
    outside = {n for c in group for n in state.game.board.neighbours[c]} - set(group)
    assert all(state.cells[n] != winner for n in outside)


def test_a_drawn_game_marks_no_deciding_group() -> None:
    state = new()
    state._result = (None, -1, [3], [3])  # equal groups: the rules' draw
    assert state.ending(["a", "b"]).marks == {}


def test_the_text_board_and_the_status_line_show_each_colours_stones_and_groups() -> None:
    state = after("b1", "a2", "c2", size=2)
    assert state.render() == "    a b c\n  1   W .\n  2  B . B\n  3   . ."
    assert state.status(["ann", "bob"]) == "ann (White): 1 group; bob (Black): 2 groups"


def test_the_picture_draws_white_and_black_stones_with_every_rows_and_columns_name() -> None:
    game = make_game("groups", {"size": 2})
    picture = game.picture()
    names = game.board.names
    state = after("b1", "a2", size=2)
    assert [picture.codes[state.cells[game.board.index(c)]] for c in ("b1", "a2", "b2")] == ["white", "black", ""]
    assert [(names[label.cell], label.text, label.where) for label in picture.labels] == [
        ("b1", "1", "left"), ("a2", "2", "left"), ("a3", "3", "left"),
        ("a3", "a", "below"), ("b3", "b", "below"), ("c2", "c", "below"),
    ]  # fmt: skip
    assert [mark.name for mark in picture.marks] == ["last", "deciding"] and picture.layout == "cells"


def test_the_check_engine_position_is_black_to_place_several_stones() -> None:
    game = make_game("groups", {"size": 2})
    (position,) = game.check_positions(lambda g, seed: g.initial_state(seed))
    state = position.build()
    assert isinstance(state, GroupsState) and not state.is_terminal()
    assert state.current_player() == 1 and state.max_stones() >= 2
    assert position.build().moves == state.moves  # the same position every time check-engine asks
    with pytest.raises(RuntimeError, match="^no groups position found for a conformance check$"):
        random_position(game, lambda g, seed: g.initial_state(seed), lambda state: False, tries=2)


def test_the_end_reason_names_the_deciding_rank_in_english_ordinals() -> None:
    ranks = (0, 1, 2, 3, 9, 10, 11, 12, 19, 20, 21, 22, 100, 110, 111)
    said = [groups._ordinal_group(rank) for rank in ranks]
    assert said == [
        "largest group", "2nd-largest group", "3rd-largest group", "4th-largest group", "10th-largest group",
        "11th-largest group", "12th-largest group", "13th-largest group", "20th-largest group", "21st-largest group",
        "22nd-largest group", "23rd-largest group", "101st-largest group", "111th-largest group", "112th-largest group",
    ]  # fmt: skip
