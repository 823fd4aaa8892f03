"""Hex on an n x n rhombus, with the optional swap rule (docs/rules/hex.md).

Seat 0 is Red: moves first and joins the top and bottom rows.  Seat 1 is Blue
and joins the left and right columns.

A move costs a few C-level list operations whatever the board size, which
matters because the referee checks every move an engine sends.  Every stone
carries a *mark* saying whether its group touches none, the first or the
second of its colour's edges; a group touching both has won.  Summing the
marks of a cell's neighbours (one ``sum(itemgetter(...)(marks))``) gives, per
colour, how many neighbouring stones are in groups touching no edge, the first
edge, the second edge: three 3-bit counters (a cell has at most 6
neighbours), Red's in bits 0-8, Blue's in bits 9-17.  When a new stone joins a
group to an edge, the stones of that group still marked "no edge" are
relabelled by a flood fill; a stone is relabelled at most once per game (from
"no edge" to one edge; both edges end the game), so the fills cost O(cells)
over a whole game.  This is OpenSpiel's edge-flag scheme, with the neighbour
scan done in C.  ``playout`` (a random game to its end, as Monte Carlo engines
and the bench play them) runs the same placement code in one loop, without the
per-move token parsing and empty-cell search of ``random_move`` plus ``play``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Sequence
from functools import cached_property
from operator import itemgetter
from random import Random
from typing import Any

from .base import CheckPosition, Details, Game, GameOptions, IllegalMove, Start, State, draw_below, option
from .hexdecided import has_unstoppable_chain
from .hexgrid import Board
from .picture import LAST_MOVE, BoardPicture, Ending, Label, Mark, outer_edges
from .translation import Translation

EMPTY = -1
RED, BLUE = 0, 1
COLOUR_NAMES = ("Red", "Blue")
SWAP = "swap"
# The swap as Benzene writes it (GTP and HexGui's SGF), then what HexGui and LittleGolem also say.
OUTSIDE_SWAP = ("swap-pieces", "swap")

# MARKS[colour][edges]: a stone's mark; edges is 0 (none), 1 (first edge) or 2 (second edge).
MARKS = ((1, 1 << 3, 1 << 6), (1 << 9, 1 << 12, 1 << 15))
FIRST_EDGE, SECOND_EDGE, NO_EDGE = 0o70, 0o700, 0o7  # counter masks, for Red's bits


class HexOptions(GameOptions):
    size: int = option(11, ge=2, le=26, description="cells per side of the rhombus")
    swap: bool = option(True, description="Blue may answer Red's first stone with 'swap'")


class HexGame(Game):
    name = "hex"
    Options = HexOptions
    protocols = ("arena", "gtp")  # Benzene's MoHex, HexGui's opponents, KataHex
    seat_names = ("red", "blue")
    swap_move = SWAP
    exports = ("sgf",)  # HexGui reads Hex only
    check_options = {"size": 5}
    ladder_options = {"size": 9, "swap": True}
    can_draw = False  # a full board always holds one chain joining a player's edges
    takes_turns = True  # one stone a turn; the swap is the second player's turn
    tells_decided = True  # a chain of safe gaps (arena/rules/hexdecided.py)
    options: HexOptions

    @property
    def max_plies(self) -> int:
        return len(self.board) + 1  # every cell, and the swap

    def __init__(self, options: HexOptions) -> None:
        super().__init__(options)
        self.board = board = Board.rhombus(options.size)
        last = options.size - 1
        self.index_by_name = {name: i for i, name in enumerate(board.names)}
        # Per cell: a getter of its neighbours' marks, and per colour its edge bits
        # (1: the colour's first edge, Red top / Blue left; 2: its second edge).
        self.neighbour_marks = [_getter(cells) for cells in board.neighbours]
        self.edge_bits = [(_edge_bits(r, last), _edge_bits(c, last)) for r, c in board.coords]

    def initial_state(self, seed: int = 0) -> HexState:
        return HexState(self)

    def picture(self) -> BoardPicture:
        """Red's edges (top and bottom rows; corners have both) and Blue's (left and right
        columns), column letters above and row numbers left of the board, as HexGui."""
        board, n = self.board, self.options.size
        labels = [Label(board.at(0, c), board.names[board.at(0, c)][0], "above") for c in range(n)]
        labels += [Label(board.at(r, 0), str(r + 1), "left") for r in range(n)]
        return BoardPicture(
            board,
            "cells",
            {EMPTY: "", RED: "red", BLUE: "blue"},
            edges=outer_edges(board, n, {True: "red", False: "blue"}),
            labels=labels,
            marks=(LAST_MOVE, Mark("chain", "the winning chain, joining the winner's two edges")),
        )

    @cached_property
    def chain_edges(self) -> tuple[tuple[tuple[int, ...], tuple[bool, ...]], ...]:
        """Per colour, the cells of its first edge in board order (where a winning chain is
        searched from) and, for every cell, whether it is on its second edge (where one ends)."""
        coords, last = self.board.coords, self.options.size - 1
        return tuple(
            (
                tuple(i for i, rc in enumerate(coords) if rc[axis] == 0),
                tuple(rc[axis] == last for rc in coords),
            )
            for axis in (0, 1)  # Red joins the rows, Blue the columns
        )

    @cached_property
    def mirror(self) -> tuple[int, ...]:
        """Each cell's mirror image across the a1 diagonal (row <-> column): where the swap
        moves the first stone, and each cell's name in GTP and SGF after a swap."""
        board = self.board
        return tuple(board.at(c, r) for r, c in board.coords)

    def translation(self) -> Translation:
        """Cells are named as arena names them; after a swap the outside programs, which
        exchange the colours and leave the stone, see the mirror image (docs/gtp.md)."""
        names = self.board.names
        return Translation(
            size=self.options.size,
            sgf_game=11,  # Hex's number in the SGF specification
            swap_move=SWAP,
            swap_names=OUTSIDE_SWAP,
            swap_allowed=self.options.swap,
            after_swap={names[cell]: names[image] for cell, image in enumerate(self.mirror)},
        )

    def check_positions(self, start: Start) -> list[CheckPosition]:
        def after_swap() -> State:
            state = self.initial_state()
            for move in AFTER_SWAP:
                state.play(move)
            return state

        def swap_off() -> State:
            state = HexGame(self.options.model_copy(update={"swap": False})).initial_state()
            state.play("b3")
            return state

        return [
            CheckPosition("after a swap (b3 swap ... : b3 is the only free cell, Blue to move)", after_swap),
            CheckPosition("swap off (swap=false, b3, Blue to move: 'swap' is not a move)", swap_off),
        ]


