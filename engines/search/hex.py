"""Hex for the tree search: RAVE over cells, and the swap decision."""

from __future__ import annotations

from typing import Any

from arena.rules.hex import SWAP, HexState

from .mcts import RulesDomain


def on_edge(state: HexState, cell: str) -> bool:
    board, last = state.game.board, state.game.options.size - 1
    r, c = board.coords[board.index(cell)]
    return not (0 < r < last and 0 < c < last)


def edge_swap(state: HexState) -> str | None:
    """The seed's app's rule: swap exactly when Red's first stone is not on an edge."""
    return None if on_edge(state, state.moves[0]) else SWAP


class HexDomain(RulesDomain):
    """The rules' state with RAVE, and the swap policy at the root (deeper in the tree
    the opponent may always swap).  With the ``edge`` policy Red opens on an edge, the
    stones an engine of that policy leaves alone, and Blue does not consider swapping
    (the engine has already applied the policy); ``search`` leaves both to the search."""

    def __init__(self, policy: str) -> None:
        super().__init__(2, rave=True)
        self.policy = policy
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
