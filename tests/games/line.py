"""Line: a game arena does not know, registered by the tests (docs/adding-a-game.md).

Two players take turns placing a stone on an empty cell of an n x n hex rhombus (Red,
seat 0, first); the first with ``length`` stones in a straight line wins, a full board is
a draw.  It uses nothing of arena but ``arena.rules``, as a game of another package would.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.rules import Game, GameOptions, IllegalMove, State
from arena.rules.base import CheckPosition, Start, option
from arena.rules.hexgrid import Board
from arena.rules.picture import LAST_MOVE, BoardPicture, Ending, Mark

EMPTY, RED, BLUE = -1, 0, 1


class LineOptions(GameOptions):
    size: int = option(4, ge=2, le=9, description="cells per side of the rhombus")
    length: int = option(3, ge=2, le=9, description="stones in a row that win")


class LineGame(Game):
    name = "line"
    Options = LineOptions
    seat_names = ("red", "blue")
    check_options = {"size": 3}
    options: LineOptions

    def __init__(self, options: LineOptions) -> None:
        super().__init__(options)
        self.board = Board.rhombus(options.size)

    @property
    def max_plies(self) -> int:
        return len(self.board)

    def initial_state(self, seed: int = 0) -> LineState:
        return LineState(self)

    def picture(self) -> BoardPicture:
        marks = (LAST_MOVE, Mark("chain", "the winning line"))
        return BoardPicture(self.board, "cells", {EMPTY: "", RED: "red", BLUE: "blue"}, marks=marks)

    def check_positions(self, start: Start) -> list[CheckPosition]:
        def one_cell_left() -> State:
            state = self.initial_state()
            for move in ("a1", "b1", "c1", "a2", "b2", "c2", "b3", "a3"):
                state.play(move)
            return state

        return [CheckPosition("one cell left (c3)", one_cell_left)]


class LineState(State):
    game: LineGame
    cells: list[int]

    def __init__(self, game: LineGame) -> None:
        self.game = game
        self.cells = [EMPTY] * len(game.board)
        self._moves: list[str] = []
        self._line: list[int] = []  # the winning line, once there is one

    def is_terminal(self) -> bool:
        return bool(self._line) or len(self._moves) == len(self.cells)

    def legal_moves(self) -> list[str]:
        if self.is_terminal():
            return []
        return [self.game.board.names[i] for i, v in enumerate(self.cells) if v == EMPTY]

    def play(self, move: str) -> None:
        if self.is_terminal():
            raise IllegalMove(move, "the game is over")
        cell = self.game.board.lookup(move)
        if cell is None:
            raise IllegalMove(move, "not a cell of this board")
        if self.cells[cell] != EMPTY:
            raise IllegalMove(move, "the cell is taken")
        colour = self.current_player()
        self.cells[cell] = colour
        self._moves.append(move)
        self._line = self._longest_through(cell, colour)

    def _longest_through(self, cell: int, colour: int) -> list[int]:
        """A line of ``length`` of ``colour``'s stones through ``cell``, else []."""
        board = self.game.board
        for d in range(3):
            line = [cell]
            for way in (d, d + 3):
                for other in board.ray(cell, way):
                    if self.cells[other] != colour:
                        break
                    line.append(other)
            if len(line) >= self.game.options.length:
                return sorted(line)
        return []

    def winner(self) -> int | None:
        return self.cells[self._line[0]] if self._line else None

    def scores(self) -> list[float]:
        if not self.is_terminal():
            raise ValueError("the game is not over")
        winner = self.winner()
        return [0.5, 0.5] if winner is None else [float(s == winner) for s in (0, 1)]

    def end_reason(self) -> str:
        return "a line" if self._line else "board full"

    def clone(self) -> LineState:
        other = LineState(self.game)
        other.cells, other._moves, other._line = self.cells[:], self._moves[:], self._line[:]
        return other

    def render(self) -> str:
        symbols = {EMPTY: ".", RED: "R", BLUE: "B"}
        return self.game.board.render(lambda i: symbols[self.cells[i]])

    def details(self) -> dict[str, list[str]]:
        return {"line": [self.game.board.names[i] for i in self._line]} if self._line else {}

    def status(self, players: Sequence[str]) -> str:
        return f"{len(self._moves)} stones placed"

    def ending(self, players: Sequence[str]) -> Ending:
        return Ending({"chain": list(self._line)})
