"""A Hex engine that is clearly stronger than random, in about 50 lines.

One-ply search on shortest-path distance: for each empty cell it counts how many
more stones each side would need to join its edges (own stones cost 0, empty
cells 1, enemy stones block) and picks the move that best widens the gap.
It swaps, like the seed's computer player, when Red's first stone is off the edges.
"""

from collections import deque
from typing import cast

from arena.rules import State
from arena.rules.hex import EMPTY, RED, SWAP, HexState
from protocol.sdk import Clock, Engine, run

UNREACHABLE = 10_000


def distance(state: HexState, colour: int) -> int:
    """Empty cells still needed for ``colour`` to connect its two edges (0-1 BFS)."""
    board, cells = state.game.board, state.cells
    n = state.game.options.size
    axis = 0 if colour == RED else 1
    dist = [UNREACHABLE] * len(cells)
    queue: deque[int] = deque()
    for i, rc in enumerate(board.coords):
        if rc[axis] == 0 and cells[i] != 1 - colour:
            dist[i] = 0 if cells[i] == colour else 1
            (queue.appendleft if dist[i] == 0 else queue.append)(i)
    while queue:
        cell = queue.popleft()
        if board.coords[cell][axis] == n - 1:
            return dist[cell]
        for nb in board.neighbours[cell]:
            if cells[nb] == 1 - colour:
                continue
            cost = dist[cell] + (0 if cells[nb] == colour else 1)
            if cost < dist[nb]:
                dist[nb] = cost
                (queue.appendleft if cells[nb] == colour else queue.append)(nb)
    return UNREACHABLE


class Pathfinder(Engine):
    name = "pathfinder"
    author = "arena"

    def choose_move(self, state: State, clock: Clock) -> str:
        state = cast(HexState, state)  # a Hex engine: it is only ever run on Hex
        me = state.current_player()
        if state.swap_allowed():
            r, c = state.game.board.coords[state.game.board.index(state.moves[0])]
            if 0 < r < state.game.options.size - 1 and 0 < c < state.game.options.size - 1:
                return SWAP
        best, best_value = [], None
        for cell, value in enumerate(state.cells):
            if value != EMPTY:
                continue
            state.cells[cell] = me
            score = distance(state, 1 - me) - distance(state, me)
            state.cells[cell] = EMPTY
            if best_value is None or score > best_value:
                best, best_value = [cell], score
            elif score == best_value:
                best.append(cell)
        return state.game.board.names[self.rng.choice(best)]


def main() -> None:
    run(Pathfinder())


if __name__ == "__main__":
    main()