# A check-engine position on the 5x5 board: b3 swap (off the diagonal: Blue's stone moves to
# c2), then every cell but b3 filled without a winner: b3 is the only move.  An engine that did
# not move the stone thinks b3 is taken and c2 free, so it plays c2, whatever its strategy.
AFTER_SWAP = ("b3 swap e5 d3 e4 a5 c3 c1 d4 e3 a2 c4 b5 e1 d2 e2 a4 c5 b2 b1 a1 a3 b4 d1 d5").split()


def _edge_bits(line: int, last: int) -> int:
    return (line == 0) | (line == last) << 1


def _getter(cells: tuple[int, ...]) -> Callable[[list[int]], tuple[int, ...]]:
    return itemgetter(*cells) if len(cells) > 1 else lambda marks: (marks[cells[0]],)


def _placer(game: HexGame, cells: list[int], marks: list[int]) -> Callable[[int, int], bool]:
    """``place(cell, colour)``: put a stone on an empty cell of these lists, update the
    edge marks, and say whether it joins the colour's two edges (the moves, the empty
    list and the winner are the caller's).  A closure: its tables are local variables,
    which CPython reads faster than attributes, and it is the one copy of the move
    logic that both ``play`` and ``playout`` call."""
    neighbour_marks, edge_bits, neighbours = game.neighbour_marks, game.edge_bits, game.board.neighbours

    def place(cell: int, colour: int) -> bool:
        counts = sum(neighbour_marks[cell](marks))
        if colour:
            counts >>= 9
        edges = edge_bits[cell][colour]
        if counts & FIRST_EDGE:
            edges |= 1
        if counts & SECOND_EDGE:
            edges |= 2
        cells[cell] = colour
        if edges == 3:
            return True
        mark = marks[cell] = MARKS[colour][edges]
        if edges and counts & NO_EDGE:
            # The group just reached an edge: relabel its stones still marked "no edge".
            todo = [cell]
            while todo:
                for n in neighbours[todo.pop()]:
                    if cells[n] == colour and marks[n] != mark:
                        marks[n] = mark
                        todo.append(n)
        return False

    return place


