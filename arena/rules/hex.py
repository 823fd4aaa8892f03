"""Hex on an n x n rhombus, with the optional swap rule (docs/rules/hex.md).

Seat 0 is Red: moves first and joins the top and bottom rows.  Seat 1 is Blue
and joins the left and right columns.  Connectivity is tracked incrementally
with a union-find over the cells plus four virtual edge nodes, so a move costs
a handful of list operations whatever the board size.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from pydantic import Field

from ..hexgrid import Board
from .base import Game, GameOptions, IllegalMove, State

EMPTY = -1
RED, BLUE = 0, 1
COLOUR_NAMES = ("Red", "Blue")
SWAP = "swap"


class HexOptions(GameOptions):
    size: int = Field(11, ge=2, le=26, description="cells per side of the rhombus")
    swap: bool = Field(True, description="Blue may answer Red's first stone with 'swap'")


class HexGame(Game):
    name = "hex"
    Options = HexOptions
    options: HexOptions

    def __init__(self, options: HexOptions) -> None:
        super().__init__(options)
        self.board = Board.rhombus(options.size)
        n = options.size
        cells = len(self.board)
        # Virtual nodes: TOP, BOTTOM (Red's edges), LEFT, RIGHT (Blue's edges).
        self.top, self.bottom, self.left, self.right = cells, cells + 1, cells + 2, cells + 3
        self.edge_links: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for i, (r, c) in enumerate(self.board.coords):
            red = tuple(e for e, hit in ((self.top, r == 0), (self.bottom, r == n - 1)) if hit)
            blue = tuple(e for e, hit in ((self.left, c == 0), (self.right, c == n - 1)) if hit)
            self.edge_links.append((red, blue))

    def initial_state(self, seed: int = 0) -> "HexState":
        return HexState(self)


class HexState(State):
    __slots__ = ("game", "cells", "parent", "_moves", "_winner")

    def __init__(self, game: HexGame) -> None:
        self.game = game
        self.cells = [EMPTY] * len(game.board)
        self.parent = list(range(len(game.board) + 4))
        self._moves: list[str] = []
        self._winner: int | None = None

    # -- queries --------------------------------------------------------------

    @property
    def moves(self) -> list[str]:
        return self._moves

    def current_player(self) -> int:
        return len(self._moves) & 1

    def is_terminal(self) -> bool:
        return self._winner is not None

    def winner(self) -> int | None:
        return self._winner

    def scores(self) -> list[float]:
        if self._winner is None:
            raise ValueError("the game is not over")
        return [1.0, 0.0] if self._winner == RED else [0.0, 1.0]

    def end_reason(self) -> str:
        return f"{COLOUR_NAMES[self._winner]} connected" if self._winner is not None else "not over"

    def swap_allowed(self) -> bool:
        return self.game.options.swap and len(self._moves) == 1 and self._moves[0] != SWAP

    def legal_moves(self) -> list[str]:
        if self._winner is not None:
            return []
        names = self.game.board.names
        legal = [names[i] for i, v in enumerate(self.cells) if v == EMPTY]
        if self.swap_allowed():
            legal.append(SWAP)
        return legal

    # -- moves ----------------------------------------------------------------

    def play(self, move: str) -> None:
        if self._winner is not None:
            raise IllegalMove(move, "the game is over")
        cell = self.game.board.lookup(move)
        if cell is None:
            if move == SWAP:
                return self._swap()
            raise IllegalMove(move, self._not_a_cell(move))
        if self.cells[cell] != EMPTY:
            raise IllegalMove(move, f"{move} is already occupied")
        self._place(cell, len(self._moves) & 1)
        self._moves.append(move)

    def _not_a_cell(self, move: str) -> str:
        n = self.game.options.size
        last = f"{chr(ord('a') + n - 1)}{n}"
        return f"not a cell of the {n}x{n} board (cells are a1..{last}, or 'swap')"

    def _swap(self) -> None:
        if not self.swap_allowed():
            if not self.game.options.swap:
                raise IllegalMove(SWAP, "the swap rule is off in this game")
            raise IllegalMove(SWAP, "swap is only allowed as Blue's first move, right after Red's first stone")
        board = self.game.board
        first = board.index(self._moves[0])
        r, c = board.coords[first]
        self.cells[first] = EMPTY
        self.parent = list(range(len(self.parent)))
        self._place(board.at(c, r), BLUE)
        self._moves.append(SWAP)

    def _place(self, cell: int, colour: int) -> None:
        game = self.game
        cells, parent = self.cells, self.parent
        cells[cell] = colour
        find = self._find
        root = find(cell)
        for edge in game.edge_links[cell][colour]:
            other = find(edge)
            if other != root:
                parent[other] = root
        for n in game.board.neighbours[cell]:
            if cells[n] == colour:
                other = find(n)
                if other != root:
                    parent[other] = root
        if colour == RED:
            if find(game.top) == find(game.bottom):
                self._winner = RED
        elif find(game.left) == find(game.right):
            self._winner = BLUE

    def _find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    # -- the rest -------------------------------------------------------------

    def clone(self) -> "HexState":
        other = HexState.__new__(HexState)
        other.game = self.game
        other.cells = self.cells[:]
        other.parent = self.parent[:]
        other._moves = self._moves[:]
        other._winner = self._winner
        return other

    def winning_chain(self) -> list[str]:
        """A shortest chain of the winner's stones joining their two edges."""
        if self._winner is None:
            return []
        board, colour = self.game.board, self._winner
        n = self.game.options.size
        axis = 0 if colour == RED else 1  # Red: rows, Blue: columns
        starts = [i for i, rc in enumerate(board.coords) if rc[axis] == 0 and self.cells[i] == colour]
        came_from: dict[int, int | None] = {s: None for s in starts}
        queue = deque(starts)
        while queue:
            cell = queue.popleft()
            if board.coords[cell][axis] == n - 1:
                chain = []
                node: int | None = cell
                while node is not None:
                    chain.append(board.names[node])
                    node = came_from[node]
                return chain[::-1]
            for nb in board.neighbours[cell]:
                if nb not in came_from and self.cells[nb] == colour:
                    came_from[nb] = cell
                    queue.append(nb)
        raise AssertionError("winner without a chain")  # unreachable: union-find says connected

    def details(self) -> dict[str, Any]:
        return {"winning_chain": self.winning_chain()} if self._winner is not None else {}

    def render(self) -> str:
        symbols = {EMPTY: ".", RED: "R", BLUE: "B"}
        cells = self.cells
        return self.game.board.render(lambda i: symbols[cells[i]])
