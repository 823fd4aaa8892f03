"""The Hex search domain's bridge-saving rollout: its winner is the referee's on
filled boards, it answers an intrusion into a bridge (between stones and to the
edge) in the other carrier cell, and it is fixed by the search's seeded rng."""

from __future__ import annotations

import random

import pytest

from arena.rules import make_game
from arena.rules.hex import BLUE, RED, HexState
from engines.search import mcts
from engines.search.engine import SearchEngine
from engines.search.hex import HexDomain, bridge_fill, red_connects
from protocol.sdk import Clock


def position(size: int, moves: list[str], swap: bool = False) -> HexState:
    state = make_game("hex", {"size": size, "swap": swap}).initial_state()
    for move in moves:
        state.play(move)
    return state


def referee_winner(size: int, start: HexState, order: list[int]) -> int | None:
    """The referee's winner for the rollout's order of play from ``start``."""
    state = start.clone()
    names = state.game.board.names
    for cell in order:
        if state.is_terminal():
            break
        state.play(names[cell])
    return state.winner()


@pytest.mark.parametrize("size", [2, 3, 5, 9])
def test_the_rollout_winner_is_the_referees_on_random_fills(size):
    rng = random.Random(size)
    neighbours = make_game("hex", {"size": size}).board.neighbours
    winners = set()
    for _ in range(300 if size < 9 else 150):
        start = position(size, [])
        for _ in range(rng.randrange(size * size // 2 + 1)):  # a random position part filled
            if start.is_terminal():
                break
            start.play(start.random_move(rng))
        if start.is_terminal():
            continue
        cells, order = bridge_fill(start, rng)
        assert sorted(order + [i for i, v in enumerate(start.cells) if v >= 0]) == list(range(size * size))
        red = red_connects(cells, size, neighbours)
        assert referee_winner(size, start, order) == (RED if red else BLUE)
        winners.add(red)
    assert winners == {True, False}  # both outcomes seen: the check can tell them apart


@pytest.mark.parametrize(
    "moves, intrusion, answer",
    [
        (["c2", "a5", "b4"], "b3", "c3"),  # Red's bridge c2-b4 (carrier b3, c3)
        (["c2", "a5", "b4"], "c3", "b3"),
        (["b2"], "b1", "c1"),  # Red's b2 to the top edge (carrier b1, c1)
        (["e5", "b2"], "a2", "a3"),  # Blue's b2 to the left edge (carrier a2, a3)
    ],
)
def test_the_rollout_answers_a_bridge_intrusion_in_the_other_carrier(moves, intrusion, answer):
    state = position(5, moves + [intrusion])
    for seed in range(20):
        _, order = bridge_fill(state, random.Random(seed))
        assert state.game.board.names[order[0]] == answer
    mover = len(state.moves) & 1
    _, played = HexDomain("edge").rollout(state.clone(), random.Random(0))
    assert played[0] == (mover, answer)
    # Without an intrusion (the last stone elsewhere) the reply is not forced.
    free = position(5, moves + ["e1" if intrusion != "e1" else "d1"])
    firsts = {free.game.board.names[bridge_fill(free, random.Random(s))[1][0]] for s in range(20)}
    assert len(firsts) > 3


def test_the_uniform_rollout_is_the_rules_playout():
    state = position(5, ["c2", "a5", "b4", "b3"])
    rewards, played = HexDomain("edge", "uniform").rollout(state.clone(), random.Random(3))
    reference = state.clone()
    reference.playout(random.Random(3), 100)
    assert [m for _, m in played] == reference.moves[4:]
    assert rewards == reference.scores()


def test_same_seed_same_rollout_and_same_move():
    state = position(9, ["e5", "swap", "c3", "d4"], swap=True)
    domain = HexDomain("edge")
    assert domain.rollout(state.clone(), random.Random(5)) == domain.rollout(state.clone(), random.Random(5))
    assert domain.rollout(state.clone(), random.Random(5)) != domain.rollout(state.clone(), random.Random(6))

    def move(seed: int) -> str:
        return mcts.search(HexDomain("edge"), state.clone(), random.Random(seed), 300).move

    assert move(11) == move(11)
    assert move(11) in state.legal_moves()


def test_the_rollout_option_is_checked_and_reaches_the_domain():
    engine = SearchEngine()
    with pytest.raises(SystemExit, match="rollout.*bridges, uniform"):
        engine.on_option("rollout", "smart")
    engine.on_option("rollout", "uniform")
    engine.on_option("iterations", "50")
    engine.rng = random.Random(1)
    state = position(5, ["c2", "a5"], swap=True)
    assert engine.choose_move(state.clone(), Clock(0, None, None, None)) in state.legal_moves()
