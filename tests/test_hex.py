"""Every rule of the Hex seed (003), through the referee's public interface."""

import copy
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import IllegalMove, OptionError, make_game


def play(moves, **options):
    state = make_game("hex", options).initial_state()
    for move in moves:
        state.play(move)
    return state


def test_red_moves_first_then_players_alternate():
    state = play([], size=5)
    assert state.current_player() == 0
    state.play("c3")
    assert state.current_player() == 1
    state.play("a1")
    assert state.current_player() == 0


@pytest.mark.parametrize(
    "move,reason",
    [
        ("pass", "not a cell"),
        ("z9", "not a cell"),
        ("f1", "not a cell"),
        ("a6", "not a cell"),
        ("", "not a cell"),
        ("C3", "not a cell"),
        ("c3 ", "not a cell"),
    ],
)
def test_moves_off_the_board_are_illegal_and_there_is_no_passing(move, reason):
    with pytest.raises(IllegalMove) as err:
        play(["c3"], size=5).play(move)
    assert reason in err.value.reason


@pytest.mark.parametrize("size, last", [(5, "e5"), (11, "k11"), (13, "m13")])
def test_a_move_off_the_board_is_told_the_boards_cells(size, last):
    with pytest.raises(IllegalMove) as err:
        play([], size=size).play("z99")
    assert err.value.reason == f"not a cell of the {size}x{size} board (cells are a1..{last}, or 'swap')"


@pytest.mark.parametrize("swap", [True, False])
def test_the_options_are_told_to_engines_as_protocol_tokens(swap):
    """PROTOCOL.md: booleans are true/false in lower case, every option with its default."""
    assert make_game("hex", {"swap": swap}).option_tokens() == ["size=11", f"swap={str(swap).lower()}"]


@pytest.mark.parametrize(
    "options, said",
    [
        ({"sise": 5}, "hex: unknown option 'sise' (did you mean 'size'? allowed: size, swap)"),
        ({"swapp": True}, "hex: unknown option 'swapp' (did you mean 'swap'? allowed: size, swap)"),
        ({"sz": 5}, "hex: unknown option 'sz' (allowed: size, swap)"),  # two thirds alike: too far to guess
    ],
)
def test_a_misspelt_option_is_named_with_the_one_it_most_likely_means(options, said):
    with pytest.raises(OptionError) as err:
        make_game("hex", options)
    assert str(err.value) == said


def test_occupied_cell_is_illegal_and_state_is_unchanged():
    state = play(["c3"], size=5, swap=False)
    with pytest.raises(IllegalMove, match="occupied"):
        state.play("c3")
    assert state.moves == ["c3"] and state.current_player() == 1


def test_stones_are_never_captured_or_moved():
    rng = random.Random(1)
    state = play([], size=7)
    placed = {}
    while not state.is_terminal():
        move = rng.choice([m for m in state.legal_moves() if m != "swap"])
        placed[move] = state.current_player()
        state.play(move)
        for name, colour in placed.items():
            assert state.cells[state.game.board.index(name)] == colour


def test_red_wins_with_a_bending_chain_while_empty_cells_remain():
    # Red: b1 b2 a3 a4 b4 c4? build a bending top-bottom chain on 4x4; Blue plays far away
    red = ["c1", "c2", "b3", "a4"]  # c1-c2 (down), c2-b3 (down-left), b3-a4 (down-left)
    blue = ["a1", "d2", "d3"]
    moves = [m for pair in zip(red, blue + [None]) for m in pair if m]
    state = play(moves, size=4, swap=False)
    assert state.is_terminal() and state.winner() == 0
    assert state.scores() == [1.0, 0.0]
    assert state.legal_moves() == [] and "." in state.render()
    assert state.details()["winning_chain"] == ["c1", "c2", "b3", "a4"]


def test_blue_wins_joining_left_and_right():
    red = ["a1", "b1", "c1", "a3"]
    blue = ["a2", "b2", "c2", "d2"]
    moves = [m for pair in zip(red, blue) for m in pair]
    state = play(moves, size=4, swap=False)
    assert state.winner() == 1 and state.end_reason() == "Blue connected"
    assert state.details()["winning_chain"] == ["a2", "b2", "c2", "d2"]
    assert state.scores() == [0.0, 1.0]  # the point is Blue's
    board = state.game.board  # the report site lights the chain the record names
    assert state.ending(["r", "b"]).marks == {"chain": [board.index(c) for c in ["a2", "b2", "c2", "d2"]]}