class HexState(State):
    game: HexGame
    cells: list[int]
    __slots__ = ("game", "cells", "_marks", "_moves", "_winner", "_empty", "_index", "_names", "_place")

    def __init__(self, game: HexGame, cells: list[int] | None = None, marks: list[int] | None = None) -> None:
        self.game = game
        self.cells = cells if cells is not None else [EMPTY] * len(game.board)
        self._marks = marks if marks is not None else [0] * len(game.board)
        self._moves: list[str] = []
        self._winner: int | None = None
        # The empty cells in board order, kept once legal_moves() or random_move() asked
        # for them (a referee replaying moves never does).
        self._empty: list[int] | None = None
        self._index, self._names = game.index_by_name, game.board.names
        self._place = _placer(game, self.cells, self._marks)

    # -- queries --------------------------------------------------------------

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

    def decided_winner(self) -> int | None:
        """The colour (seat) whose stones already join its edges through gaps the other
        cannot close (arena/rules/hexdecided.py); None while a swap may still come."""
        if self._winner is not None or self.swap_allowed():
            return None
        board, size = self.game.board, self.game.options.size
        for colour in (RED, BLUE):
            if has_unstoppable_chain(board, size, self.cells, colour, EMPTY):
                return colour
        return None

    def swap_allowed(self) -> bool:
        return self.game.options.swap and len(self._moves) == 1 and self._moves[0] != SWAP

    def legal_moves(self) -> list[str]:
        if self._winner is not None:
            return []
        empty = self._empty if self._empty is not None else self._track_empty()
        legal = list(map(self._names.__getitem__, empty))
        if self.swap_allowed():
            legal.append(SWAP)
        return legal

    def random_move(self, rng: Random) -> str:
        """Exactly ``rng.choice(self.legal_moves())`` (the same draws from ``rng``, so the
        same move and the same rng state afterwards), without building the list."""
        empty = self._empty
        if empty is None or len(self._moves) == 1 or self._winner is not None:
            return super().random_move(rng)  # also starts keeping self._empty
        return self._names[empty[draw_below(rng.getrandbits, len(empty))]]

    def _track_empty(self) -> list[int]:
        self._empty = [i for i, v in enumerate(self.cells) if v == EMPTY]
        return self._empty

    # -- moves ----------------------------------------------------------------

    def play(self, move: str) -> None:
        try:
            cell = self._index[move]
        except KeyError:
            return self._play_other(move)
        if self.cells[cell] != EMPTY or self._winner is not None:
            return self._play_other(move)
        colour = len(self._moves) & 1
        if self._place(cell, colour):
            self._winner = colour
        empty = self._empty
        if empty is not None:
            del empty[bisect_left(empty, cell)]
        self._moves.append(move)

    def play_placements(self, moves: Sequence[str]) -> list[tuple[int, int, int]]:
        """Every stone put on an empty cell of a game in progress, as :meth:`play` puts it, in
        one loop (the seat and the stone are the colour: seats take turns, the swap included);
        stops at the swap or a move ``play`` would refuse."""
        index, cells, place, played, empty = self._index, self.cells, self._place, self._moves, self._empty
        placed: list[tuple[int, int, int]] = []
        if self._winner is not None:
            return placed
        colour = len(played) & 1
        for move in moves:
            cell = index.get(move)
            if cell is None or cells[cell] != EMPTY:
                break
            played.append(move)
            placed.append((colour, cell, colour))
            if empty is not None:
                del empty[bisect_left(empty, cell)]
            if place(cell, colour):
                self._winner = colour
                break  # the game is over: a stone after it is play's to refuse
            colour ^= 1
        return placed

    def playout(self, rng: Random, max_plies: int) -> bool:
        """The base class's loop (``random_move`` then ``play`` until the end), fused: the
        same draws from ``rng``, so the very same moves, without parsing the tokens it
        has just drawn or searching the empty list for the cell it has just picked."""
        if self.game.options.swap and len(self._moves) < 2:
            played = len(self._moves)  # up to the swap ply (swap is one of the moves), the long way
            if super().playout(rng, min(max_plies, 2 - played)):
                return True
            max_plies -= len(self._moves) - played
        if self._winner is not None:
            return True
        empty = self._empty if self._empty is not None else self._track_empty()
        moves, names, place = self._moves, self._names, self._place
        getrandbits = rng.getrandbits
        colour = len(moves) & 1
        for _ in range(max_plies):
            n = len(empty)  # draw_below(getrandbits, n), inlined: a call per ply costs 10%
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            cell = empty.pop(r)
            moves.append(names[cell])
            if place(cell, colour):
                self._winner = colour
                return True
            colour ^= 1
        return False

    def _play_other(self, move: str) -> None:
        """Everything but a stone on an empty cell of a game in progress: swap or an error."""
        if self._winner is not None:
            raise IllegalMove(move, "the game is over")
        if move == SWAP:
            return self._swap()
        if move in self._index:
            raise IllegalMove(move, f"{move} is already occupied")
        raise IllegalMove(move, self._not_a_cell(move))

    def _not_a_cell(self, move: str) -> str:
        n = self.game.options.size
        last = f"{chr(ord('a') + n - 1)}{n}"
        return f"not a cell of the {n}x{n} board (cells are a1..{last}, or 'swap')"

    def _swap(self) -> None:
        if not self.swap_allowed():
            if not self.game.options.swap:
                raise IllegalMove(SWAP, "the swap rule is off in this game")
            raise IllegalMove(SWAP, "swap is only allowed as Blue's first move, right after Red's first stone")
        first = self.game.board.index(self._moves[0])
        mirror = self.game.mirror[first]
        # The board now holds one Blue stone: on a board of side >= 2 it touches at most one edge.
        self.cells[first] = EMPTY
        self._marks[first] = 0
        self.cells[mirror] = BLUE
        self._marks[mirror] = MARKS[BLUE][self.game.edge_bits[mirror][BLUE]]
        if self._empty is not None:
            self._track_empty()
        self._moves.append(SWAP)

    # -- the rest -------------------------------------------------------------

    def __deepcopy__(self, memo: dict[int, Any]) -> HexState:
        return self.clone()  # the game is shared: immutable, and large next to a position

    def __getstate__(self) -> tuple[Any, ...]:
        # For pickle: the placement closure is rebuilt, not copied, so that a copy writes
        # to its own lists (and a closure cannot be pickled).
        return self.game, self.cells, self._marks, self._moves, self._winner, self._empty

    def __setstate__(self, saved: tuple[Any, ...]) -> None:
        game, cells, marks, moves, winner, empty = saved
        HexState.__init__(self, game, cells, marks)
        self._moves, self._winner, self._empty = moves, winner, empty

    def clone(self) -> HexState:
        other = HexState(self.game, self.cells[:], self._marks[:])
        other._moves = self._moves[:]
        other._winner = self._winner
        other._empty = self._empty[:] if self._empty is not None else None
        return other

    def winning_chain(self) -> list[str]:
        """A shortest chain of the winner's stones joining their two edges."""
        names = self.game.board.names
        return [names[cell] for cell in self._chain_cells()]

    def _chain_cells(self) -> list[int]:
        """The cells of :meth:`winning_chain`, from the winner's first edge: a breadth-first
        search from its stones there (in board order), ended by the first that reaches the
        second edge.  The report site asks it of every game it shows."""
        colour = self._winner
        if colour is None:
            return []
        starts, far = self.game.chain_edges[colour]
        cells, neighbours = self.cells, self.game.board.neighbours
        came_from = {cell: -1 for cell in starts if cells[cell] == colour}
        queue = deque(came_from)
        while queue:
            cell = queue.popleft()
            if far[cell]:
                chain = []
                while cell >= 0:
                    chain.append(cell)
                    cell = came_from[cell]
                return chain[::-1]
            for nb in neighbours[cell]:
                if nb not in came_from and cells[nb] == colour:
                    came_from[nb] = cell
                    queue.append(nb)
        raise AssertionError("winner without a chain")  # unreachable: the edge marks say connected

    def details(self) -> Details:
        return {"winning_chain": self.winning_chain()} if self._winner is not None else {}

    def ending(self, players: Sequence[str]) -> Ending:
        return Ending({"chain": self._chain_cells()})

    def render(self) -> str:
        symbols = {EMPTY: ".", RED: "R", BLUE: "B"}
        cells = self.cells
        return self.game.board.render(lambda i: symbols[cells[i]])
