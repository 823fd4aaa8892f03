"""Batched Hex playouts (arena.rules.hexfill) against the referee: from the same draws,
the very same games (every move, the winner, the length), from the start and from
positions in progress, with and without the swap played."""

import random

import numpy as np
import pytest

from arena.rules import make_game
from arena.rules.hexfill import fill, random_orders, referee_order


def position(size: int, swap: bool, plies: int, seed: int):
    """A position ``plies`` random moves in (the swap taken when it is on), not yet over."""
    game = make_game("hex", {"size": size, "swap": swap})
    state, rng = game.initial_state(), random.Random(seed)
    while len(state.moves) < plies:
        move = "swap" if state.swap_allowed() else state.random_move(rng)
        state.play(move)
    assert not state.is_terminal()
    return state


@pytest.mark.parametrize("size,swap,plies", [(5, False, 0), (7, True, 2), (7, True, 5), (9, False, 8), (12, False, 3)])
def test_the_referees_own_playout_is_the_batched_game_along_its_draws(size, swap, plies):
    start = position(size, swap, plies, seed=size + plies)
    orders, games = [], []
    for seed in range(40):
        orders.append(referee_order(start, random.Random(seed)))
        game = start.clone()
        assert game.playout(random.Random(seed), 10_000)
        games.append(game)
    filled = fill(start, np.array(orders))
    names = start.game.board.names
    for order, game, plies_played, winner in zip(orders, games, filled.plies, filled.winners):
        assert game.moves[len(start.moves) :] == [names[c] for c in order[:plies_played]]
        assert game.winner() == winner


def test_batched_orders_replayed_move_by_move_through_the_referee_end_where_fill_says():
    start = position(6, True, 3, seed=1)
    orders = random_orders(start, np.random.default_rng(7), 300)
    filled = fill(start, orders)
    names = start.game.board.names
    assert set(filled.winners.tolist()) == {0, 1}  # both colours win some: the test can tell them apart
    for order, plies_played, winner in zip(orders.tolist(), filled.plies.tolist(), filled.winners.tolist()):
        game = start.clone()
        for cell in order:
            game.play(names[cell])
            if game.is_terminal():
                break
        assert (len(game.moves) - len(start.moves), game.winner()) == (plies_played, winner)


def test_a_position_where_swap_may_come_next_is_refused():
    start = position(5, True, 1, seed=3)
    with pytest.raises(ValueError, match="past the swap"):
        fill(start, random_orders(start, np.random.default_rng(0), 2))
