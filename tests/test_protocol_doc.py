"""PROTOCOL.md's board formulas, neighbours, swap example and seat table are the referee's."""

from __future__ import annotations

import random
from pathlib import Path

from arena.rules import make_game
from arena.rules.hexgrid import Board
from arena.rules.posies import standard_board

SPEC = (Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md").read_text()


def cells(rows, cols, keep) -> list[str]:
    return [f"{chr(97 + c)}{r + 1}" for r in range(rows) for c in range(cols) if keep(r, c)]


def test_the_board_formulas_are_the_boards():
    assert "| 0 ≤ r < 2s − 1, 0 ≤ c < 2s − 1, s − 1 ≤ r + c ≤ 3s − 3 | 3s² − 3s + 1 |" in SPEC
    assert "| 0 ≤ r < 7, 0 ≤ c < 9, 3 ≤ r + c ≤ 11 | 51 |" in SPEC
    for n in (2, 5, 11, 26):
        assert list(Board.rhombus(n).names) == cells(n, n, lambda r, c: True)
    for s in (2, 3, 5, 8, 13):
        board = Board.hexhex(s)
        assert list(board.names) == cells(2 * s - 1, 2 * s - 1, lambda r, c, s=s: s - 1 <= r + c <= 3 * s - 3)
        assert len(board) == 3 * s * s - 3 * s + 1
    assert list(standard_board().names) == cells(7, 9, lambda r, c: 3 <= r + c <= 11)


def test_the_neighbour_rule_and_its_example():
    assert "touches `a2`, `c2`, `b1`, `c1`, `b3`, `a3`" in SPEC
    board = Board.hexhex(5)
    for i, (r, c) in enumerate(board.coords):
        rule = {(r, c - 1), (r, c + 1), (r - 1, c), (r - 1, c + 1), (r + 1, c), (r + 1, c - 1)}
        assert {board.coords[n] for n in board.neighbours[i]} == {rc for rc in rule if rc in board.coords}
    b2 = Board.rhombus(5).index("b2")
    assert {Board.rhombus(5).names[n] for n in Board.rhombus(5).neighbours[b2]} == {"a2", "c2", "b1", "c1", "b3", "a3"}


def test_the_off_diagonal_swap_example():
    assert "one **Blue** stone on\n`b5`" in SPEC
    state = make_game("hex", {"size": 5}).initial_state()
    state.play("e2")
    state.play("swap")
    board = state.game.board
    assert state.cells[board.index("b5")] == 1 and state.cells[board.index("e2")] == -1
    assert state.current_player() == 0
    state.play("e2")  # empty again: Red may take it


def test_the_seat_table():
    expected = {
        "hex": [0, 1, 0, 1, 0, 1],
        "groups": [0, 1, 1, 0, 1, 0],
        "bases": [0, 1, 0, 1, 0, 1],
        "hexgo": [0, 1, 0, 1, 0, 1],
        "posies": [0, 1, 2, 0, 1, 2],
    }
    options = {"hex": {"size": 5}, "groups": {"size": 4}, "hexgo": {"size": 4}, "posies": {"players": 3}}
    for name, seats in expected.items():
        rng = random.Random(1)
        state = make_game(name, options.get(name, {})).initial_state(1)
        seen = []
        while len(seen) < len(seats) and not state.is_terminal():
            seen.append(state.current_player())
            state.play(state.random_move(rng))
        assert len(seen) >= 3 and seen == seats[: len(seen)], (name, seen)


def test_the_posies_setup_token_is_as_the_spec_defines_it():
    """One letter per point in reading order (the formula's cells), p/u/g, 17 of each."""
    assert "token of 51 letters, one per point in reading order" in SPEC
    names = cells(7, 9, lambda r, c: 3 <= r + c <= 11)
    game = make_game("posies", {"players": 2})
    for seed in range(5):
        state = game.initial_state(seed)
        token = state.setup_token()
        assert len(token) == 51 and all(token.count(letter) == 17 for letter in "pug")
        for name, letter in zip(names, token):
            assert "pug"[state.cells[game.board.names.index(name)]] == letter