def test_a_finished_game_refuses_a_random_move_in_the_shared_words():
    state = play(["a1", "a2", "b1", "b2", "c1", "c2", "a3", "d2"], size=4, swap=False)  # Blue joins a2-d2
    assert state.winner() == 1
    with pytest.raises(ValueError, match="^the game is over$"):  # State.random_move's refusal
        state.random_move(random.Random(0))


def test_a_game_not_over_has_no_scores_and_lights_no_chain():
    state = play(["a1", "b2"], size=4, swap=False)
    with pytest.raises(ValueError, match="^the game is not over$"):
        state.scores()
    assert state.ending(["r", "b"]).marks == {"chain": []}


def test_stones_facing_across_a_gap_are_not_connected():
    # b1 and a3 form a bridge-like gap via a2/b2 empty: Red has top-bottom? No: bridge is not a connection.
    state = play(["b1", "d1", "a3", "d2", "a4", "d3"], size=4, swap=False)
    assert not state.is_terminal()
    state.play("a2")  # completes b1-a2-a3-a4
    assert state.winner() == 0


def test_move_after_the_end_is_illegal():
    state = play(["a1", "b1", "a2", "b2", "a3", "b3", "a4"], size=4, swap=False)
    assert state.winner() == 0
    with pytest.raises(IllegalMove, match="over"):
        state.play("d4")


def test_corner_touches_a_red_and_a_blue_edge():
    state = play(["a1"], size=2, swap=False)
    state.play("b1")
    state.play("a2")  # a1-a2 joins top and bottom on 2x2
    assert state.winner() == 0
    state = play(["b2", "a1", "a2", "b1"], size=2, swap=False)  # blue a1-b1 joins left and right
    assert state.winner() == 1


def test_swap_example_from_the_seed_row_2_column_5_becomes_row_5_column_2():
    state = play(["e2", "swap"], size=9)
    board = state.game.board
    assert state.cells[board.index("e2")] == -1
    assert state.cells[board.index("b5")] == 1  # Blue's stone on the mirror cell
    assert state.current_player() == 0  # then it is Red's turn again
    assert state.moves == ["e2", "swap"]


def test_swapped_stone_keeps_its_value_for_blue():
    state = play(["a2", "swap"], size=2)  # Blue gets b1
    state.play("a1")
    state.play("a2")  # Blue a2-b1 joins left and right
    assert state.winner() == 1


@pytest.mark.parametrize(
    "moves,reason",
    [
        ([], "only allowed as Blue's first move"),
        (["c3", "d4"], "only allowed as Blue's first move"),
        (["c3", "swap", "d4"], "only allowed as Blue's first move"),
    ],
)
def test_swap_only_right_after_the_first_stone_and_only_once(moves, reason):
    state = play(moves, size=5)
    with pytest.raises(IllegalMove, match=reason):
        state.play("swap")
    assert "swap" not in state.legal_moves()


def test_swap_is_illegal_when_the_rule_is_off():
    state = play(["c3"], size=5, swap=False)
    with pytest.raises(IllegalMove, match="swap rule is off"):
        state.play("swap")
    assert "swap" in play(["c3"], size=5).legal_moves()


def test_swap_of_a_diagonal_stone_lands_on_the_same_cell():
    state = play(["c3", "swap"], size=5)
    assert state.cells[state.game.board.index("c3")] == 1


def test_board_sizes_and_options_are_validated():
    assert len(play([], size=2).legal_moves()) == 4
    assert len(play([], size=26).legal_moves()) == 676
    for bad in ({"size": 1}, {"size": 27}, {"size": "big"}, {"colour": "red"}):
        with pytest.raises(OptionError):
            make_game("hex", bad)


