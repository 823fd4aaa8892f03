"""Hex for the tree search: RAVE over cells, the swap decision, and a rollout that
saves bridges.

A *bridge* is two stones of one colour with two empty cells between them, each
adjacent to both stones (the carrier): when the opponent takes one carrier cell
the other still joins the stones, so a player who answers there keeps the link.
The same holds between a stone on the second row and its own edge (the two
first-row cells below it).  Uniform random rollouts lose such links half the time
and so misjudge solid shapes; answering the intrusion is the first piece of
knowledge the Hex literature's Monte Carlo programs add (MoHex's playouts do).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from random import Random
from typing import Any

from arena.rules.hex import BLUE, EMPTY, RED, SWAP, HexState
from arena.rules.hexgrid import DIRECTIONS, Board

from .mcts import Played, RulesDomain

ROLLOUTS = ("bridges", "uniform")
EDGE = -1  # a bridge's end past the board, on its colour's own edge
# Per colour, per cell x: the bridges x is a carrier cell of, as (other carrier, stone, stone).
BridgeTable = tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]


def on_edge(state: HexState, cell: str) -> bool:
    board, last = state.game.board, state.game.options.size - 1
    r, c = board.coords[board.index(cell)]
    return not (0 < r < last and 0 < c < last)


def edge_swap(state: HexState) -> str | None:
    """The seed's app's rule: swap exactly when Red's first stone is not on an edge."""
    return None if on_edge(state, state.moves[0]) else SWAP


@cache
def bridge_table(size: int) -> BridgeTable:
    """``table[colour][x]``: every bridge of ``colour`` that a stone on ``x`` intrudes.
    Two adjacent cells x and y are a carrier; the cells adjacent to both are the two
    ends, either a cell or, off the board past the colour's own edge, that edge."""
    board = Board.rhombus(size)
    table: list[list[tuple[tuple[int, int, int], ...]]] = [[], []]
    for r, c in board.coords:
        per_colour: list[list[tuple[int, int, int]]] = [[], []]
        for d, (dr, dc) in enumerate(DIRECTIONS):
            y = board.at(r + dr, c + dc)
            if y < 0:
                continue
            ends = [(r + DIRECTIONS[k][0], c + DIRECTIONS[k][1]) for k in ((d + 5) % 6, (d + 1) % 6)]
            for colour in (RED, BLUE):
                a, b = (_end(board, size, colour, rr, cc) for rr, cc in ends)
                if a is None or b is None or a == b == EDGE:
                    continue
                # An edge bridge names its one stone twice: the edge is always the colour's.
                per_colour[colour].append((y, b if a == EDGE else a, a if b == EDGE else b))
        for colour in (RED, BLUE):
            table[colour].append(tuple(per_colour[colour]))
    return tuple(tuple(t) for t in table)


def _end(board: Board, size: int, colour: int, r: int, c: int) -> int | None:
    """A bridge end at (r, c): its cell, EDGE for the colour's own edge, None otherwise."""
    cell = board.at(r, c)
    if cell >= 0:
        return cell
    row_off, col_off = not 0 <= r < size, not 0 <= c < size
    own = row_off and not col_off if colour == RED else col_off and not row_off
    return EDGE if own else None


def red_connects(cells: list[int], size: int, neighbours: tuple[tuple[int, ...], ...]) -> bool:
    """Whether Red's stones join the top and bottom rows (on a full board exactly one
    colour connects, so this decides a filled board)."""
    seen = [False] * len(cells)
    todo = [c for c in range(size) if cells[c] == RED]
    for c in todo:
        seen[c] = True
    bottom = size * (size - 1)
    while todo:
        cell = todo.pop()
        if cell >= bottom:
            return True
        for n in neighbours[cell]:
            if not seen[n] and cells[n] == RED:
                seen[n] = True
                todo.append(n)
    return False


def bridge_fill(state: HexState, rng: Random) -> tuple[list[int], list[int]]:
    """Fill the board from ``state``: each player answers an intrusion into one of its
    bridges in the other carrier cell (a random one if several), else plays a random
    empty cell.  Returns the filled cells and the cells in the order played."""
    size = state.game.options.size
    table = bridge_table(size)
    cells = state.cells[:]
    empty = [i for i, v in enumerate(cells) if v == EMPTY]
    where = [0] * len(cells)
    for k, cell in enumerate(empty):
        where[cell] = k
    colour = len(state.moves) & 1
    last = state.game.board.index(state.moves[-1]) if state.moves and state.moves[-1] != SWAP else -1
    order: list[int] = []
    getrandbits = rng.getrandbits
    while empty:
        cell = -1
        if last >= 0:
            replies = [y for y, a, b in table[colour][last] if cells[y] == EMPTY and cells[a] == cells[b] == colour]
            if replies:
                cell = replies[0] if len(replies) == 1 else replies[_below(getrandbits, len(replies))]
        if cell < 0:
            cell = empty[_below(getrandbits, len(empty))]
        # Remove from the empty list in O(1): the last entry takes its place.
        k, tail = where[cell], empty.pop()
        if tail != cell:
            empty[k], where[tail] = tail, k
        cells[cell] = colour
        order.append(cell)
        last, colour = cell, colour ^ 1
    return cells, order


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


class HexDomain(RulesDomain):
    """The rules' state with RAVE, and the swap policy at the root (deeper in the tree
    the opponent may always swap).  With the ``edge`` policy Red opens on an edge, the
    stones an engine of that policy leaves alone, and Blue does not consider swapping
    (the engine has already applied the policy); ``search`` leaves both to the search.
    ``rollout``: ``bridges`` fills the board with :func:`bridge_fill`, ``uniform``
    plays the rules' own random playout."""

    def __init__(self, policy: str, rollout: str = "bridges") -> None:
        super().__init__(2, rave=True)
        self.policy = policy
        self.bridges = rollout == "bridges"
        self.root_ply = -1

    def root(self, state: HexState, rng: Any) -> HexState:
        self.root_ply = len(state.moves)
        return state

    def moves(self, position: HexState) -> list[str]:
        moves = super().moves(position)
        if len(position.moves) != self.root_ply or self.policy == "search":
            return moves
        if SWAP in moves:
            moves.remove(SWAP)
        if self.root_ply == 0 and position.game.options.swap and self.policy == "edge":
            moves = [m for m in moves if on_edge(position, m)]
        return moves

    def rollout(self, position: HexState, rng: Random) -> tuple[list[float], list[Played]]:
        if not self.bridges or position.is_terminal() or position.swap_allowed() or not position.moves:
            return super().rollout(position, rng)  # the swap ply is the rules' business
        cells, order = bridge_fill(position, rng)
        board = position.game.board
        red = red_connects(cells, position.game.options.size, board.neighbours)
        rewards = [1.0, 0.0] if red else [0.0, 1.0]
        seat, names = len(position.moves) & 1, board.names
        return rewards, [((seat + k) & 1, names[cell]) for k, cell in enumerate(order)]
