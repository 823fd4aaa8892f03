"""Bases: a sliding race on the 61-hex hexhex board (docs/rules/bases.md).

Each side starts with six pieces on its own six-hex base and wins when the
opponent's base is completely occupied, by pieces of either colour.  A move
slides one piece as far as it goes in one of the six directions; a piece that
stops on the opponent's base is frozen there.  Seat 0 is Red and moves first.

Beyond the seed's rules, arena adjudicates endless games: a position repeated
``repetition`` times with the same side to move, or ``max_plies`` moves
without a result, is a draw.

The state keeps the board as a bytearray, each side's piece cells and the
occupancy count of each base, so a move costs one walk along its line plus a
few list updates; repetition keys are the board bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .base import CheckPosition, Details, Game, GameOptions, IllegalMove, Start, State, option, random_position
from .hexgrid import OFF_BOARD, Board
from .picture import BoardPicture, Ending, Mark, edge_labels

BOARD = Board.hexhex(5)
# What the viewer draws: a move is a slide, so the cell it emptied is where it started.
MARKS = (
    Mark("last", "the move shown: where the piece slid to"),
    Mark("gone", "dotted: where it slid from"),
    Mark("occupied", "the base the winner filled"),
)
RED, BLUE = 0, 1
COLOUR_NAMES = ("Red", "Blue")
# Cell contents.  A seat's pieces are stored as seat + 1.
EMPTY, RED_PIECE, BLUE_PIECE, BLACK = 0, 1, 2, 3
BASE_SIZE, BLACK_COUNT = 6, 5
STANDARD = "standard"
# Point symmetry through e5 maps the red base onto the blue base and the black
# hexes onto themselves (so does the left-right mirror): neither side is favoured.
STANDARD_CELLS = (
    ("b9", "c9", "d9", "c8", "d8", "d7"),  # Red's base, bottom
    ("f1", "g1", "h1", "f2", "g2", "f3"),  # Blue's base, top
    ("a5", "c5", "e5", "g5", "i5"),  # black hexes across the middle row
)
LAYOUT_PARTS = ("red base", "blue base", "black hexes")
LAYOUT_SIZES = (BASE_SIZE, BASE_SIZE, BLACK_COUNT)
LAYOUT_SYNTAX = (
    "'standard' or three comma-separated cell lists joined by '/': "
    "red base (6 cells) / blue base (6 cells) / black hexes (5 cells), e.g. "
    + "/".join(",".join(part) for part in STANDARD_CELLS)
)


def not_a_cell(name: str) -> str:
    """Why ``name`` is not a cell; the board is a hexagon, so a1 and the other corners of
    the a-i x 1-9 grid are not cells (long junk is shortened)."""
    shown = repr(name) if len(name) <= 20 else repr(name[:20]) + "..."
    return (
        f"{shown} is not a cell of the 61-hex board: a lower-case column a-i and row 1-9 "
        "inside the hexagon, e.g. e5 (a1, i9 and the other cut-off corners of the grid are "
        "not cells; see docs/rules/bases.md)"
    )


@dataclass(frozen=True)
class Layout:
    """Cell indices of the two bases (indexed by seat) and of the black hexes."""

    bases: tuple[tuple[int, ...], tuple[int, ...]]
    black: tuple[int, ...]


def _parse_part(part: str, what: str, size: int) -> tuple[int, ...]:
    names = part.split(",") if part else []
    cells = []
    for name in names:
        cell = BOARD.lookup(name)
        if cell is None:
            raise ValueError(f"{what}: {not_a_cell(name)}")
        cells.append(cell)
    if len(set(cells)) != len(cells):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{what}: {dup} is listed twice")
    if len(cells) != size:
        raise ValueError(f"{what} needs exactly {size} cells, got {len(cells)}")
    return tuple(sorted(cells))


@lru_cache(maxsize=64)
def parse_layout(text: str) -> Layout:
    """The layout named by the ``layout`` option; ValueError says what is wrong."""
    parts = [",".join(p) for p in STANDARD_CELLS] if text == STANDARD else text.split("/")
    if len(parts) != 3:
        raise ValueError(f"expected {LAYOUT_SYNTAX}; got {text!r}")
    red, blue, black = (_parse_part(p, what, size) for p, what, size in zip(parts, LAYOUT_PARTS, LAYOUT_SIZES))
    for (a, what_a), (b, what_b) in (
        ((red, "red base"), (blue, "blue base")),
        ((red, "red base"), (black, "black hexes")),
        ((blue, "blue base"), (black, "black hexes")),
    ):
        shared = sorted(set(a) & set(b))
        if shared:
            raise ValueError(f"{BOARD.names[shared[0]]} is in both the {what_a} and the {what_b}")
    return Layout((red, blue), black)


def format_layout(layout: Layout) -> str:
    """The canonical ``layout`` option value (cells in board order)."""
    parts = (*layout.bases, layout.black)
    return "/".join(",".join(BOARD.names[c] for c in part) for part in parts)


def canonical_layout(text: str) -> str:
    """The ``layout`` option as the game keeps it (its cells in board order, ``standard`` as
    it is); ValueError says what is wrong."""
    layout = parse_layout(text)
    return text if text == STANDARD else format_layout(layout)


class BasesOptions(GameOptions):
    layout: str = option(STANDARD, description=f"board layout: {LAYOUT_SYNTAX}", canonical=canonical_layout)
    max_plies: int = option(
        300, ge=1, le=100_000, description="arena's adjudication: the game is drawn after this many moves"
    )
    repetition: int = option(
        3,
        ge=2,
        le=1000,
        description="arena's adjudication: draw when a position with the same side to move occurs this many times",
    )


class BasesGame(Game):
    name = "bases"
    Options = BasesOptions
    seat_names = ("red", "blue")
    ladder_options = {"layout": "standard", "max_plies": 300, "repetition": 3}
    options: BasesOptions

    @property
    def max_plies(self) -> int:
        return self.options.max_plies

    def __init__(self, options: BasesOptions) -> None:
        super().__init__(options)
        board = BOARD
        self.board = board
        self.layout = parse_layout(options.layout)
        # base_of[cell]: the seat whose base holds the cell, or -1.
        self.base_of = [-1] * len(board)
        cells = bytearray(len(board))
        for seat, base in enumerate(self.layout.bases):
            for cell in base:
                self.base_of[cell] = seat
                cells[cell] = seat + 1
        for cell in self.layout.black:
            cells[cell] = BLACK
        self.initial_cells = bytes(cells)
        # direction_to[a][b]: the direction from a to b when b lies on a straight line from a.
        self.direction_to: list[dict[int, int]] = [{b: d for d in range(6) for b in board.ray(a, d)} for a in board]

    def initial_state(self, seed: int = 0) -> BasesState:
        return BasesState(self)

    def picture(self) -> BoardPicture:
        """The two bases are drawn in their owners' light colours all game."""
        static = {cell: f"base{seat}" for seat, base in enumerate(self.layout.bases) for cell in base}
        codes = {EMPTY: "", RED_PIECE: "red", BLUE_PIECE: "blue", BLACK: "wall"}
        return BoardPicture(self.board, "cells", codes, labels=edge_labels(self.board), static=static, marks=MARKS)

    def check_positions(self, start: Start) -> list[CheckPosition]:
        def near_full(state: State) -> bool:
            occupied = [sum(state.cells[c] != EMPTY for c in base) for base in self.layout.bases]
            return len(state.moves) >= 6 and 5 in occupied

        return [CheckPosition("a base one piece from full", lambda: random_position(self, start, near_full))]


