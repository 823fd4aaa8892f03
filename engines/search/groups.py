"""Groups for the tree search: a turn is chosen one stone at a time.

A Groups turn places up to three stones, so a position has tens of thousands of
legal moves; listing them at every node would starve the search.  This domain
splits the turn into steps: the first stone (any empty cell), then optionally a
second and a third, each taken in increasing cell order among the cells the rules
allow with the stones chosen so far (``GroupsState._compatible``, the rules' own
pairing test), or ``END`` to stop.  Every legal turn is exactly one path of steps,
and the mover stays the same until the turn is played.
"""

from __future__ import annotations

from random import Random

from arena.rules.groups import EMPTY, GroupsState

from .mcts import ROLLOUT_PLIES, Node, rank_rewards

END = "."


class Turn:
    """A Groups position with the stones chosen so far in the current turn."""

    __slots__ = ("state", "stones", "compatible")

    def __init__(self, state: GroupsState) -> None:
        self.state = state
        self.stones: list[int] = []
        self.compatible: list[int] | None = None   # per cell, built on the first stone

    def token(self) -> str:
        names = self.state.game.board.names
        return ",".join(names[c] for c in sorted(self.stones))


class GroupsDomain:
    players = 2
    rave = False

    def root(self, state: GroupsState, rng: Random) -> Turn:
        return Turn(state)

    def moves(self, turn: Turn) -> list[str]:
        state = turn.state
        if state.is_terminal():
            return []
        names = state.game.board.names
        if not turn.stones:
            return [names[i] for i, v in enumerate(state.cells) if v == EMPTY]
        moves = [END]
        if len(turn.stones) < state.max_stones():
            allowed = -1
            for stone in turn.stones:
                allowed &= turn.compatible[stone]
            while allowed:
                low = allowed & -allowed
                allowed ^= low
                moves.append(names[low.bit_length() - 1])
        return moves

    def play(self, turn: Turn, move: str) -> None:
        if move == END or not _add(turn, move):
            turn.state.play(turn.token())
            turn.stones, turn.compatible = [], None

    def to_move(self, turn: Turn) -> int:
        return turn.state.current_player()

    def clone(self, turn: Turn) -> Turn:
        other = Turn(turn.state.clone())
        other.stones, other.compatible = turn.stones[:], turn.compatible
        return other

    def rollout(self, turn: Turn, rng: Random) -> tuple[list[float], list[str]]:
        state = turn.state
        if turn.stones:                        # a turn in progress ends with the stones chosen
            state.play(turn.token())
            turn.stones, turn.compatible = [], None
        state.playout(rng, ROLLOUT_PLIES)
        return rank_rewards(state.scores()), []

    def final(self, turn: Turn, root: Node) -> str:
        """The turn along the tree's most visited steps, down to ``END``, a full turn or
        the edge of the tree (then the stones chosen so far are the turn)."""
        turn = self.clone(turn)
        node: Node | None = root
        while node is not None and node.total_visits:
            i = node.best_move()
            move = node.moves[i]
            if move == END or not _add(turn, move):
                break
            node = node.children[i]
        if not turn.stones:                    # a root with one move is not searched
            _add(turn, root.moves[0])
        return turn.token()


def _add(turn: Turn, move: str) -> bool:
    """Choose one more stone for the turn; whether another may still follow."""
    state = turn.state
    if not turn.stones and state.max_stones() > 1:
        turn.compatible = state._compatible([i for i, v in enumerate(state.cells) if v == EMPTY])
    turn.stones.append(state.game.board.lookup(move))
    if len(turn.stones) >= state.max_stones():
        return False
    allowed = -1
    for stone in turn.stones:
        allowed &= turn.compatible[stone]
    return allowed != 0
