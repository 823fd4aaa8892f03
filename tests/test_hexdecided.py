"""Hex's decided positions (arena/rules/hexdecided.py): chains of safe, disjoint gaps are
found on hand-made positions whose winner is plain, a position that looks close but is not
won is left alone, and on 4x4 boards every position called decided is checked against an
exact solver.  Then the adjudication itself, in a game between real engine processes."""

from __future__ import annotations

import random
import sys

from helpers import ROOT

from arena.adjudication import Adjudication
from arena.engine import EngineSpec, open_engine
from arena.match import TimeControl, play_game
from arena.record import Termination, adjudged_result
from arena.results.verify import parse_record, verify_record
from arena.rules import make_game
from arena.rules.hex import HexState

RED, BLUE = 0, 1


def position(size: int, moves: str, swap: bool = False) -> HexState:
    state = make_game("hex", {"size": size, "swap": swap}).initial_state()
    for move in moves.split():
        state.play(move)
    assert isinstance(state, HexState) and not state.is_terminal()
    return state


def solved_winner(state: HexState) -> int:
    """Who wins with best play from here (negamax over every continuation, positions memoised)."""
    memo: dict[tuple[int, ...], bool] = {}

    def mover_wins(s: HexState) -> bool:
        key = tuple(s.cells)
        if key not in memo:
            mover = len(s.moves) & 1
            memo[key] = False
            for move in s.legal_moves():
                after = s.clone()
                after.play(move)
                if after.winner() == mover or not mover_wins(after):
                    memo[key] = True
                    break
        return memo[key]

    mover = len(state.moves) & 1
    return mover if mover_wins(state) else 1 - mover


def test_a_chain_of_a_bridge_and_two_edge_templates_is_decided_whoever_moves():
    """Red c2 (template to the top: c1, d1), the bridge c2-b4 (b3, c3), b4 (template to the
    bottom: a5, b5); Blue's stones are out of the way."""
    assert position(5, "c2 e5 b4 e4").decided_winner() == RED  # Red to move
    assert position(5, "c2 e5 b4").decided_winner() == RED  # Blue to move


def test_the_same_chain_for_blue_joins_the_columns():
    """The transposed position: Blue's b3 and d2 bridged (c2, c3), each a template from its edge."""
    assert position(5, "e5 b3 e4 d2").decided_winner() == BLUE


def test_an_answered_intrusion_keeps_the_win():
    """Blue takes b3, one cell of the bridge; Red answers c3, the other, and is joined."""
    assert position(5, "c2 e5 b4 b3 c3").decided_winner() == RED
    # Not answered yet: the test reads the position as it stands, and the bridge is gone.
    assert position(5, "c2 e5 b4 b3").decided_winner() is None


def test_a_position_that_looks_close_but_is_not_won_is_not_decided():
    """Red's chain needs two gaps that share a cell: Blue, to move, wins (the solver says so)."""
    state = position(4, "c1 d3 a2 b2 d2 a1 b3")
    assert solved_winner(state) == BLUE
    assert state.decided_winner() is None


def test_no_position_is_decided_while_the_swap_may_come():
    state = position(2, "a2", swap=True)
    assert state.decided_winner() is None
    state.play("b1")
    assert state.decided_winner() in (None, RED, BLUE)


def test_every_decided_4x4_position_is_won_by_best_play():
    """Random positions of 4-8 stones (fixed seed): whenever the test calls one decided, the
    exact solver agrees; and it calls a good share of them decided, so the check has teeth."""
    game = make_game("hex", {"size": 4, "swap": False})
    rng = random.Random(5)
    decided = 0
    for _ in range(300):
        state = game.initial_state()
        for _ in range(rng.randint(4, 8)):
            state.play(state.random_move(rng))
            if state.is_terminal():
                break
        if state.is_terminal() or (winner := state.decided_winner()) is None:
            continue
        decided += 1
        assert isinstance(state, HexState) and solved_winner(state) == winner, state.moves
    assert decided >= 40


def test_a_decided_game_ends_as_the_decided_seats_win():
    specs = [EngineSpec(n, (sys.executable, "-m", "engines.random_engine"), cwd=str(ROOT)) for n in ("a", "b")]
    engines = [open_engine(s) for s in specs]
    try:
        for e in engines:
            e.start()
        record = play_game(
            make_game("hex", {"size": 5, "swap": False}),
            engines,
            seed=5,  # random play reaches a decided position at ply 10 (some seeds play to the end)
            time_control=TimeControl(movetime_ms=5000),
            adjudication=Adjudication(decided=True),
        ).record
    finally:
        for e in engines:
            e.quit()
    assert record.termination is Termination.DECIDED
    verdict = verify_record(record)
    assert verdict["ok"] and not verdict["over"], verdict
    state = position(5, " ".join(record.moves))
    assert record.winner == state.decided_winner() and adjudged_result(state, Termination.DECIDED)[0] == record.scores
    before = position(5, " ".join(record.moves[:-1]))
    assert before.decided_winner() is None  # ended at the first move that decided it


def test_verify_refuses_a_decided_record_whose_position_is_not():
    record = verify_record(
        parse_record(
            {
                "game": "hex",
                "options": {"size": 5, "swap": False},
                "moves": ["c2", "b3"],
                "termination": "decided",
                "winner": 0,
                "scores": [1.0, 0.0],
                "places": [0, 1],
            }
        )
    )
    assert not record["ok"]
    assert record["mismatches"][0]["reason"] == "the position is not decided"


def test_a_search_that_runs_out_of_steps_says_not_decided():
    """A 13x13 lattice of Red stones, each bridged to six others, with Blue's two last rows shut:
    the search runs out of steps before it has tried every path, and then says not decided
    (with the rows open the chain is found at once)."""
    from arena.rules.hexdecided import has_unstoppable_chain
    from arena.rules.hexgrid import Board

    size = 13
    board = Board.rhombus(size)

    def lattice(shut: bool) -> list[int]:
        return [BLUE if shut and r >= size - 2 else RED if (r - c) % 3 == 0 else -1 for r, c in board.coords]

    assert has_unstoppable_chain(board, size, lattice(shut=False), RED, -1)
    assert not has_unstoppable_chain(board, size, lattice(shut=True), RED, -1)
