"""State.playout, the rollout every ruleset offers: the same moves as the plain loop of
random_move() and play(), a budget that is honoured, and a finished game at the end."""

import random

import pytest

from arena.rules import GAMES, make_game
from arena.rules.base import State


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_playout_plays_random_move_until_the_end_or_the_budget(game_name, seed):
    game = make_game(game_name)
    budget = 7
    state, rng = game.initial_state(seed), random.Random(seed)
    assert state.playout(rng, budget) is state.is_terminal()
    assert len(state.moves) <= budget
    reference, reference_rng = game.initial_state(seed), random.Random(seed)
    for _ in range(budget):
        if not reference.is_terminal():
            reference.play(reference.random_move(reference_rng))
    assert state.moves == reference.moves
    assert state.playout(rng, 100_000) is True
    assert state.is_terminal() and len(state.scores()) == game.players
    replay = game.initial_state(seed)
    for move in state.moves:                     # every move was legal
        replay.play(move)
    assert replay.is_terminal() and replay.scores() == state.scores()
    with pytest.raises(ValueError, match="over"):
        state.random_move(rng)


def test_the_default_random_move_is_choice_of_legal_moves():
    # Bases has no sampler of its own, so it shows the base class's.
    game = make_game("bases")
    state, mine, reference = game.initial_state(), random.Random(5), random.Random(5)
    for _ in range(20):
        move = State.random_move(state, mine)
        assert move == reference.choice(state.legal_moves())
        state.play(move)