@settings(max_examples=60, deadline=None)
@given(size=st.integers(2, 9), seed=st.integers(0, 2**32), swap=st.booleans())
def test_random_games_always_end_with_a_winner_and_replay_identically(size, seed, swap):
    rng = random.Random(seed)
    game = make_game("hex", {"size": size, "swap": swap})
    state = game.initial_state()
    snapshots = []
    while not state.is_terminal():
        snapshots.append(state.clone())
        state.play(rng.choice(state.legal_moves()))
    assert state.winner() in (0, 1)  # no draws, ever
    assert len(state.moves) <= size * size + 1
    chain = state.details()["winning_chain"]
    board = game.board
    assert all(board.index(b) in board.neighbours[board.index(a)] for a, b in zip(chain, chain[1:]))
    replay = game.initial_state()
    for move in state.moves:
        replay.play(move)
    assert replay.winner() == state.winner() and replay.cells == state.cells
    # clones taken along the way were not affected by later moves
    assert all(not s.is_terminal() for s in snapshots)


@settings(max_examples=40, deadline=None)
@given(size=st.integers(2, 9), seed=st.integers(0, 2**32), swap=st.booleans())
def test_random_move_draws_exactly_like_choice_of_legal_moves(size, seed, swap):
    # random_move is a fast sampler: same move and same rng state as rng.choice(legal_moves()).
    game = make_game("hex", {"size": size, "swap": swap})
    state = game.initial_state()
    mine, reference = random.Random(seed), random.Random(seed)
    while not state.is_terminal():
        move = state.random_move(mine)
        assert move == reference.choice(state.legal_moves())
        state.play(move)
    assert mine.random() == reference.random()
    with pytest.raises(ValueError, match="over"):
        state.random_move(mine)


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(2, 9),
    seed=st.integers(0, 2**32),
    swap=st.booleans(),
    before=st.integers(0, 6),
    budget=st.integers(0, 90),
)
def test_playout_plays_the_very_moves_of_choice_of_legal_moves(size, seed, swap, before, budget):
    # The fused playout against the plain loop, from the start or after a few moves (the swap
    # ply included), stopping at the end or after ``budget`` plies, whichever comes first.
    game = make_game("hex", {"size": size, "swap": swap})
    mine, reference = game.initial_state(), game.initial_state()
    rng = random.Random(seed)
    for _ in range(before):
        if mine.is_terminal():
            break
        move = rng.choice(mine.legal_moves())
        mine.play(move)
        reference.play(move)
    mine_rng, reference_rng = random.Random(seed + 1), random.Random(seed + 1)
    ended = mine.playout(mine_rng, budget)
    for _ in range(budget):
        if reference.is_terminal():
            break
        reference.play(reference_rng.choice(reference.legal_moves()))
    assert ended == reference.is_terminal()
    assert mine.moves == reference.moves and mine.winner() == reference.winner()
    assert mine.render() == reference.render() and mine.legal_moves() == reference.legal_moves()
    assert mine_rng.random() == reference_rng.random()
    if not ended:  # the playout's state plays on normally
        move = rng.choice(reference.legal_moves())
        mine.play(move)
        reference.play(move)
        assert mine.is_terminal() == reference.is_terminal()


def test_wins_are_detected_at_the_move_that_connects_like_a_flood_fill_says():
    # The incremental edge marks against a plain breadth-first search after every move.
    def connected(state, colour):
        board, n = state.game.board, state.game.options.size
        axis = 0 if colour == 0 else 1
        seen = [i for i, rc in enumerate(board.coords) if rc[axis] == 0 and state.cells[i] == colour]
        reach = set(seen)
        while seen:
            cell = seen.pop()
            if board.coords[cell][axis] == n - 1:
                return True
            for nb in board.neighbours[cell]:
                if nb not in reach and state.cells[nb] == colour:
                    reach.add(nb)
                    seen.append(nb)
        return False

    rng = random.Random(7)
    for _ in range(200):
        state = make_game("hex", {"size": rng.randint(2, 8)}).initial_state()
        while not state.is_terminal():
            mover = state.current_player()
            state.play(rng.choice(state.legal_moves()))
            assert state.is_terminal() == connected(state, mover)
            assert not connected(state, 1 - mover)


