"""Groups for the tree search: a turn is chosen one stone at a time.

A Groups turn places up to three stones, so a position has tens of thousands of
legal moves; listing them at every node would starve the search.  This domain
splits the turn into steps: the first stone (any empty cell), then optionally a
second and a third, each taken in increasing cell order among the cells the rules
allow with the stones chosen so far (``GroupsState.compatible_cells``, the rules' own
pairing test), or ``END`` to stop.  Every legal turn is exactly one path of steps,
and the mover stays the same until the turn is played.
"""

from __future__ import annotations

from random import Random

from arena.rules.groups import EMPTY, GroupsState

from .mcts import Node, Played, rank_rewards

END = "."


class Turn:
    """A Groups position with the stones chosen so far in the current turn."""

    __slots__ = ("state", "stones", "compatible")

    def __init__(self, state: GroupsState) -> None:
        self.state = state
        self.stones: list[int] = []
        self.compatible: list[int] = []  # per cell, built on the first stone (empty until then)

    def token(self) -> str:
        names = self.state.game.board.names
        return ",".join(names[c] for c in sorted(self.stones))


class GroupsDomain:
    players = 2
    rave = True  # credited per stone: a cell is a move at every step

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
            allowed = _allowed(turn)
            while allowed:
                low = allowed & -allowed
                allowed ^= low
                moves.append(names[low.bit_length() - 1])
        return moves

    def play(self, turn: Turn, move: str) -> None:
        if move == END or not _add(turn, move):
            turn.state.play(turn.token())
            turn.stones, turn.compatible = [], []

    def to_move(self, turn: Turn) -> int:
        return turn.state.current_player()

    def clone(self, turn: Turn) -> Turn:
        other = Turn(turn.state.clone())
        other.stones, other.compatible = turn.stones[:], turn.compatible
        return other

    def rollout(self, turn: Turn, rng: Random) -> tuple[list[float], list[Played]]:
        state = turn.state
        played: list[Played] = []
        if turn.stones:
            seat, chosen = state.current_player(), len(turn.stones)
            token = _filled(turn, rng)
            names = state.game.board.names
            played.extend((seat, names[cell]) for cell in turn.stones[chosen:])
            state.play(token)
            turn.stones, turn.compatible = [], []
        while not state.is_terminal():
            seat, token = state.current_player(), state.random_move(rng)
            state.play(token)
            played.extend((seat, cell) for cell in token.split(","))
        return rank_rewards(state.scores()), played

    def final(self, turn: Turn, root: Node, rng: Random) -> str:
        """The turn along the tree's most visited steps, down to ``END`` or a full turn;
        where the tree ends first, the turn is completed at random as rollouts do."""
        turn = self.clone(turn)
        node: Node | None = root
        while True:
            if node is None or not node.total_visits:
                if not turn.stones:  # a root with one move is not searched
                    _add(turn, root.moves[0])
                return _filled(turn, rng)
            i = node.best_move()
            move = node.moves[i]
            if move == END or not _add(turn, move):
                return turn.token()
            node = node.children[i]


def _filled(turn: Turn, rng: Random) -> str:
    """The turn's token after adding random allowed stones until no more may follow
    (uniform random turns mostly have the most stones allowed: there are most of those)."""
    names = turn.state.game.board.names
    while len(turn.stones) < turn.state.max_stones():
        allowed = _allowed(turn)
        if not allowed:
            break
        cells = [i for i in range(allowed.bit_length()) if allowed >> i & 1]
        _add(turn, names[rng.choice(cells)])
    return turn.token()


def _allowed(turn: Turn) -> int:
    """Bitmask of the cells that may join the stones chosen so far (higher cells only)."""
    allowed = -1
    for stone in turn.stones:
        allowed &= turn.compatible[stone]
    return allowed


def _add(turn: Turn, move: str) -> bool:
    """Choose one more stone for the turn; whether another may still follow."""
    state = turn.state
    if not turn.stones and state.max_stones() > 1:
        turn.compatible = state.compatible_cells([i for i, v in enumerate(state.cells) if v == EMPTY])
    turn.stones.append(state.game.board.index(move))
    return len(turn.stones) < state.max_stones() and _allowed(turn) != 0
