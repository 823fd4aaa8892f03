"""Hex random playouts in numpy batches: many games at once from a position.

A random Hex game from a position is fixed by the order in which it would fill the
empty cells: the players alternate along that order until one connects.  Whoever
connects first also owns the full board's one winning chain (a chain, once made,
stays, and a full board has exactly one), so a game is decided by its order alone,
and it ends at the first ply by which the winner's stones already placed join the
winner's edges.  That ply is a *bottleneck distance*: over the chains of the
winner's stones from one edge to the other, the smallest possible latest stone.
:func:`fill` computes it for a batch of orders at once by relaxing
``d(cell) = max(time(cell), min(d(neighbour)))`` over the whole batch with numpy
until nothing changes (the hex neighbourhood is symmetric under swapping rows and
columns, so Blue's left-right distance is Red's on the transposed board).

This is an evaluator, not a second referee: it never decides whether a move is
legal, and ``tests/test_hexfill.py`` checks that the referee (``HexState.play`` and
``HexState.playout``) gives the very same games, winners and lengths from the same
draws (:func:`referee_order` turns ``playout``'s own draws into an order).
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

import numpy as np

from .base import draw_below
from .hex import BLUE, EMPTY, RED, HexState

SOURCE = -1  # the distance of an edge and the time of a stone already placed: before every ply


@dataclass(frozen=True)
class Filled:
    """Per order of a batch: the winner and how many of the order's cells were played."""

    winners: np.ndarray  # (batch,) RED or BLUE
    plies: np.ndarray  # (batch,) game length from the position, in plies


def empty_cells(state: HexState) -> np.ndarray:
    return np.flatnonzero(np.asarray(state.cells) == EMPTY)


def random_orders(state: HexState, rng: np.random.Generator, batch: int) -> np.ndarray:
    """``batch`` uniform random orders of the position's empty cells, one per row."""
    return rng.permuted(np.broadcast_to(empty_cells(state), (batch, len(empty_cells(state)))), axis=1)


def referee_order(state: HexState, rng: Random) -> list[int]:
    """The order in which ``state.playout(rng, ...)`` draws cells (the same calls on
    ``rng``), carried on past the game's end to fill the board."""
    empty = [i for i, v in enumerate(state.cells) if v == EMPTY]
    order = []
    while empty:
        order.append(empty.pop(draw_below(rng.getrandbits, len(empty))))
    return order


def _check(state: HexState) -> None:
    if state.is_terminal() or state.swap_allowed():
        # Swap moves a stone: an order of cells cannot say whether Blue swaps.
        raise ValueError("fill: the position must be in progress, past the swap")


def fill(state: HexState, orders: np.ndarray) -> Filled:
    """Play every order (rows: permutations of the empty cells) from ``state`` to the end."""
    _check(state)
    n = state.game.options.size
    batch, count = orders.shape
    mover = len(state.moves) & 1
    # Plies fit in a byte up to 11 x 11, and the relaxation's speed is memory traffic.
    dtype = np.int8 if n * n < np.iinfo(np.int8).max else np.int16
    far = np.iinfo(dtype).max
    # time[b, cell]: the ply of the order at which the cell is filled; stones already there: -1.
    times = np.full((batch, n * n), SOURCE, dtype=dtype)
    ply = np.arange(count, dtype=dtype)
    np.put_along_axis(times, orders, np.broadcast_to(ply, (batch, count)), axis=1)
    colour = np.broadcast_to(np.asarray(state.cells, dtype=np.int8), (batch, n * n)).copy()
    movers = np.bitwise_xor(ply % 2, mover).astype(np.int8)
    np.put_along_axis(colour, orders, np.broadcast_to(movers, (batch, count)), axis=1)
    board_times, board_colour = times.reshape(batch, n, n), colour.reshape(batch, n, n)
    red = np.where(board_colour == RED, board_times, far)
    blue = np.where(board_colour == BLUE, board_times, far).transpose(0, 2, 1)
    ends = _bottleneck(np.concatenate([red, blue]), far)  # (2 * batch,): the ply a colour connects, or far
    red_end, blue_end = ends[:batch], ends[batch:]
    return Filled(np.where(red_end < blue_end, RED, BLUE), np.minimum(red_end, blue_end) + 1)


def _bottleneck(cost: np.ndarray, far: int) -> np.ndarray:
    """Per board (rows top to bottom), the smallest latest cost of a chain of cells of
    finite cost from the top row to the bottom row (``far`` if there is none).

    The boards are laid out cell-major, ``d[cell, board]`` over the board padded with a
    row above (the top edge, distance -1), a row below and a column each side (never
    reached), so a neighbour is a fixed offset and each step of the relaxation is a few
    numpy operations over one contiguous block."""
    boards, n, _ = cost.shape
    width = n + 2
    padded = np.full((boards, n, width), far, dtype=cost.dtype)
    padded[:, :, 1:-1] = cost
    cost = np.ascontiguousarray(padded.reshape(boards, n * width).T)
    d = np.full((width * width, boards), far, dtype=cost.dtype)
    d[:width] = SOURCE  # above the top row: the edge itself; every cell starts unreached
    ends = np.empty(boards, dtype=np.int64)
    live = np.arange(boards)  # the boards still changing
    while True:
        changed = _relax(d, cost, width)
        done = ~changed
        ends[live[done]] = d[n * width + 1 : (n + 1) * width - 1, done].min(axis=0)
        if not changed.any():
            return ends
        # Most boards settle well before the slowest: go on with the others only.
        live, d, cost = live[changed], d[:, changed], cost[:, changed]


def _relax(d: np.ndarray, cost: np.ndarray, width: int, steps: int = 4) -> np.ndarray:
    """``steps`` rounds of ``d = max(cost, min(d of the six neighbours))``; per board,
    whether the last round changed it (if not, it is final)."""
    lo, hi = width, len(d) - width  # the board's rows, padding columns included
    inner = d[lo:hi]
    # The six neighbours of (r, c): (r, c-1) (r, c+1) (r-1, c) (r-1, c+1) (r+1, c) (r+1, c-1).
    views = [d[lo + k : hi + k] for k in (-1, 1, -width, 1 - width, width, width - 1)]
    near = np.empty_like(cost)
    before = np.empty_like(cost)
    for step in range(steps):
        if step == steps - 1:
            before[...] = inner
        np.minimum(views[0], views[1], out=near)
        for view in views[2:]:
            np.minimum(near, view, out=near)
        np.maximum(near, cost, out=inner)
    changed: np.ndarray = (inner != before).any(axis=0)
    return changed