def test_legal_moves_stay_right_when_asked_for_only_late_or_after_a_clone():
    moves = ["c3", "swap", "a1", "b2", "e5"]
    state = play(moves[:2], size=5)
    early = state.clone()
    assert len(early.legal_moves()) == 24  # tracking starts here, on the clone only
    for move in moves[2:]:
        state.play(move)
        early.play(move)
    expected = sorted(set(state.game.board.names) - {"a1", "b2", "e5", "c3"})
    assert sorted(state.legal_moves()) == sorted(early.legal_moves()) == expected
    other = early.clone()
    other.play("d4")
    assert "d4" in early.legal_moves() and "d4" not in other.legal_moves()


@settings(max_examples=40, deadline=None)
@given(size=st.integers(2, 7), seed=st.integers(0, 2**32))
def test_a_clone_played_out_leaves_the_original_untouched(size, seed):
    # Every part of the state (stones, edge marks, empty list, moves) must be copied: a clone
    # played to its end must not change the original's later legal moves, winner or chain.
    rng = random.Random(seed)
    game = make_game("hex", {"size": size})
    state = game.initial_state()
    while not state.is_terminal():
        if rng.random() < 0.5:
            state.legal_moves()  # start tracking the empty cells
        branch = state.clone()
        if rng.random() < 0.5:
            branch.playout(rng, 10_000)  # writes through the clone's own lists
        while not branch.is_terminal():
            branch.play(rng.choice(branch.legal_moves()))
        state.play(rng.choice(state.legal_moves()))
    replay = game.initial_state()
    for move in state.moves:
        replay.play(move)
    assert (replay.winner(), replay.details(), replay.render()) == (state.winner(), state.details(), state.render())


def test_a_pickled_position_plays_on_to_the_same_games():
    """The copy keeps the stones' connections to the edges (the marks), not only the stones:
    from a middle game, random playouts of the copy and of the original are the same games."""
    rng = random.Random(7)
    state = play([], size=7)
    for _ in range(14):
        state.play(rng.choice([m for m in state.legal_moves() if m != "swap"]))
    for seed in range(20):
        original, copied = state.clone(), pickle.loads(pickle.dumps(state))
        original.playout(random.Random(seed), 10_000)
        copied.playout(random.Random(seed), 10_000)
        assert (copied.moves, copied.winner()) == (original.moves, original.winner()), seed


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_deep_copies_and_pickles_play_on_their_own_board(how):
    # A state keeps a closure over its own lists: copies must get their own (engines deepcopy
    # states to search, and multiprocessing pickles them).
    state = play(["c3", "swap", "a1"], size=5)
    state.legal_moves()
    copied = copy.deepcopy(state) if how == "deepcopy" else pickle.loads(pickle.dumps(state))
    assert copied.render() == state.render() and copied.moves == state.moves
    before = state.render()
    copied.playout(random.Random(3), 10_000)
    assert state.render() == before and len(state.legal_moves()) == 23 and not state.is_terminal()
    assert copied.is_terminal() and copied.winner() is not None
    replay = play(copied.moves, size=5)
    assert replay.render() == copied.render() and replay.winner() == copied.winner()
    if how == "deepcopy":
        assert copied.game is state.game  # the rules are shared, as clone() does


def test_games_that_say_their_seats_take_turns_do_so_to_the_end():
    """The statistics count a record's movers without replaying it when its game says the
    seats take turns (``Game.takes_turns``): random games, the swap included, bear it out."""
    import random

    from arena.rules import GAMES, make_game

    declared = [name for name in GAMES if make_game(name).takes_turns]
    assert "hex" in declared
    for name in declared:
        for options in ({}, {"size": 3, "swap": True}) if name == "hex" else ({},):
            game = make_game(name, options)
            for seed in range(30):
                state, rng = game.initial_state(seed), random.Random(seed)
                start, ply = state.current_player(), 0
                while not state.is_terminal():
                    assert state.current_player() == (start + ply) % game.players
                    state.play(state.random_move(rng))
                    ply += 1


def test_the_text_board_shows_red_blue_and_empty_cells_under_column_letters_and_row_numbers():
    assert play(["a1", "b2"], size=3).render() == "    a b c\n  1 R . .\n  2  . B .\n  3   . . ."


