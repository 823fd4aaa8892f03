"""State.playout, the rollout every ruleset offers: the same moves as the plain loop of
random_move() and play(), a budget that is honoured, and a finished game at the end."""

import random

import pytest

from arena.rules import GAMES, make_game


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_playout_plays_random_move_until_the_end_or_the_budget(game_name, seed):
    game = make_game(game_name)
    budget = 7
    state, rng = game.initial_state(seed), random.Random(seed)
    ended = state.playout(rng, budget)
    assert ended is state.is_terminal() and (len(state.moves) == budget or ended)
    reference, reference_rng = game.initial_state(seed), random.Random(seed)
    for _ in range(budget):
        if not reference.is_terminal():
            reference.play(reference.random_move(reference_rng))
    assert state.moves == reference.moves
    assert state.playout(rng, 100_000) is True  # and the rest of the game
    assert state.is_terminal() and len(state.scores()) == game.players
    moves = len(state.moves)
    assert state.playout(rng, 10) is True and len(state.moves) == moves  # over: nothing more
    replay = game.initial_state(seed)
    for move in state.moves:  # every move was legal
        replay.play(move)
    assert replay.is_terminal() and replay.scores() == state.scores()
    with pytest.raises(ValueError, match="over"):
        state.random_move(rng)


@pytest.mark.parametrize("game_name", ["bases", "hexgo", "posies"])
def test_random_move_draws_like_choice_of_legal_moves_where_a_game_has_no_sampler(game_name):
    game = make_game(game_name)
    state, mine, reference = game.initial_state(3), random.Random(5), random.Random(5)
    while not state.is_terminal():
        move = state.random_move(mine)
        assert move == reference.choice(state.legal_moves())
        state.play(move)
