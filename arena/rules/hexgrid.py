"""Hex-grid geometry shared by every game.

All five boards are subsets of one coordinate system: a rhombus of rows and
columns where row ``r`` is drawn shifted half a cell right of row ``r - 1``
(the HexGui / OpenSpiel convention).  A cell is named by its column letter and
1-based row number: ``a1`` is the top-left corner, ``b1`` is right of it and
``a2`` is below it.  The six neighbours of (r, c) are

    (r, c-1) (r, c+1) (r-1, c) (r-1, c+1) (r+1, c) (r+1, c-1)

A hexagonal board is the same rhombus with two opposite corners cut off
(``lo <= r + c <= hi``), so every game shares names, neighbours, straight
lines and text rendering.  Cells are addressed by dense integer indices for
speed; :class:`Board` translates between indices, (row, col) pairs and names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache

# The six directions as (d_row, d_col), ordered clockwise starting east.
# Opposite directions are three apart: DIRECTIONS[(d + 3) % 6] == -DIRECTIONS[d].
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, 1),  # 0 east
    (1, 0),  # 1 south-east
    (1, -1),  # 2 south-west
    (0, -1),  # 3 west
    (-1, 0),  # 4 north-west
    (-1, 1),  # 5 north-east
)
DIRECTION_NAMES = ("e", "se", "sw", "w", "nw", "ne")

OFF_BOARD = -1
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def column_letter(col: int) -> str:
    return LETTERS[col]


@dataclass(frozen=True)
class Board:
    """A set of hex cells inside a ``rows`` x ``cols`` rhombus.

    Index order is row-major over the cells that exist, so iteration order is
    the reading order of the text diagram.
    """

    rows: int
    cols: int
    lo: int = 0  # smallest allowed r + c
    hi: int | None = None  # largest allowed r + c (None: no cut)
    coords: tuple[tuple[int, int], ...] = field(init=False, repr=False)
    names: tuple[str, ...] = field(init=False, repr=False)
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    # step[d][i]: the cell one step from i in direction d, or OFF_BOARD.
    step: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    _by_coord: dict[tuple[int, int], int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not (1 <= self.cols <= len(LETTERS)) or self.rows < 1:
            raise ValueError(f"board of {self.rows} rows x {self.cols} columns is out of range")
        hi = self.rows + self.cols if self.hi is None else self.hi
        coords = tuple((r, c) for r in range(self.rows) for c in range(self.cols) if self.lo <= r + c <= hi)
        by_coord = {rc: i for i, rc in enumerate(coords)}
        names = tuple(f"{LETTERS[c]}{r + 1}" for r, c in coords)
        step = tuple(tuple(by_coord.get((r + dr, c + dc), OFF_BOARD) for r, c in coords) for dr, dc in DIRECTIONS)
        neighbours = tuple(tuple(step[d][i] for d in range(6) if step[d][i] != OFF_BOARD) for i in range(len(coords)))
        set_ = object.__setattr__
        set_(self, "coords", coords)
        set_(self, "names", names)
        set_(self, "step", step)
        set_(self, "neighbours", neighbours)
        set_(self, "_by_coord", by_coord)
        set_(self, "_index", {n: i for i, n in enumerate(names)})

    # -- construction -------------------------------------------------------

    @staticmethod
    @cache
    def rhombus(n: int) -> Board:
        """The n x n Hex board."""
        return Board(n, n)

    @staticmethod
    @cache
    def hexhex(side: int) -> Board:
        """A regular hexagon with ``side`` cells on each side (3s^2 - 3s + 1 cells)."""
        span = 2 * side - 1
        return Board(span, span, lo=side - 1, hi=3 * side - 3)

    # -- lookup ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.coords)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.coords)))

    def index(self, name: str) -> int:
        """Index of a cell name such as ``e5``; raises KeyError if not on this board."""
        return self._index[name]

    def lookup(self, name: str) -> int | None:
        return self._index.get(name)

    def at(self, row: int, col: int) -> int:
        """Index of (row, col), or OFF_BOARD."""
        return self._by_coord.get((row, col), OFF_BOARD)

    def name(self, index: int) -> str:
        return self.names[index]

    def ray(self, start: int, direction: int) -> Iterator[int]:
        """Cells after ``start`` in a straight line, up to the edge."""
        step = self.step[direction]
        cell = step[start]
        while cell != OFF_BOARD:
            yield cell
            cell = step[cell]

    def line_between(self, a: int, b: int) -> list[int] | None:
        """Cells strictly between a and b if they share a straight line, else None."""
        (ra, ca), (rb, cb) = self.coords[a], self.coords[b]
        dr, dc = rb - ra, cb - ca
        if a == b or not (dr == 0 or dc == 0 or dr == -dc):
            return None
        length = max(abs(dr), abs(dc))
        unit = (dr // length, dc // length)
        between = [self.at(ra + unit[0] * k, ca + unit[1] * k) for k in range(1, length)]
        return None if OFF_BOARD in between else between

    def distance(self, a: int, b: int) -> int:
        (ra, ca), (rb, cb) = self.coords[a], self.coords[b]
        dr, dc = rb - ra, cb - ca
        return max(abs(dr), abs(dc), abs(dr + dc))

    def ring_around_pair(self, a: int, b: int) -> tuple[int, ...]:
        """The 8 cells around two adjacent cells, clockwise, OFF_BOARD where the ring leaves
        the board.  Consecutive ones (the last and the first too) are adjacent, no two
        others are: cells left on the ring are connected through it iff they form one arc."""
        d = next((k for k in range(6) if self.step[k][a] == b), None)
        if d is None:
            raise ValueError(f"{self.names[a]} and {self.names[b]} are not adjacent")
        s = self.step
        return (
            s[(d + 5) % 6][b],
            s[d][b],
            s[(d + 1) % 6][b],
            s[(d + 2) % 6][b],
            s[(d + 2) % 6][a],
            s[(d + 3) % 6][a],
            s[(d + 4) % 6][a],
            s[(d + 5) % 6][a],
        )

    # -- sides ----------------------------------------------------------------

    def hexhex_sides(self) -> tuple[frozenset[int], ...]:
        """The six sides of a hexagonal board, clockwise from the top side.

        Corner cells lie on two sides.  Sides are named A-F in this order.
        """
        hi = self.rows + self.cols if self.hi is None else self.hi
        tests: Sequence[Callable[[int, int], bool]] = (
            lambda r, c: r == 0,  # A top
            lambda r, c: c == self.cols - 1,  # B upper right
            lambda r, c: r + c == hi,  # C lower right
            lambda r, c: r == self.rows - 1,  # D bottom
            lambda r, c: c == 0,  # E lower left
            lambda r, c: r + c == self.lo,  # F upper left
        )
        return tuple(frozenset(i for i, (r, c) in enumerate(self.coords) if test(r, c)) for test in tests)

    # -- rendering ------------------------------------------------------------

    def render(self, symbol: Callable[[int], str], width: int = 2) -> str:
        """A text diagram, one line per row, each row shifted half a cell right.

        ``symbol(index)`` gives the (at most ``width`` characters) content of a cell.
        """
        pad = " " * width
        header = " " * 4 + "".join(LETTERS[c].ljust(width) for c in range(self.cols))
        lines = [header.rstrip()]
        for r in range(self.rows):
            shift = " " * (r * width // 2)
            cells = "".join(
                symbol(i).ljust(width) if (i := self.at(r, c)) != OFF_BOARD else pad for c in range(self.cols)
            )
            lines.append(f"{r + 1:>3} {shift}{cells}".rstrip())
        return "\n".join(lines)


def connected_components(cells: Iterable[int], neighbours: Sequence[Sequence[int]]) -> list[list[int]]:
    """Split ``cells`` into groups connected through each other (flood fill)."""
    remaining = set(cells)
    groups: list[list[int]] = []
    while remaining:
        seed = remaining.pop()
        group, frontier = [seed], [seed]
        while frontier:
            cell = frontier.pop()
            for n in neighbours[cell]:
                if n in remaining:
                    remaining.remove(n)
                    group.append(n)
                    frontier.append(n)
        groups.append(group)
    return groups


def find_root(parent: list[int], x: int) -> int:
    """Union-find root of ``x``, halving the path on the way (groups and families)."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def reachable(starts: Iterable[int], neighbours: Sequence[Sequence[int]], passable: Callable[[int], bool]) -> set[int]:
    """All cells reachable from ``starts`` through cells for which ``passable`` holds.

    Start cells are included only if passable.
    """
    seen = {s for s in starts if passable(s)}
    frontier = list(seen)
    while frontier:
        cell = frontier.pop()
        for n in neighbours[cell]:
            if n not in seen and passable(n):
                seen.add(n)
                frontier.append(n)
    return seen