def test_the_picture_colours_red_edges_top_and_bottom_and_blue_edges_left_and_right():
    """The seed: Red joins the top and bottom rows, Blue the left and right columns; an acute
    corner (a1, c3) touches both, the obtuse ones (c1, a3) face one of each across a side."""
    game = make_game("hex", {"size": 3})
    picture = game.picture()
    names = game.board.names
    edges = {(names[e.cell], e.side, e.colour) for e in picture.edges}
    red = {(c, s) for c, s, colour in edges if colour == "red"}
    blue = {(c, s) for c, s, colour in edges if colour == "blue"}
    assert red == {("a1", 0), ("a1", 5), ("b1", 0), ("b1", 5), ("c1", 0), ("c1", 5)} | {
        ("a3", 2),
        ("a3", 3),
        ("b3", 2),
        ("b3", 3),
        ("c3", 2),
        ("c3", 3),
    }
    assert blue == {("a1", 3), ("a1", 4), ("a2", 3), ("a2", 4), ("a3", 4)} | {
        ("c1", 1),
        ("c2", 0),
        ("c2", 1),
        ("c3", 0),
        ("c3", 1),
    }
    assert len(picture.edges) == len(edges)
    assert [(names[label.cell], label.text, label.where) for label in picture.labels] == [
        ("a1", "a", "above"), ("b1", "b", "above"), ("c1", "c", "above"),
        ("a1", "1", "left"), ("a2", "2", "left"), ("a3", "3", "left"),
    ]  # fmt: skip
    state = play(["a1", "b2"], size=3)
    drawn = [picture.codes[state.cells[game.board.index(cell)]] for cell in ("a1", "b2", "c3")]
    assert drawn == ["red", "blue", ""] and picture.layout == "cells"
    assert [mark.name for mark in picture.marks] == ["last", "chain"]


def test_the_check_engine_positions_leave_one_move_after_a_swap_and_no_swap_when_it_is_off():
    game = make_game("hex", {"size": 5})
    after_swap, swap_off = (position.build() for position in game.check_positions(lambda g, seed: g.initial_state()))
    assert after_swap.moves[:2] == ["b3", "swap"] and not after_swap.is_terminal()
    assert after_swap.current_player() == 1 and after_swap.legal_moves() == ["b3"]
    assert swap_off.moves == ["b3"] and swap_off.current_player() == 1
    assert "swap" not in swap_off.legal_moves() and len(swap_off.legal_moves()) == 24
    assert game.options.swap  # the position's own game turned the swap off, not the one asked


def test_a_game_without_hidden_information_refuses_a_private_line():
    with pytest.raises(ValueError, match="^hex sends no private information, got 'hidden red'$"):
        play([], size=3).apply_private(0, "hidden red")


def test_a_game_in_progress_says_it_is_not_over_and_outside_programs_keep_unknown_tokens():
    assert play([], size=3).end_reason() == "not over"
    translation = make_game("hex", {"size": 7}).translation()
    assert translation is not None and translation.outside("resign", True) == "resign"


def test_a_playout_from_the_first_stone_plays_exactly_its_budget_and_an_unfinished_game_has_no_chain():
    """With the swap on, the fused playout takes the swap ply the long way, then goes on with
    what is left of the budget: as many plies as asked, as the base class's loop plays."""
    state = play(["c3"], size=5)
    assert state.details() == {}
    assert not state.playout(random.Random(4), 3) and len(state.moves) == 4


def test_a_clone_of_a_won_game_keeps_its_winner():
    state = play(["a1", "b1", "a2", "b2", "a3", "b3", "a4"], size=4, swap=False)
    assert state.clone().winner() == 0 and state.clone().is_terminal()


def first_shortest_chain(state):
    """The winning chain by a plain breadth-first search over coordinates (from the winner's
    first-edge stones in board order, neighbours in board order): the chain the referee names."""
    from collections import deque

    board, colour, n = state.game.board, state.winner(), state.game.options.size
    axis = 0 if colour == 0 else 1
    starts = [i for i, rc in enumerate(board.coords) if rc[axis] == 0 and state.cells[i] == colour]
    came_from = {s: None for s in starts}
    queue = deque(starts)
    while queue:
        cell = queue.popleft()
        if board.coords[cell][axis] == n - 1:
            chain = []
            while cell is not None:
                chain.append(board.names[cell])
                cell = came_from[cell]
            return chain[::-1]
        for nb in board.neighbours[cell]:
            if nb not in came_from and state.cells[nb] == colour:
                came_from[nb] = cell
                queue.append(nb)
    raise AssertionError("no chain")