class BasesState(State):
    game: BasesGame
    cells: bytearray
    __slots__ = ("game", "cells", "pieces", "base_count", "_moves", "_seen", "_winner", "_reason", "_over")

    def __init__(self, game: BasesGame) -> None:
        self.game = game
        self.cells = bytearray(game.initial_cells)
        self.pieces = [list(base) for base in game.layout.bases]
        self.base_count = [len(base) for base in game.layout.bases]
        self._moves: list[str] = []
        self._seen: dict[bytes, int] = {self._key(RED): 1}
        self._winner: int | None = None
        self._reason = "not over"
        self._over = False
        if not self._has_move(RED):  # only possible with a custom layout
            self._end(BLUE, "Red has no move")

    # -- queries --------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self._over

    def winner(self) -> int | None:
        return self._winner

    def scores(self) -> list[float]:
        if not self._over:
            raise ValueError("the game is not over")
        if self._winner is None:
            return [0.5, 0.5]
        return [1.0, 0.0] if self._winner == RED else [0.0, 1.0]

    def end_reason(self) -> str:
        return self._reason

    def is_frozen(self, cell: int) -> bool:
        """Whether the piece on ``cell`` has stopped on its opponent's base."""
        owner = self.cells[cell] - 1
        return owner in (RED, BLUE) and self.game.base_of[cell] == 1 - owner

    def legal_moves(self) -> list[str]:
        if self._over:
            return []
        cells, names, steps = self.cells, self.game.board.names, self.game.board.step
        legal = []
        for src in sorted(self.pieces[self.current_player()]):
            if self.is_frozen(src):
                continue
            for step in steps:
                cell, stop = step[src], OFF_BOARD
                while cell != OFF_BOARD and cells[cell] == EMPTY:
                    stop, cell = cell, step[cell]
                if stop != OFF_BOARD:
                    legal.append(f"{names[src]}-{names[stop]}")
        return legal

    def _has_move(self, seat: int) -> bool:
        cells, steps, base_of = self.cells, self.game.board.step, self.game.base_of
        frozen_on = 1 - seat
        for src in self.pieces[seat]:
            if base_of[src] != frozen_on:
                for step in steps:
                    n = step[src]
                    if n != OFF_BOARD and cells[n] == EMPTY:
                        return True
        return False

    # -- moves ----------------------------------------------------------------

    def play(self, move: str) -> None:
        if self._over:
            raise IllegalMove(move, "the game is over")
        src, dst = self._parse(move)
        self._check(move, src, dst)
        self._apply(src, dst)
        self._moves.append(move)
        self._adjudicate()

    def _parse(self, move: str) -> tuple[int, int]:
        if not isinstance(move, str) or move.count("-") != 1:
            raise IllegalMove(move, "malformed move: expected 'from-to', two cell names joined by '-', e.g. 'c8-c6'")
        lookup = self.game.board.lookup
        src_name, _, dst_name = move.partition("-")
        src, dst = lookup(src_name), lookup(dst_name)
        if src is None or dst is None:
            bad = src_name if src is None else dst_name
            raise IllegalMove(move, not_a_cell(bad))
        return src, dst

    def _check(self, move: str, src: int, dst: int) -> None:
        """Raise IllegalMove unless sliding the piece on src stops exactly at dst."""
        player, cells, names = self.current_player(), self.cells, self.game.board.names
        here = cells[src]
        if here != player + 1:
            raise IllegalMove(move, self._not_own_piece(src, player))
        if self.is_frozen(src):
            raise IllegalMove(
                move,
                f"the piece on {names[src]} is frozen: a piece that has stopped on "
                "the opponent's base may not move again",
            )
        if src == dst:
            raise IllegalMove(move, "zero-length move: a piece must slide at least one hex")
        direction = self.game.direction_to[src].get(dst)
        if direction is None:
            raise IllegalMove(
                move,
                f"{names[src]} and {names[dst]} are not on a straight line: a piece "
                "slides in one of the six directions",
            )
        step = self.game.board.step[direction]
        cell = step[src]
        while cells[cell] == EMPTY and cell != dst:
            cell = step[cell]
        if cells[cell] != EMPTY:
            raise IllegalMove(
                move,
                f"blocked at {names[cell]} by {self._describe(cell)}: a piece may "
                "not pass over or stop on a piece or a black hex",
            )
        if step[dst] != OFF_BOARD and cells[step[dst]] == EMPTY:
            stop = dst
            while step[stop] != OFF_BOARD and cells[step[stop]] == EMPTY:
                stop = step[stop]
            raise IllegalMove(
                move, f"stops short: a piece must slide as far as possible, and this slide ends at {names[stop]}"
            )

    def _not_own_piece(self, src: int, player: int) -> str:
        name, here = self.game.board.names[src], self.cells[src]
        if here == EMPTY:
            return f"{name} is empty: a move slides one of your own pieces"
        if here == BLACK:
            return f"{name} is a black hex: a move slides one of your own pieces"
        return (
            f"{name} holds a {COLOUR_NAMES[here - 1]} piece, not yours: "
            f"{COLOUR_NAMES[player]} may only move {COLOUR_NAMES[player]} pieces"
        )

    def _describe(self, cell: int) -> str:
        here = self.cells[cell]
        return "a black hex" if here == BLACK else f"a {COLOUR_NAMES[here - 1]} piece"

    def _apply(self, src: int, dst: int) -> None:
        player, base_of = self.current_player(), self.game.base_of
        self.cells[src], self.cells[dst] = EMPTY, player + 1
        mine = self.pieces[player]
        mine[mine.index(src)] = dst
        if base_of[src] >= 0:
            self.base_count[base_of[src]] -= 1
        if base_of[dst] >= 0:
            self.base_count[base_of[dst]] += 1

    def _adjudicate(self) -> None:
        """End the game if the move just played decided it (in rule-precedence order)."""
        plies = len(self._moves)
        mover, to_move = (plies - 1) & 1, plies & 1
        if plies >= 2 and self._check_bases(mover):
            return
        if not self._has_move(to_move):
            return self._end(mover, f"{COLOUR_NAMES[to_move]} has no move")
        key = self._key(to_move)
        seen = self._seen[key] = self._seen.get(key, 0) + 1
        if seen >= self.game.options.repetition:
            return self._end(None, f"draw by repetition (same position {seen} times)")
        if plies >= self.game.options.max_plies:
            return self._end(None, f"draw by move limit ({plies} plies)")

    def _check_bases(self, mover: int) -> bool:
        """A full base wins for the other side; if both were full the mover would win."""
        red_count, blue_count = self.base_count
        if red_count != BASE_SIZE and blue_count != BASE_SIZE:
            return False
        full = [red_count == BASE_SIZE, blue_count == BASE_SIZE]
        winner = mover if all(full) else full.index(True) ^ 1
        self._end(winner, f"{COLOUR_NAMES[winner ^ 1]}'s base is fully occupied")
        return True

    def _key(self, to_move: int) -> bytes:
        return bytes(self.cells) + (b"r" if to_move == RED else b"b")

    def _end(self, winner: int | None, reason: str) -> None:
        self._over, self._winner, self._reason = True, winner, reason

    # -- the rest -------------------------------------------------------------

    def clone(self) -> BasesState:
        other = BasesState.__new__(BasesState)
        other.game = self.game
        other.cells = self.cells[:]
        other.pieces = [p[:] for p in self.pieces]
        other.base_count = self.base_count[:]
        other._moves = self._moves[:]
        other._seen = dict(self._seen)
        other._winner, other._reason, other._over = self._winner, self._reason, self._over
        return other

    def ending(self, players: Sequence[str]) -> Ending:
        index = self.game.board.index
        return Ending({"occupied": [index(c) for c in self._occupied_base() or {}]})

    def _occupied_base(self) -> dict[str, str] | None:
        """The base the winner occupied, each cell with its piece's colour, when that decided
        the game (None: it did not)."""
        if not self._over or self._winner is None or "base" not in self._reason:
            return None
        names, base = self.game.board.names, self.game.layout.bases[self._winner ^ 1]
        return {names[c]: COLOUR_NAMES[self.cells[c] - 1] for c in base}

    def details(self) -> Details:
        occupied = self._occupied_base()
        return {} if occupied is None else {"occupied_base": occupied}

    def render(self) -> str:
        """R/B pieces, # black hexes, r/b empty cells of Red's/Blue's base, . other empty cells."""
        cells, base_of = self.cells, self.game.base_of
        piece = {RED_PIECE: "R", BLUE_PIECE: "B", BLACK: "#"}
        empty = {RED: "r", BLUE: "b", -1: "."}
        return self.game.board.render(lambda i: piece.get(cells[i]) or empty[base_of[i]])
