"""What a game looks like, as neutral drawing data: the rules say what each cell holds and
what to highlight, and a viewer (the report site's) draws it without knowing the game.

A :class:`BoardPicture` describes a board for the whole game (its cells, how a cell's
contents are drawn, coloured edges, labels, cells drawn apart such as Bases' bases, and a
:class:`Mark` for each kind of mark the viewer draws on it, with what it means: the viewer's
legend); an :class:`Ending` what the end of a game shows (highlighted cells, a revealed
secret).  Cells
are indexes of the game's :class:`~arena.rules.hexgrid.Board`; sides and corners are those
of a pointy-top hexagon, numbered clockwise from the top corner (side k joins corners k and
k + 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .hexgrid import Board, column_letter

# The neighbour (row, column step) each side of a pointy-top hexagon faces.
SIDE_FACES = ((-1, 1), (0, 1), (1, 0), (1, -1), (0, -1), (-1, 0))


@dataclass(frozen=True)
class Edge:
    """The outer side ``side`` of ``cell`` drawn in ``colour`` (Hex's players' edges)."""

    cell: int
    side: int
    colour: str


@dataclass(frozen=True)
class Label:
    """A coordinate label beside ``cell``: ``above`` it (columns) or to its ``left`` (rows),
    or ``below``: in the next place down its column, past the column's last cell (the
    columns of a hexagonal board, which end on its bottom and lower right sides)."""

    cell: int
    text: str
    where: Literal["above", "left", "below"]


@dataclass(frozen=True)
class Mark:
    """One kind of mark drawn on a board and what it means, the viewer's legend entry for it.

    ``name`` is the mark's class in the viewer: ``last`` (the cells the move shown put a
    piece on, or emptied where its token names them), ``gone`` (other cells it emptied),
    ``kept`` (the group a move kept, with ``kept_groups``), or a key of
    :attr:`Ending.marks` (a winning chain).  The site's stylesheet draws each name; a name
    it does not know is drawn as ``end`` (an outline of the ending's colour)."""

    name: str
    meaning: str


LAST_MOVE = Mark("last", "the move shown")


@dataclass(frozen=True)
class BoardPicture:
    """A board as drawn for the whole game.

    ``layout`` is ``cells`` where pieces fill hexagons, ``points`` where stones stand on
    the lattice's points with streets between them.  ``codes`` turns a cell's value in the
    rules (:attr:`State.cells`) into what is drawn there (``""``: nothing); different values
    have different codes.  ``kept_groups``: a move can empty cells its token does not name,
    which are shown as the group it kept (Posies' splits).  ``marks``: every kind of mark
    the game's moves and endings draw, with its meaning, in the legend's order."""

    board: Board
    layout: Literal["cells", "points"]
    codes: Mapping[int, str]
    edges: Sequence[Edge] = ()
    labels: Sequence[Label] = ()
    static: Mapping[int, str] = field(default_factory=dict)  # cell -> how it is drawn all game
    kept_groups: bool = False
    marks: Sequence[Mark] = (LAST_MOVE,)

    def move_cells(self, move: str) -> list[int]:
        """Cells a move token names: a stone's cell, several stones (``a1,b2``), a slide's two
        ends (``a1-a5``), a removed pair before a ``/`` (the cell after it names a kept group)."""
        lookup = self.board.lookup
        cell = lookup(move)
        if cell is not None:
            return [cell]
        parts = move.partition("/")[0].replace(",", "-").split("-")
        return [c for c in map(lookup, parts) if c is not None]


@dataclass(frozen=True)
class Ending:
    """What a finished game shows: ``marks`` (highlight name -> cells, e.g. the winning
    chain; each name described by a :class:`Mark` of the game's picture) and ``reveal``, a
    line telling what was hidden until the end."""

    marks: Mapping[str, list[int]] = field(default_factory=dict)
    reveal: str = ""


def outer_edges(board: Board, size: int, colour_of: Mapping[bool, str]) -> list[Edge]:
    """The outer sides of a rhombus board's border cells: ``colour_of[True]`` where the side
    faces off the top or bottom row, ``colour_of[False]`` off the left or right column."""
    edges = []
    for i, (r, c) in enumerate(board.coords):
        for k, (dr, dc) in enumerate(SIDE_FACES):
            nr, nc = r + dr, c + dc
            if 0 <= nr < size and 0 <= nc < size:
                continue
            edges.append(Edge(i, k, colour_of[not 0 <= nr < size]))
    return edges


def edge_labels(board: Board) -> list[Label]:
    """The coordinates a move names, for any board: each row's number left of its first
    cell, each column's letter past its last cell (a hexagonal board's columns start on two
    sides, so their letters go where they end, clear of the row numbers)."""
    first_in_row: dict[int, int] = {}
    last_in_column: dict[int, int] = {}
    for i, (r, c) in enumerate(board.coords):  # row-major: a row's first cell comes first
        first_in_row.setdefault(r, i)
        last_in_column[c] = i
    labels = [Label(i, str(r + 1), "left") for r, i in sorted(first_in_row.items())]
    labels += [Label(i, column_letter(c), "below") for c, i in sorted(last_in_column.items())]
    return labels