@pytest.mark.parametrize("size", [2, 3, 7, 11])
def test_the_winning_chain_and_the_ending_are_the_first_shortest_chain(size):
    for seed in range(20):
        rng = random.Random(seed)
        state = make_game("hex", {"size": size, "swap": True}).initial_state()
        while not state.is_terminal():
            state.play(state.random_move(rng))
        chain = first_shortest_chain(state)
        assert state.winning_chain() == chain
        assert state.ending(["r", "b"]).marks == {"chain": [state.game.board.index(c) for c in chain]}


@pytest.mark.parametrize("swap", [False, True])
def test_play_placements_puts_each_stone_as_play_does_and_stops_where_play_must_judge(swap):
    game = make_game("hex", {"size": 4, "swap": swap})
    rng = random.Random(3)
    for _ in range(12):
        whole = game.initial_state()
        while not whole.is_terminal():
            whole.play(whole.random_move(rng))
        moves = list(whole.moves)
        plain = moves.index("swap") if "swap" in moves else len(moves)  # a swap is play's to judge
        for cut in {max(1, plain // 2), plain}:  # a game in progress and the whole game (or up to its swap)
            for tracked in (False, True):  # with the state's list of empty cells kept, and without
                fast, slow = game.initial_state(), game.initial_state()
                if tracked:
                    fast.legal_moves()
                placed = fast.play_placements([*moves[:cut], moves[0], "c3"])  # then an occupied cell
                for move in moves[:cut]:
                    slow.play(move)
                assert [seat for seat, _, _ in placed] == [ply & 1 for ply in range(cut)]
                assert all(piece == seat == fast.cells[cell] for seat, cell, piece in placed)
                assert len({cell for _, cell, _ in placed}) == cut
                assert (fast.cells, fast.moves, fast.winner(), fast.is_terminal()) == (
                    slow.cells,
                    slow.moves,
                    slow.winner(),
                    slow.is_terminal(),
                )
                if not slow.is_terminal():
                    assert fast.legal_moves() == slow.legal_moves()
                    assert fast.random_move(random.Random(5)) == slow.random_move(random.Random(5))
        assert whole.play_placements(["a1"]) == [] and whole.moves == moves  # over: nothing more


@pytest.mark.parametrize(
    "moves, move, said",
    [
        (["a1", "b1", "a2", "b2", "a3", "b3", "a4"], "d4", "the game is over"),
        (["c3", "d4"], "c3", "c3 is already occupied"),
        (["c3"], "z9", "not a cell of the 5x5 board"),
        (["c3", "d4"], "swap", "only allowed as Blue's first move"),
        ([], "swap", "only allowed as Blue's first move"),
    ],
)
def test_a_refusal_names_the_move_refused(moves, move, said):
    state = play(moves, size=4 if len(moves) > 2 else 5, swap=len(moves) <= 2)
    with pytest.raises(IllegalMove) as err:
        state.play(move)
    assert err.value.move == move and str(err.value).startswith(f"illegal move {move!r}: ")
    assert said in err.value.reason
    off = play(["c3"], size=5, swap=False)
    with pytest.raises(IllegalMove) as err:
        off.play("swap")
    assert err.value.move == "swap" and "swap rule is off" in err.value.reason


def test_the_refusals_of_a_finished_game_and_of_a_swap_state_the_rule_in_full():
    over = play(["a1", "b1", "a2", "b2", "a3", "b3", "a4"], size=4, swap=False)
    with pytest.raises(IllegalMove) as err:
        over.play("d4")
    assert err.value.reason == "the game is over"
    with pytest.raises(IllegalMove) as err:
        play([], size=5).play("swap")
    assert err.value.reason == "swap is only allowed as Blue's first move, right after Red's first stone"
    with pytest.raises(IllegalMove) as err:
        play(["c3"], size=5, swap=False).play("swap")
    assert err.value.reason == "the swap rule is off in this game"
